import CivilTime
import Glibc
import Ledger
import POSIXLayer
import StepdModel

// Queries over the stored records plus the live (unsaved) detector steps.
extension LedgerService {
    /// The not-yet-saved detector steps as a sample, so queries include them.
    var liveSamples: [StepRecord] {
        guard let current = pending else { return [] }
        return [StepRecord(sequence: 0, start: current.start, end: current.end, utcOffset: 0, steps: current.steps,
                           distance: current.distance, activity: current.activity, source: deviceSource)]
    }

    public func pedometerData(from: Double, to: Double, filter: SampleFilter = .init(),
                              splitBySource: Bool = false) throws(LedgerError) -> PedometerData {
        do throws(LedgerQueryError) {
            return try store.pedometer(from: from, to: to, filter: filter, priority: sourcePriority,
                                       splitBySource: splitBySource, extra: liveSamples)
        } catch {
            throw .query(error)
        }
    }

    /// Today in the given zone: local midnight to `now`.
    public func today(now: Double, timeZone: TimeZoneRule, filter: SampleFilter = .init()) throws(LedgerError) -> PedometerData {
        let range = LedgerQueries.todayRange(now: now, timeZone: timeZone)
        return try pedometerData(from: range.start, to: max(now, range.start + 0.001), filter: filter)
    }

    public func statisticsCollection(from: Double, to: Double, anchor: Double, interval: BucketInterval,
                                     timeZone: TimeZoneRule, filter: SampleFilter = .init(),
                                     splitBySource: Bool = false) throws(LedgerError) -> [StatisticsBucket] {
        do throws(LedgerQueryError) {
            return try store.collection(from: from, to: to, anchor: anchor, interval: interval, timeZone: timeZone,
                                        filter: filter, priority: sourcePriority, splitBySource: splitBySource,
                                        extra: liveSamples)
        } catch {
            throw .query(error)
        }
    }

    public func statistics(from: Double, to: Double, interval: BucketInterval, timeZone: TimeZoneRule,
                           filter: SampleFilter = .init(), splitBySource: Bool = false) throws(LedgerError) -> RangeStatistics {
        do throws(LedgerQueryError) {
            return try store.statistics(from: from, to: to, interval: interval, timeZone: timeZone, filter: filter,
                                        priority: sourcePriority, splitBySource: splitBySource, extra: liveSamples)
        } catch {
            throw .query(error)
        }
    }

    public func activityHistory(from: Double, to: Double) throws(LedgerError) -> [ActivitySegment] {
        do throws(LedgerQueryError) {
            return try store.activityHistory(from: from, to: to, extra: liveSamples)
        } catch {
            throw .query(error)
        }
    }

    /// Records and tombstones held (durable and backlog).
    public var recordCount: Int { store.count }

    /// Steps of every live sample (all sources, unmerged) plus the pending detector steps.
    public var recordedSteps: Int { store.liveSteps + (pending?.steps ?? 0) }

    /// Live samples that start in [from, to), by start time, at most `limit` (HKSampleQuery).
    public func samples(startingFrom from: Double, to: Double, filter: SampleFilter, limit: Int) -> [StepRecord] {
        store.liveRecords(startingFrom: from, to: to, filter: filter, limit: limit)
    }

    /// The sync identifier and version a sample was added with, if any.
    public func syncMetadata(sequence: UInt64) -> SampleSync? { syncRecords[sequence] }
}
