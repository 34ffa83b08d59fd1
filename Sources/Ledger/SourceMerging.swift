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

/// Merging overlapping sources: a query over the store sums the merged pieces.
extension SampleStore {
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
