import StepdModel

/// Which samples a query counts.
public struct SampleFilter: Sendable, Equatable {
    /// Like HealthKit statistics, user-entered samples count unless a query leaves them out:
    /// the one default of every query.
    public var includeUserEntered: Bool
    /// Only these sources (nil: every source), like `HKQuery.predicateForObjects(from:)`.
    public var sources: Set<SampleSource>?

    public init(includeUserEntered: Bool = true, sources: Set<SampleSource>? = nil) {
        self.includeUserEntered = includeUserEntered
        self.sources = sources
    }

    public func admits(_ record: StepRecord) -> Bool {
        if record.isTombstone { return false }
        if record.isUserEntered && !includeUserEntered { return false }
        if let sources, !sources.contains(record.source) { return false }
        return true
    }
}

/// Which source wins where samples overlap in time (HealthKit's Data Sources list). Sources
/// listed in `order` win, in list order; unlisted ones follow by kind (this device's detector,
/// other devices, apps, manual) and within a kind in the order they first appeared in the
/// ledger, never by name.
public struct SourcePriority: Sendable, Equatable {
    public var order: [SampleSource]

    public init(order: [SampleSource] = []) { self.order = order }

    /// Smaller sorts first (wins). `firstSeen` orders sources that first appeared earlier first.
    public func rank(_ source: SampleSource, firstSeen: UInt32) -> (Int, Int, UInt32) {
        if let index = order.firstIndex(of: source) { return (0, index, firstSeen) }
        return (1, source.kind.defaultRank, firstSeen)
    }

    /// Every source of `known` (in first-seen order) from the winner down.
    public func ranked(_ known: [SampleSource]) -> [SampleSource] {
        known.enumerated().sorted { a, b in
            rank(a.element, firstSeen: UInt32(clamping: a.offset)) < rank(b.element, firstSeen: UInt32(clamping: b.offset))
        }.map(\.element)
    }
}

/// Steps and distance one source contributed after merging.
public struct SourceAmount: Sendable, Equatable {
    public var steps: Double
    public var distance: Double
    public init(steps: Double, distance: Double) {
        self.steps = steps
        self.distance = distance
    }
}

/// A piece of a sample that survived merging: the part of one sample's time no higher-priority
/// sample covers, with steps and distance prorated by time.
public struct MergedPiece: Sendable, Equatable {
    public var start: Double
    public var end: Double
    public var steps: Double
    public var distance: Double
    public var source: SampleSource
}

/// Source ids interned as small integers, so samples held in memory carry no `String`
/// (copying a record then costs no reference counting, and a year of records stays small).
public struct SourceTable: Sendable {
    public private(set) var sources: [SampleSource] = []
    private var numbers: [SampleSource: UInt32] = [:]

    public init() {}

    public mutating func intern(_ source: SampleSource) -> UInt32 {
        if let number = numbers[source] { return number }
        let number = UInt32(sources.count)
        sources.append(source)
        numbers[source] = number
        return number
    }

    public func number(of source: SampleSource) -> UInt32? { numbers[source] }
}

/// A record as held in memory: 48 bytes, no reference-counted fields.
public struct CompactSample: Sendable, Equatable {
    public var sequence: UInt64
    public var startMs: Int64
    public var endMs: Int64
    public var distanceMm: Int64
    public var source: UInt32
    /// The file format bounds steps to Int32.max (`RecordCodec`), so this never clamps a
    /// record that could be stored.
    public var steps: Int32
    public var utcOffset: Int32
    public var activity: UInt8
    public var bits: UInt8

    static let userEnteredBit: UInt8 = 1
    static let tombstoneBit: UInt8 = 2
    /// Deleted by a tombstone: kept for sync, left out of every query.
    static let deletedBit: UInt8 = 4
    /// Shares no moment (closed intervals) with any other live sample, so merging cannot
    /// change it: it counts whole wherever it lies inside one bucket.
    static let aloneBit: UInt8 = 8

    static let activities = ActivityKind.allCases

    var isLive: Bool { bits & (Self.tombstoneBit | Self.deletedBit) == 0 }
    var isAlone: Bool { bits & Self.aloneBit != 0 }
    var isUserEntered: Bool { bits & Self.userEnteredBit != 0 }
    var isTombstone: Bool { bits & Self.tombstoneBit != 0 }
    var activityKind: ActivityKind {
        Int(activity) < Self.activities.count ? Self.activities[Int(activity)] : .unknown
    }
    var start: Double { Double(startMs) / 1000 }
    var end: Double { Double(endMs) / 1000 }

    init(_ record: StepRecord, source: UInt32) {
        sequence = record.sequence
        startMs = record.startMs
        endMs = record.endMs
        distanceMm = record.distanceMm
        self.source = source
        steps = Int32(clamping: record.steps)
        utcOffset = record.utcOffset
        activity = UInt8(Self.activities.firstIndex(of: record.activity) ?? 0)
        bits = (record.isUserEntered ? Self.userEnteredBit : 0) | (record.isTombstone ? Self.tombstoneBit : 0)
    }

    static func order(_ a: CompactSample, _ b: CompactSample) -> Bool { (a.startMs, a.sequence) < (b.startMs, b.sequence) }
}

/// Per-bucket sums. Whole samples add exact integers, prorated pieces add fractions, so the
/// fast path (whole samples summed without merging) and the exact merge give the same bits.
struct BucketSums {
    var wholeSteps: Int64 = 0
    var wholeMillimetres: Int64 = 0
    var partialSteps = 0.0
    var partialDistance = 0.0
    /// Per source: whole steps, whole millimetres, prorated steps, prorated metres.
    var bySource: [UInt32: (steps: Int64, millimetres: Int64, partialSteps: Double, partialDistance: Double)] = [:]

    var steps: Double { Double(wholeSteps) + partialSteps }
    var distance: Double { Double(wholeMillimetres) / 1000 + partialDistance }

    mutating func addWhole(steps: Int64, millimetres: Int64, source: UInt32, split: Bool) {
        wholeSteps += steps
        wholeMillimetres += millimetres
        if split {
            bySource[source, default: (0, 0, 0, 0)].steps += steps
            bySource[source, default: (0, 0, 0, 0)].millimetres += millimetres
        }
    }

    mutating func addPartial(steps: Double, distance: Double, source: UInt32, split: Bool) {
        partialSteps += steps
        partialDistance += distance
        if split {
            bySource[source, default: (0, 0, 0, 0)].partialSteps += steps
            bySource[source, default: (0, 0, 0, 0)].partialDistance += distance
        }
    }

    /// Each source's own merged steps and distance (never a share of the total).
    func amountsBySource(_ table: SourceTable) -> [SampleSource: SourceAmount] {
        var result: [SampleSource: SourceAmount] = [:]
        for (number, sums) in bySource.sorted(by: { $0.key < $1.key }) {
            result[table.sources[Int(number)]] = SourceAmount(
                steps: Double(sums.steps) + sums.partialSteps,
                distance: Double(sums.millimetres) / 1000 + sums.partialDistance)
        }
        return result
    }
}

/// Every accepted record (tombstones and deleted ones too, for sync), sorted by start so a
/// range query touches only what can overlap it.
public struct SampleStore: Sendable {
    public private(set) var sources = SourceTable()
    private(set) var items: [CompactSample] = []
    /// Tombstone sequence -> the sequence it deletes (tombstones are rare; kept out of the items).
    private var deletions: [UInt64: UInt64] = [:]
    /// The longest live sample, so a search by start can reach samples that began before a range.
    private var longestMs: Int64 = 0

    public init(_ records: [StepRecord] = []) {
        items.reserveCapacity(records.count)
        append(records)
    }

    /// Records and tombstones held.
    public var count: Int { items.count }

    /// Steps of every live sample, all sources, unmerged.
    public var liveSteps: Int { items.reduce(0) { $0 + ($1.isLive ? Int($1.steps) : 0) } }

    public var isEmpty: Bool { items.isEmpty }

    /// Adds records at once (one re-index, not one per record); tombstones take their targets out.
    public mutating func insert(contentsOf records: [StepRecord]) {
        guard records.count > 1 else {
            if let record = records.first { insert(record) }
            return
        }
        append(records)
    }

    /// Appends records, marks what their tombstones delete, then sorts and re-indexes once.
    private mutating func append(_ records: [StepRecord]) {
        var deleted = Set<UInt64>()
        for record in records {
            items.append(CompactSample(record, source: sources.intern(record.source)))
            if record.isTombstone {
                deletions[record.sequence] = record.deletes
                deleted.insert(record.deletes)
            }
        }
        if !deleted.isEmpty {
            for index in items.indices where !items[index].isTombstone && deleted.contains(items[index].sequence) {
                items[index].bits |= CompactSample.deletedBit
            }
        }
        items.sort(by: CompactSample.order)
        refreshIndex()
    }

    /// Adds a record; a tombstone also takes its target out of the queries.
    public mutating func insert(_ record: StepRecord) {
        let item = CompactSample(record, source: sources.intern(record.source))
        if record.isTombstone {
            deletions[record.sequence] = record.deletes
            if let index = items.firstIndex(where: { $0.sequence == record.deletes && !$0.isTombstone }) {
                items[index].bits |= CompactSample.deletedBit
            }
        }
        if let last = items.last, CompactSample.order(item, last) {
            items.insert(item, at: firstIndex { !CompactSample.order($0, item) })
        } else {
            items.append(item)
        }
        refreshIndex()
    }

    /// The live (not deleted) sample with this sequence.
    public func liveRecord(sequence: UInt64) -> StepRecord? {
        items.first { $0.sequence == sequence && $0.isLive }.map(record(from:))
    }

    public func isDeleted(sequence: UInt64) -> Bool {
        items.contains { $0.sequence == sequence && $0.bits & CompactSample.deletedBit != 0 }
    }

    /// Removes records (pruning): `predicate(sequence, startMs)`.
    public mutating func removeAll(where predicate: (UInt64, Int64) -> Bool) {
        items.removeAll { item in
            guard predicate(item.sequence, item.startMs) else { return false }
            if item.isTombstone { deletions[item.sequence] = nil }
            return true
        }
        refreshIndex()
    }

    /// Records with a sequence in (anchor, below), oldest first, at most `limit`
    /// (clamped to 1...LedgerSync.maximumPageSize): one page of an anchored export.
    public func page(after anchor: UInt64, below: UInt64 = .max, limit: Int) -> SyncPage {
        let size = min(max(limit, 1), LedgerSync.maximumPageSize)
        var selected = items.filter { $0.sequence > anchor && $0.sequence < below }
        selected.sort { $0.sequence < $1.sequence }
        let records = selected.prefix(size).map(record(from:))
        return SyncPage(records: records, newAnchor: records.last?.sequence ?? anchor, more: selected.count > size)
    }

    /// Live samples that start in [from, to) and pass `filter`, by start then sequence, at most `limit`.
    public func liveRecords(startingFrom from: Double, to: Double, filter: SampleFilter, limit: Int) -> [StepRecord] {
        let fromMs = LedgerTime.milliseconds(from), toMs = LedgerTime.milliseconds(to)
        var result: [StepRecord] = []
        var index = firstIndex { $0.startMs >= fromMs }
        while index < items.count, items[index].startMs < toMs, result.count < limit {
            let item = items[index]
            index += 1
            guard item.isLive, filter.includeUserEntered || !item.isUserEntered else { continue }
            if let wanted = filter.sources, !wanted.contains(sources.sources[Int(item.source)]) { continue }
            result.append(record(from: item))
        }
        return result
    }

    /// Records with a sequence in (above, below).
    public func count(above: UInt64, below: UInt64 = .max) -> Int {
        items.reduce(0) { $0 + ($1.sequence > above && $1.sequence < below ? 1 : 0) }
    }

    /// Highest sequence below `below`, nil when none.
    public func highestSequence(below: UInt64 = .max) -> UInt64? {
        var result: UInt64?
        for item in items where item.sequence < below { result = max(result ?? 0, item.sequence) }
        return result
    }

    func record(from item: CompactSample) -> StepRecord {
        var flags: RecordFlags = []
        if item.isUserEntered { flags.insert(.userEntered) }
        if item.isTombstone { flags.insert(.tombstone) }
        return StepRecord(sequence: item.sequence, startMs: item.startMs, endMs: item.endMs, utcOffset: item.utcOffset,
                          steps: Int(item.steps), distanceMm: item.distanceMm, activity: item.activityKind,
                          source: sources.sources[Int(item.source)], flags: flags,
                          deletes: item.isTombstone ? deletions[item.sequence] ?? 0 : 0)
    }

    /// Recomputes the longest sample and which samples are alone in time. O(n), on writes only
    /// (a record per 100 steps), so queries never pay for it.
    private mutating func refreshIndex() {
        longestMs = 0
        var reach = Int64.min
        var previous = -1
        for index in items.indices {
            guard items[index].isLive else {
                items[index].bits &= ~CompactSample.aloneBit
                continue
            }
            let item = items[index]
            longestMs = max(longestMs, item.endMs - item.startMs)
            var alone = reach < item.startMs
            if previous >= 0 && item.startMs <= items[previous].endMs {
                items[previous].bits &= ~CompactSample.aloneBit
                alone = false
            }
            if alone { items[index].bits |= CompactSample.aloneBit } else { items[index].bits &= ~CompactSample.aloneBit }
            reach = max(reach, item.endMs)
            previous = index
        }
    }

    private func firstIndex(where predicate: (CompactSample) -> Bool) -> Int {
        var low = 0, high = items.count
        while low < high {
            let mid = (low + high) / 2
            if predicate(items[mid]) { high = mid } else { low = mid + 1 }
        }
        return low
    }

    /// Items that may overlap [from, to] (a superset; merging clips exactly).
    func candidates(from: Double, to: Double) -> ArraySlice<CompactSample> {
        let fromMs = LedgerTime.milliseconds(from) - longestMs - 1
        let toMs = LedgerTime.milliseconds(to) + 1
        let low = firstIndex { $0.startMs >= fromMs }
        let high = firstIndex { $0.startMs > toMs }
        return items[low..<max(low, high)]
    }

    // MARK: queries

    /// Sums merged samples into the buckets `boundaries` describes (ascending, at least two),
    /// counting only [from, to). `extra` holds samples not stored yet (the live steps).
    ///
    /// Fast path (`exact: false`): a sample alone in time that lies whole inside the range
    /// and inside one bucket adds its integer steps and millimetres directly; only the rest
    /// (overlapping sources, samples cut by a boundary) goes through the exact merge. The
    /// samples that reach the merge affect no other sample and are affected only by each
    /// other, so both paths give the same bits (tests compare them on random ledgers).
    func sums(boundaries: [Double], from: Double, to: Double, filter: SampleFilter, priority: SourcePriority,
              split: Bool, extra: [StepRecord], exact: Bool) -> (sums: [BucketSums], table: SourceTable) {
        let bucketCount = boundaries.count - 1
        var buckets = [BucketSums](repeating: BucketSums(), count: max(bucketCount, 0))
        guard bucketCount > 0, to > from else { return (buckets, sources) }
        var table = sources
        let extraItems = extra.filter { !$0.isTombstone }.map { CompactSample($0, source: table.intern($0.source)) }
        var admitted = [Bool](repeating: true, count: table.sources.count)
        for (number, source) in table.sources.enumerated() {
            if let wanted = filter.sources, !wanted.contains(source) { admitted[number] = false }
        }
        func admits(_ item: CompactSample) -> Bool {
            item.isLive && admitted[Int(item.source)] && (filter.includeUserEntered || !item.isUserEntered)
                && item.end >= from && item.start < to
        }
        var merge: [CompactSample] = []
        var cursor = 0
        for item in candidates(from: from, to: to) where admits(item) {
            if !exact && item.isAlone
                && !extraItems.contains(where: { $0.startMs <= item.endMs && $0.endMs >= item.startMs }) {
                let start = item.start, end = item.end
                if start >= from && (item.startMs == item.endMs ? start < to : end <= to) {
                    while cursor + 1 < bucketCount && boundaries[cursor + 1] <= start { cursor += 1 }
                    if boundaries[cursor] <= start && end <= boundaries[cursor + 1] {
                        buckets[cursor].addWhole(steps: Int64(item.steps), millimetres: item.distanceMm,
                                                 source: item.source, split: split)
                        continue
                    }
                }
            }
            merge.append(item)
        }
        for item in extraItems where admits(item) { merge.append(item) }
        if !extraItems.isEmpty { merge.sort(by: CompactSample.order) }

        var bucket = 0
        for piece in Self.pieces(merge, table: table, from: from, to: to, priority: priority) {
            // Pieces are sorted by start, so the bucket cursor only moves forward.
            while bucket + 1 < bucketCount && boundaries[bucket + 1] <= piece.start { bucket += 1 }
            if piece.isWhole && boundaries[bucket] <= piece.start && piece.end <= boundaries[bucket + 1] {
                buckets[bucket].addWhole(steps: piece.wholeSteps, millimetres: piece.wholeMillimetres,
                                         source: piece.source, split: split)
                continue
            }
            if piece.end <= piece.start {
                buckets[bucket].addPartial(steps: piece.steps, distance: piece.distance, source: piece.source, split: split)
                continue
            }
            var index = bucket
            let length = piece.end - piece.start
            while index < bucketCount && boundaries[index] < piece.end {
                let overlap = min(piece.end, boundaries[index + 1]) - max(piece.start, boundaries[index])
                if overlap > 0 {
                    let share = overlap / length
                    buckets[index].addPartial(steps: piece.steps * share, distance: piece.distance * share,
                                              source: piece.source, split: split)
                }
                index += 1
            }
        }
        return (buckets, table)
    }

    struct Piece {
        var start: Double
        var end: Double
        var steps: Double
        var distance: Double
        var source: UInt32
        /// The whole sample, uncut: its exact integer counts apply.
        var isWhole: Bool
        var wholeSteps: Int64
        var wholeMillimetres: Int64
    }

    /// Merges samples (sorted by start) over [from, to): each moment is counted from the
    /// highest-priority source that covers it; a lower-priority sample contributes only its
    /// uncovered part, prorated by time. Within one source, later-starting samples give way
    /// to earlier ones likewise. Instant samples (start == end) count whole when inside the
    /// range and not covered. Pieces come back sorted by start.
    static func pieces(_ samples: [CompactSample], table: SourceTable, from: Double, to: Double,
                       priority: SourcePriority) -> [Piece] {
        guard to > from, !samples.isEmpty else { return [] }
        var groupOf: [UInt32: Int] = [:]
        var groups: [(source: UInt32, records: [CompactSample])] = []
        for record in samples {
            if let index = groupOf[record.source] {
                groups[index].records.append(record)
            } else {
                groupOf[record.source] = groups.count
                groups.append((record.source, [record]))
            }
        }
        groups.sort { a, b in
            let sa = table.sources[Int(a.source)], sb = table.sources[Int(b.source)]
            return priority.rank(sa, firstSeen: a.source) < priority.rank(sb, firstSeen: b.source)
        }
        var lists: [[Piece]] = []
        // Union of time taken by higher-priority sources, sorted and disjoint.
        var covered: [(start: Double, end: Double)] = []
        for group in groups {
            let source = group.source
            var pieces: [Piece] = []
            pieces.reserveCapacity(group.records.count)
            var sourceReach = -Double.infinity
            var taken: [(start: Double, end: Double)] = []
            taken.reserveCapacity(group.records.count)
            for record in group.records {
                let start = record.start, end = record.end
                let duration = end - start
                let distance = Double(record.distanceMm) / 1000
                if duration <= 0 {
                    guard start >= from, start < to, start >= sourceReach || sourceReach == -Double.infinity,
                          !contains(covered, start) else { continue }
                    pieces.append(Piece(start: start, end: start, steps: Double(record.steps), distance: distance,
                                        source: source, isWhole: true, wholeSteps: Int64(record.steps),
                                        wholeMillimetres: record.distanceMm))
                    continue
                }
                let clipStart = max(start, from, sourceReach)
                let clipEnd = min(end, to)
                sourceReach = max(sourceReach, end)
                guard clipEnd > clipStart else { continue }
                let gaps = covered.isEmpty ? [(start: clipStart, end: clipEnd)] : uncovered(covered, clipStart, clipEnd)
                if gaps.count == 1 && gaps[0].start == start && gaps[0].end == end {
                    pieces.append(Piece(start: start, end: end, steps: Double(record.steps), distance: distance,
                                        source: source, isWhole: true, wholeSteps: Int64(record.steps),
                                        wholeMillimetres: record.distanceMm))
                } else {
                    let stepsPerSecond = Double(record.steps) / duration
                    let metresPerSecond = distance / duration
                    for gap in gaps {
                        let length = gap.end - gap.start
                        pieces.append(Piece(start: gap.start, end: gap.end, steps: stepsPerSecond * length,
                                            distance: metresPerSecond * length, source: source, isWhole: false,
                                            wholeSteps: 0, wholeMillimetres: 0))
                    }
                }
                taken.append((clipStart, clipEnd))
            }
            covered = union(covered, taken)
            lists.append(pieces)
        }
        // Each list is sorted by start; merge instead of sorting everything again.
        var merged = lists.first ?? []
        for list in lists.dropFirst() { merged = mergeSorted(merged, list) }
        return merged
    }

    static func mergeSorted(_ a: [Piece], _ b: [Piece]) -> [Piece] {
        if a.isEmpty { return b }
        if b.isEmpty { return a }
        var result: [Piece] = []
        result.reserveCapacity(a.count + b.count)
        var i = 0, j = 0
        while i < a.count && j < b.count {
            if b[j].start < a[i].start { result.append(b[j]); j += 1 } else { result.append(a[i]); i += 1 }
        }
        result.append(contentsOf: a[i...])
        result.append(contentsOf: b[j...])
        return result
    }

    static func contains(_ covered: [(start: Double, end: Double)], _ t: Double) -> Bool {
        let index = firstEndingAfter(covered, t)
        return index < covered.count && covered[index].start <= t
    }

    /// Index of the first interval whose end is >= t.
    static func firstEndingAfter(_ covered: [(start: Double, end: Double)], _ t: Double) -> Int {
        var low = 0, high = covered.count
        while low < high {
            let mid = (low + high) / 2
            if covered[mid].end < t { low = mid + 1 } else { high = mid }
        }
        return low
    }

    static func uncovered(_ covered: [(start: Double, end: Double)], _ start: Double, _ end: Double) -> [(start: Double, end: Double)] {
        var result: [(start: Double, end: Double)] = []
        var cursor = start
        var index = firstEndingAfter(covered, start)
        while index < covered.count, covered[index].start < end {
            if covered[index].start > cursor { result.append((cursor, covered[index].start)) }
            cursor = max(cursor, covered[index].end)
            index += 1
        }
        if cursor < end { result.append((cursor, end)) }
        return result
    }

    static func union(_ a: [(start: Double, end: Double)], _ b: [(start: Double, end: Double)]) -> [(start: Double, end: Double)] {
        if b.isEmpty { return a }
        var all = a + b
        all.sort { $0.start < $1.start }
        var result: [(start: Double, end: Double)] = []
        result.reserveCapacity(all.count)
        for interval in all {
            if let last = result.last, interval.start <= last.end {
                result[result.count - 1].end = max(last.end, interval.end)
            } else {
                result.append(interval)
            }
        }
        return result
    }
}

public enum SampleMerging {
    /// The merged pieces of `samples` over [from, to) (see `SampleStore.pieces`), sorted by
    /// start; tombstones and the samples they delete are left out.
    public static func pieces<S: Sequence>(_ samples: S, from: Double, to: Double, filter: SampleFilter,
                                           priority: SourcePriority) -> [MergedPiece] where S.Element == StepRecord {
        let store = SampleStore(Array(samples))
        let admitted = store.items.filter { item in
            item.isLive && (filter.includeUserEntered || !item.isUserEntered) && item.end >= from && item.start < to
                && (filter.sources?.contains(store.sources.sources[Int(item.source)]) ?? true)
        }
        return SampleStore.pieces(admitted, table: store.sources, from: from, to: to, priority: priority).map { piece in
            MergedPiece(start: piece.start, end: piece.end, steps: piece.steps, distance: piece.distance,
                        source: store.sources.sources[Int(piece.source)])
        }
    }
}
