import CivilTime
import Ledger
import LedgerStore
import StepdModel
import Testing

/// Deterministic generator so a failing seed can be replayed.
struct TestRandom {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
}

/// The fast path (whole samples alone in time summed without merging) against the exact
/// merge of every sample: same bits on random ledgers with overlapping sources, instants,
/// touching records, tombstones, user-entered samples and live steps.
@Suite struct FastPathTests {
    static let base = utc(2024, 3, 30)
    static let sources = [detector, watch, phone, SampleSource(id: "app-x", kind: .app),
                          SampleSource(id: "me", kind: .manual), SampleSource(id: "old-device", kind: .detector)]

    static func randomLedger(_ random: inout TestRandom, count: Int) -> [StepRecord] {
        var records: [StepRecord] = []
        var clock = base - 3600
        for index in 0..<count {
            let sequence = UInt64(index + 1)
            // Mostly detector records one after another (some touching, some instants), the
            // rest from other sources anywhere in the window.
            let source = random.below(4) == 0 ? sources[1 + random.below(sources.count - 1)] : detector
            let start: Double
            if source == detector {
                start = random.below(5) == 0 ? clock : clock + Double(random.below(900_000)) / 1000
            } else {
                start = base - 3600 + Double(random.below(3 * 86400 * 1000)) / 1000
            }
            let duration = random.below(6) == 0 ? 0 : Double(random.below(7_200_000)) / 1000
            let flags: RecordFlags = source.kind == .manual || random.below(20) == 0 ? .userEntered : []
            let record = StepRecord(sequence: sequence, start: start, end: start + duration, utcOffset: 3600,
                                    steps: random.below(3000), distance: Double(random.below(2_000_000)) / 1000,
                                    activity: random.below(5) == 0 ? .running : .walking, source: source, flags: flags)
            if source == detector { clock = record.end }
            records.append(record)
        }
        // Delete a few external samples.
        for _ in 0..<(count / 20) {
            let target = records[random.below(records.count)]
            guard !target.isTombstone, target.source.kind != .detector else { continue }
            records.append(StepRecord(sequence: UInt64(records.count + 1), startMs: target.startMs, endMs: target.endMs,
                                      utcOffset: target.utcOffset, steps: 0, distanceMm: 0, activity: target.activity,
                                      source: target.source, flags: .tombstone, deletes: target.sequence))
        }
        return records
    }

    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8])
    func fastPathMatchesExactMerge(seed: UInt64) throws {
        var random = TestRandom(state: seed)
        let store = SampleStore(Self.randomLedger(&random, count: 60 + random.below(400)))
        let zones: [TimeZoneRule] = [.utc, try loadZone("Europe/Berlin"), .fixed(seconds: 19800)]
        let intervals: [BucketInterval] = [.minutes(15), .hours(1), .hours(5), .days(1)]
        let filters = [SampleFilter(), SampleFilter(includeUserEntered: false), SampleFilter(sources: [detector, watch])]
        let priorities = [SourcePriority(), SourcePriority(order: [watch, SampleSource(id: "app-x", kind: .app)])]
        var compared = 0
        for _ in 0..<40 {
            let from = Self.base - 7200 + Double(random.below(2 * 86400))
            let to = from + 1 + Double(random.below(2 * 86400))
            let zone = zones[random.below(zones.count)]
            let filter = filters[random.below(filters.count)]
            let priority = priorities[random.below(priorities.count)]
            let split = random.below(2) == 0
            // Live steps sometimes overlap the last records.
            var extra: [StepRecord] = []
            if random.below(2) == 0 {
                let start = from + Double(random.below(86400))
                extra.append(StepRecord(sequence: 0, start: start, end: start + Double(random.below(600)), utcOffset: 0,
                                        steps: 1 + random.below(99), distance: 50, activity: .walking, source: detector))
            }
            let interval = intervals[random.below(intervals.count)]
            let fast = try store.collection(from: from, to: to, anchor: from - Double(random.below(3600)), interval: interval,
                                            timeZone: zone, filter: filter, priority: priority, splitBySource: split,
                                            extra: extra)
            let exact = try store.collection(from: from, to: to, anchor: fast.first?.start ?? from, interval: interval,
                                             timeZone: zone, filter: filter, priority: priority, splitBySource: split,
                                             extra: extra, exact: true)
            #expect(fast == exact, "seed \(seed) from \(from) to \(to) \(interval)")
            let fastTotal = try store.pedometer(from: from, to: to, filter: filter, priority: priority, splitBySource: split, extra: extra)
            let exactTotal = try store.pedometer(from: from, to: to, filter: filter, priority: priority, splitBySource: split,
                                                 extra: extra, exact: true)
            #expect(fastTotal == exactTotal, "seed \(seed) from \(from) to \(to)")
            // Bucket sums add up to the range total (different summation order: tolerance).
            #expect(abs(fast.reduce(0) { $0 + $1.steps } - fastTotal.steps) < 1e-6)
            compared += fast.count
        }
        #expect(compared > 40)
    }

    @Test func detectorOnlyTotalsAreExactIntegers() throws {
        // 1,000 records of 100 steps and 71.5 m with odd durations: prorating by time would
        // leave rounding dust; whole records add exact integers.
        let records = (0..<1000).map { index in
            StepRecord(sequence: UInt64(index + 1), start: Self.base + Double(index) * 61.3, end: Self.base + Double(index) * 61.3 + 57.7,
                       utcOffset: 0, steps: 100, distance: 71.5, activity: .walking, source: detector)
        }
        let store = SampleStore(records)
        let total = try store.pedometer(from: Self.base - 1, to: Self.base + 86400)
        #expect(total.steps == 100_000)
        #expect(total.distance == 71_500)
        let hourly = try store.collection(from: Self.base, to: Self.base + 86400, anchor: Self.base, interval: .hours(1), timeZone: .utc)
        #expect(abs(hourly.reduce(0) { $0 + $1.steps } - 100_000) < 1e-6)
        // 58 records lie whole inside the first hour, the 59th crosses 01:00 and is prorated.
        #expect(hourly[0].steps > 5800 && hourly[0].steps < 5900)
    }

    @Test func storeFollowsInsertsAndDeletes() throws {
        var store = SampleStore([record(1, 1000, 1100, steps: 100), record(2, 1200, 1300, steps: 100)])
        #expect(try store.pedometer(from: 0, to: 5000).steps == 200)
        // A watch sample over both: the detector still wins, the watch adds its uncovered time.
        store.insert(record(3, 1000, 1400, steps: 400, source: watch))
        let merged = try store.pedometer(from: 0, to: 5000, splitBySource: true)
        #expect(abs(merged.steps - 400) < 1e-9)
        #expect(abs((merged.bySource[watch]?.steps ?? 0) - 200) < 1e-9)
        #expect(merged == (try store.pedometer(from: 0, to: 5000, splitBySource: true, exact: true)))
        store.insert(StepRecord(sequence: 4, startMs: 1_000_000, endMs: 1_400_000, utcOffset: 0, steps: 0, distanceMm: 0,
                                activity: .walking, source: watch, flags: .tombstone, deletes: 3))
        #expect(try store.pedometer(from: 0, to: 5000).steps == 200)
        #expect(store.isDeleted(sequence: 3) && store.liveRecord(sequence: 3) == nil)
        #expect(store.page(after: 0, limit: 10).records.map(\.sequence) == [1, 2, 3, 4])
        #expect(store.page(after: 0, limit: 10).records.last?.deletes == 3)
        store.removeAll { sequence, _ in sequence <= 2 }
        #expect(try store.pedometer(from: 0, to: 5000).steps == 0)
        #expect(store.count == 2)
    }
}
