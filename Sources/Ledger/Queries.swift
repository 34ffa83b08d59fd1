import CivilTime
import StepdModel

/// CMPedometer-style totals for a range.
public struct PedometerData: Sendable, Equatable {
    public var start: Double
    public var end: Double
    public var steps: Double
    public var distance: Double
    /// Each source's merged steps and distance (empty unless asked for).
    public var bySource: [SampleSource: SourceAmount]
}

public struct StatisticsBucket: Sendable, Equatable {
    public var start: Double
    public var end: Double
    public var steps: Double
    public var distance: Double
    public var bySource: [SampleSource: SourceAmount]
}

/// Sum over a range plus min/max/average of the per-bucket sums.
public struct RangeStatistics: Sendable, Equatable {
    public var start: Double
    public var end: Double
    public var steps: Double
    public var distance: Double
    public var bucketCount: Int
    public var minimumSteps: Double
    public var maximumSteps: Double
    public var averageSteps: Double
    public var bySource: [SampleSource: SourceAmount]
}

/// A stretch of one activity, from the detector's records.
public enum LedgerQueryError: Error, Sendable, Equatable, CustomStringConvertible {
    case emptyRange(from: Double, to: Double)
    case badBucket(String)
    case tooManyBuckets(Int)

    public var description: String {
        switch self {
        case .emptyRange(let from, let to): return "range end \(to) must be after its start \(from)"
        case .badBucket(let reason): return "bad bucket interval: \(reason)"
        case .tooManyBuckets(let count): return "\(count) buckets requested; at most \(LedgerQueries.maximumBuckets) per query, use a larger interval or a shorter range"
        }
    }
}

/// Pure queries over ledger samples (records plus the live, unsaved steps).
public enum LedgerQueries {
    public static let maximumBuckets = 100_000
    /// Gap that ends an activity segment even when the activity stays the same.
    public static let segmentGap: Double = 300
    /// A record keeps the dominant activity of its steps, not the classifier's confidence at
    /// the time, so stored history says `medium`; the live activity carries its own.
    public static let storedConfidence = ActivityConfidence.medium

    public static func pedometer<S: Sequence>(_ samples: S, from: Double, to: Double, filter: SampleFilter = .init(),
                                              priority: SourcePriority = .init(), splitBySource: Bool = false)
    throws(LedgerQueryError) -> PedometerData where S.Element == StepRecord {
        try SampleStore(Array(samples)).pedometer(from: from, to: to, filter: filter, priority: priority,
                                                  splitBySource: splitBySource)
    }

    /// [local midnight, next local midnight) around `now`.
    public static func todayRange(now: Double, timeZone: TimeZoneRule) -> (start: Double, end: Double) {
        let start = timeZone.startOfLocalDay(containing: now)
        let local = start + Double(timeZone.offset(at: start))
        let next = timeZone.utc(fromLocal: (local / 86400).rounded() * 86400 + 86400)
        return (start, next)
    }

    /// Bucket boundaries covering [from, to), aligned to `anchor`. Minute and hour buckets
    /// are fixed lengths of elapsed time; day buckets follow the local calendar, so a day is
    /// 23 or 25 hours long across a DST change.
    public static func bucketBoundaries(from: Double, to: Double, anchor: Double, interval: BucketInterval,
                                        timeZone: TimeZoneRule) throws(LedgerQueryError) -> [Double] {
        guard to > from else { throw .emptyRange(from: from, to: to) }
        guard interval.count >= 1, interval.count <= 100_000 else { throw .badBucket("count \(interval.count) must be 1...100000") }
        guard anchor.isFinite else { throw .badBucket("anchor \(anchor) must be a finite time") }
        var boundaries: [Double] = []
        switch interval.unit {
        case .minutes, .hours:
            let length = interval.nominalSeconds
            let first = ((from - anchor) / length).rounded(.down)
            // Checked as a Double: an infinite or enormous range must be refused, not trap in Int().
            let span = ((to - anchor) / length).rounded(.up) - first
            guard span <= Double(maximumBuckets) else { throw .tooManyBuckets(span < 0x1p62 ? Int(span) : Int.max) }
            let count = Int(span)
            boundaries.reserveCapacity(count + 1)
            for k in 0...count { boundaries.append(anchor + (first + Double(k)) * length) }
        case .days:
            let length = interval.nominalSeconds
            let anchorLocal = anchor + Double(timeZone.offset(at: anchor))
            let fromLocal = from + Double(timeZone.offset(at: from))
            var k = ((fromLocal - anchorLocal) / length).rounded(.down)
            while timeZone.utc(fromLocal: anchorLocal + k * length) > from { k -= 1 }
            var boundary = timeZone.utc(fromLocal: anchorLocal + k * length)
            boundaries.append(boundary)
            while boundary < to {
                k += 1
                boundary = timeZone.utc(fromLocal: anchorLocal + k * length)
                boundaries.append(boundary)
                guard boundaries.count <= maximumBuckets + 1 else { throw .tooManyBuckets(boundaries.count) }
            }
        }
        return boundaries
    }

    /// HKStatisticsCollectionQuery: merged samples in [from, to) summed into buckets; a
    /// piece that crosses a boundary is split by time. The last bucket ends at `to`.
    public static func collection<S: Sequence>(_ samples: S, from: Double, to: Double, anchor: Double,
                                               interval: BucketInterval, timeZone: TimeZoneRule,
                                               filter: SampleFilter = .init(), priority: SourcePriority = .init(),
                                               splitBySource: Bool = false)
    throws(LedgerQueryError) -> [StatisticsBucket] where S.Element == StepRecord {
        try SampleStore(Array(samples)).collection(from: from, to: to, anchor: anchor, interval: interval, timeZone: timeZone,
                                                   filter: filter, priority: priority, splitBySource: splitBySource)
    }

    /// Sum over [from, to) and min/max/average of the per-bucket sums (e.g. average daily steps).
    public static func statistics<S: Sequence>(_ samples: S, from: Double, to: Double, interval: BucketInterval,
                                               timeZone: TimeZoneRule, filter: SampleFilter = .init(),
                                               priority: SourcePriority = .init(), splitBySource: Bool = false)
    throws(LedgerQueryError) -> RangeStatistics where S.Element == StepRecord {
        try SampleStore(Array(samples)).statistics(from: from, to: to, interval: interval, timeZone: timeZone,
                                                   filter: filter, priority: priority, splitBySource: splitBySource)
    }

    static func summarize(_ buckets: [StatisticsBucket], from: Double, to: Double) -> RangeStatistics {
        var result = RangeStatistics(start: from, end: to, steps: 0, distance: 0, bucketCount: buckets.count,
                                     minimumSteps: .infinity, maximumSteps: 0, averageSteps: 0, bySource: [:])
        for bucket in buckets {
            result.steps += bucket.steps
            result.distance += bucket.distance
            result.minimumSteps = min(result.minimumSteps, bucket.steps)
            result.maximumSteps = max(result.maximumSteps, bucket.steps)
            for (source, amount) in bucket.bySource {
                result.bySource[source, default: SourceAmount(steps: 0, distance: 0)].steps += amount.steps
                result.bySource[source, default: SourceAmount(steps: 0, distance: 0)].distance += amount.distance
            }
        }
        if buckets.isEmpty { result.minimumSteps = 0 }
        result.averageSteps = buckets.isEmpty ? 0 : result.steps / Double(buckets.count)
        return result
    }

    /// Activity history from one source's records (this device's detector by default):
    /// consecutive records of one activity merge into a segment until the activity changes
    /// or a gap longer than `segmentGap` passes. Clipped to [from, to).
    public static func activityHistory<S: Sequence>(_ samples: S, from: Double, to: Double, sourceKind: SourceKind = .detector)
    throws(LedgerQueryError) -> [ActivitySegment] where S.Element == StepRecord {
        try SampleStore(Array(samples)).activityHistory(from: from, to: to, sourceKind: sourceKind)
    }
}

/// The queries over a store. `extra` holds samples not stored yet (the agent's live steps);
/// `exact: true` sends every sample through the merge (the reference the fast path is
/// tested against).
extension SampleStore {
    public func pedometer(from: Double, to: Double, filter: SampleFilter = .init(), priority: SourcePriority = .init(),
                          splitBySource: Bool = false, extra: [StepRecord] = [], exact: Bool = false)
    throws(LedgerQueryError) -> PedometerData {
        guard to > from else { throw .emptyRange(from: from, to: to) }
        let (sums, table) = sums(boundaries: [from, to], from: from, to: to, filter: filter, priority: priority,
                                 split: splitBySource, extra: extra, exact: exact)
        return PedometerData(start: from, end: to, steps: sums[0].steps, distance: sums[0].distance,
                             bySource: splitBySource ? sums[0].amountsBySource(table) : [:])
    }

    public func collection(from: Double, to: Double, anchor: Double, interval: BucketInterval, timeZone: TimeZoneRule,
                           filter: SampleFilter = .init(), priority: SourcePriority = .init(), splitBySource: Bool = false,
                           extra: [StepRecord] = [], exact: Bool = false) throws(LedgerQueryError) -> [StatisticsBucket] {
        let boundaries = try LedgerQueries.bucketBoundaries(from: from, to: to, anchor: anchor, interval: interval,
                                                            timeZone: timeZone)
        let (sums, table) = sums(boundaries: boundaries, from: from, to: to, filter: filter, priority: priority,
                                 split: splitBySource, extra: extra, exact: exact)
        var buckets: [StatisticsBucket] = []
        buckets.reserveCapacity(sums.count)
        for (index, sum) in sums.enumerated() {
            // The last bucket ends at `to`: it counts nothing after it, and a "today by hour" whose
            // last row read 10:00-11:00 at 10:23 claimed an hour that had not happened (as
            // HKStatisticsCollection's statistics clipped to the query interval). The first keeps
            // its grid start, the alignment a next page continues on.
            buckets.append(StatisticsBucket(start: boundaries[index], end: min(boundaries[index + 1], to), steps: sum.steps,
                                            distance: sum.distance,
                                            bySource: splitBySource ? sum.amountsBySource(table) : [:]))
        }
        return buckets
    }

    /// Buckets are aligned on local midnight of the range start (as `collection` by default),
    /// so "average daily steps" means calendar days whatever time of day the range starts.
    public func statistics(from: Double, to: Double, interval: BucketInterval, timeZone: TimeZoneRule,
                           filter: SampleFilter = .init(), priority: SourcePriority = .init(), splitBySource: Bool = false,
                           extra: [StepRecord] = [], exact: Bool = false) throws(LedgerQueryError) -> RangeStatistics {
        let anchor = timeZone.startOfLocalDay(containing: from)
        let buckets = try collection(from: from, to: to, anchor: anchor, interval: interval, timeZone: timeZone,
                                     filter: filter, priority: priority, splitBySource: splitBySource, extra: extra,
                                     exact: exact)
        return LedgerQueries.summarize(buckets, from: from, to: to)
    }

    /// Activity history from one source kind's records (this device's detector by default):
    /// consecutive records of one activity merge into a segment until the activity changes
    /// or a gap longer than `segmentGap` passes. Clipped to [from, to).
    public func activityHistory(from: Double, to: Double, sourceKind: SourceKind = .detector, extra: [StepRecord] = [])
    throws(LedgerQueryError) -> [ActivitySegment] {
        guard to > from else { throw .emptyRange(from: from, to: to) }
        var table = sources
        var records = candidates(from: from, to: to).filter { $0.isLive }
        for record in extra where !record.isTombstone { records.append(CompactSample(record, source: table.intern(record.source))) }
        if !extra.isEmpty { records.sort(by: CompactSample.order) }
        var segments: [ActivitySegment] = []
        for record in records where table.sources[Int(record.source)].kind == sourceKind && record.end >= from && record.start < to {
            let start = max(record.start, from), end = min(record.end, to)
            let activity = record.activityKind
            if var last = segments.last, last.kind == activity, start - last.end <= LedgerQueries.segmentGap {
                last.end = max(last.end, end)
                segments[segments.count - 1] = last
            } else {
                segments.append(ActivitySegment(kind: activity, confidence: LedgerQueries.storedConfidence, start: start, end: end))
            }
        }
        return segments
    }
}
