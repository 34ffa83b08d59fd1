import StepdModel

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
}
