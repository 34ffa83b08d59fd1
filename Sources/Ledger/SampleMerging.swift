/// Which samples a query counts.
public struct SampleFilter: Sendable, Equatable {
    /// HealthKit leaves user-entered samples out of totals unless asked; so does this.
    public var includeUserEntered: Bool
    /// Only these source ids (nil: every source).
    public var sourceIds: Set<String>?

    public init(includeUserEntered: Bool = false, sourceIds: Set<String>? = nil) {
        self.includeUserEntered = includeUserEntered
        self.sourceIds = sourceIds
    }

    public func admits(_ record: StepRecord) -> Bool {
        if record.isTombstone { return false }
        if record.isUserEntered && !includeUserEntered { return false }
        if let sourceIds, !sourceIds.contains(record.source.id) { return false }
        return true
    }
}

/// Which source wins where samples overlap in time. Ids listed first win, in list order;
/// unlisted sources follow by kind (this device's detector, other devices, apps, manual).
public struct SourcePriority: Sendable, Equatable {
    public var preferredIds: [String]

    public init(preferredIds: [String] = []) { self.preferredIds = preferredIds }

    /// Smaller sorts first (wins).
    public func rank(_ source: SampleSource) -> (Int, Int, String) {
        if let index = preferredIds.firstIndex(of: source.id) { return (0, index, source.id) }
        return (1, source.kind.defaultRank, source.id)
    }
}

/// A piece of a sample that survived merging: the part of one sample's time no higher-priority
/// sample covers, with steps and distance prorated by time.
public struct MergedPiece: Sendable, Equatable {
    public var start: Double
    public var end: Double
    public var steps: Double
    public var distance: Double
    public var sourceId: String
}

/// Samples kept sorted by start so a range query touches only what can overlap it.
public struct SampleIndex: Sendable {
    public private(set) var samples: [StepRecord] = []
    /// The longest sample, so a search by start can reach samples that began before the range.
    public private(set) var longestMs: Int64 = 0

    public init(_ records: [StepRecord] = []) {
        samples = records.filter { !$0.isTombstone }.sorted(by: Self.order)
        longestMs = samples.reduce(0) { max($0, $1.endMs - $1.startMs) }
    }

    static func order(_ a: StepRecord, _ b: StepRecord) -> Bool { (a.startMs, a.sequence) < (b.startMs, b.sequence) }

    public mutating func insert(_ record: StepRecord) {
        guard !record.isTombstone else { return }
        let index = firstIndex { !Self.order($0, record) }
        samples.insert(record, at: index)
        longestMs = max(longestMs, record.endMs - record.startMs)
    }

    @discardableResult
    public mutating func remove(sequence: UInt64) -> StepRecord? {
        guard let index = samples.firstIndex(where: { $0.sequence == sequence }) else { return nil }
        return samples.remove(at: index)
    }

    public mutating func removeAll(where predicate: (StepRecord) -> Bool) { samples.removeAll(where: predicate) }

    /// Samples that may overlap [from, to] (a superset; merging clips exactly).
    public func candidates(from: Double, to: Double) -> ArraySlice<StepRecord> {
        let fromMs = LedgerTime.milliseconds(from) - longestMs - 1
        let toMs = LedgerTime.milliseconds(to) + 1
        let low = firstIndex { $0.startMs >= fromMs }
        let high = firstIndex { $0.startMs > toMs }
        return samples[low..<max(low, high)]
    }

    private func firstIndex(where predicate: (StepRecord) -> Bool) -> Int {
        var low = 0, high = samples.count
        while low < high {
            let mid = (low + high) / 2
            if predicate(samples[mid]) { high = mid } else { low = mid + 1 }
        }
        return low
    }
}

public enum SampleMerging {
    /// Merges samples over [from, to): each moment is counted from the highest-priority source
    /// that covers it; a lower-priority sample contributes only its uncovered part, prorated by
    /// time. Within one source, later-starting samples give way to earlier ones likewise.
    /// Instant samples (start == end) count whole when inside the range and not covered.
    /// Pieces come back sorted by start.
    public static func pieces<S: Sequence>(_ samples: S, from: Double, to: Double, filter: SampleFilter,
                                           priority: SourcePriority) -> [MergedPiece] where S.Element == StepRecord {
        guard to > from else { return [] }
        // Group by source; samples arrive sorted by start and from few sources, so remember
        // the last group instead of hashing every record.
        var groups: [(source: SampleSource, records: [StepRecord])] = []
        var last = -1
        for record in samples where filter.admits(record) && record.end >= from && record.start < to {
            if last < 0 || groups[last].source != record.source {
                last = groups.firstIndex { $0.source == record.source } ?? -1
                if last < 0 {
                    groups.append((record.source, []))
                    last = groups.count - 1
                }
            }
            groups[last].records.append(record)
        }
        groups.sort { priority.rank($0.source) < priority.rank($1.source) }
        var lists: [[MergedPiece]] = []
        // Union of time taken by higher-priority sources, sorted and disjoint.
        var covered: [(start: Double, end: Double)] = []
        for group in groups {
            let source = group.source
            var sorted = group.records
            if !isSorted(sorted) { sorted.sort(by: SampleIndex.order) }
            var pieces: [MergedPiece] = []
            pieces.reserveCapacity(sorted.count)
            var sourceReach = -Double.infinity
            var taken: [(start: Double, end: Double)] = []
            taken.reserveCapacity(sorted.count)
            for record in sorted {
                let start = record.start, end = record.end
                let duration = end - start
                if duration <= 0 {
                    guard start >= from, start < to, start >= sourceReach || sourceReach == -Double.infinity,
                          !contains(covered, start) else { continue }
                    pieces.append(MergedPiece(start: start, end: start, steps: Double(record.steps),
                                              distance: record.distance, sourceId: source.id))
                    continue
                }
                let clipStart = max(start, from, sourceReach)
                let clipEnd = min(end, to)
                sourceReach = max(sourceReach, end)
                guard clipEnd > clipStart else { continue }
                let stepsPerSecond = Double(record.steps) / duration
                let metresPerSecond = record.distance / duration
                if covered.isEmpty {
                    let length = clipEnd - clipStart
                    pieces.append(MergedPiece(start: clipStart, end: clipEnd, steps: stepsPerSecond * length,
                                              distance: metresPerSecond * length, sourceId: source.id))
                } else {
                    for gap in uncovered(covered, clipStart, clipEnd) {
                        let length = gap.end - gap.start
                        pieces.append(MergedPiece(start: gap.start, end: gap.end, steps: stepsPerSecond * length,
                                                  distance: metresPerSecond * length, sourceId: source.id))
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

    static func isSorted(_ records: [StepRecord]) -> Bool {
        var index = 1
        while index < records.count {
            if SampleIndex.order(records[index], records[index - 1]) { return false }
            index += 1
        }
        return true
    }

    static func mergeSorted(_ a: [MergedPiece], _ b: [MergedPiece]) -> [MergedPiece] {
        if a.isEmpty { return b }
        if b.isEmpty { return a }
        var result: [MergedPiece] = []
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
