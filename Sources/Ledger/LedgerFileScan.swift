/// A record found in a file with where its line lies, so recovery can cut at a record boundary.
public struct ScannedRecord: Sendable, Equatable {
    public var record: StepRecord
    /// Byte range of the line including its newline.
    public var byteRange: Range<Int>
}

/// A line that did not decode, with where and why.
public struct ScanProblem: Sendable, Equatable {
    public var offset: Int
    public var length: Int
    public var reason: String
}

/// What one pass over a ledger file's bytes found.
///
/// Recovery rules: a record counts only when its whole line, newline included, is present
/// and its checksum matches. Bad bytes after the last good record are a torn tail (an
/// interrupted append) and are cut. Bad lines followed by a good record mean the file was
/// damaged some other way: the file is kept aside and the good records are carried over.
public struct LedgerFileScan: Sendable {
    public var records: [ScannedRecord] = []
    /// Offset just past the last good record: the length the file is cut back to.
    public var validLength = 0
    /// Bytes after `validLength`; 0 when the file ends cleanly.
    public var tornTailBytes = 0
    /// Bad lines with good records after them.
    public var damagedLines: [ScanProblem] = []
    /// Bad lines in the torn tail (for reports).
    public var tailProblems: [ScanProblem] = []

    public var isDamaged: Bool { !damagedLines.isEmpty }
    public var hasTornTail: Bool { tornTailBytes > 0 }

    public init(bytes: [UInt8]) {
        var pendingBad: [ScanProblem] = []
        var lineStart = 0
        var index = 0
        let count = bytes.count
        while lineStart < count {
            // Find the end of this line; lines longer than the limit are bad without decoding.
            index = lineStart
            while index < count && bytes[index] != 0x0A { index += 1 }
            if index == count {
                pendingBad.append(ScanProblem(offset: lineStart, length: count - lineStart,
                                              reason: "incomplete last line (no newline)"))
                break
            }
            switch RecordCodec.decode(bytes[lineStart..<index]) {
            case .success(let record):
                damagedLines += pendingBad
                pendingBad.removeAll()
                records.append(ScannedRecord(record: record, byteRange: lineStart..<(index + 1)))
                validLength = index + 1
            case .failure(let error):
                // A damaged newline glues a bad line to a good record; look for a record start
                // inside the line so the good record behind it is still found.
                if let (start, record) = Self.recordInside(bytes, lineStart + 1, index) {
                    pendingBad.append(ScanProblem(offset: lineStart, length: start - lineStart, reason: error.description))
                    damagedLines += pendingBad
                    pendingBad.removeAll()
                    records.append(ScannedRecord(record: record, byteRange: start..<(index + 1)))
                    validLength = index + 1
                } else {
                    pendingBad.append(ScanProblem(offset: lineStart, length: index + 1 - lineStart, reason: error.description))
                }
            }
            lineStart = index + 1
        }
        tailProblems = pendingBad
        tornTailBytes = count - validLength
    }

    private static func recordInside(_ bytes: [UInt8], _ from: Int, _ end: Int) -> (Int, StepRecord)? {
        let tag = Array(RecordCodec.versionTag.utf8) + [0x20]
        var start = from
        while start + tag.count <= end {
            if bytes[start] == tag[0] && Array(bytes[start..<(start + tag.count)]) == tag,
               case .success(let record) = RecordCodec.decode(bytes[start..<end]) {
                return (start, record)
            }
            start += 1
        }
        return nil
    }
}

/// Cross-record rules that no single line can check: every sequence number at most once, and
/// no two records of the same detector source covering the same time (the detector counts
/// each moment once, so an overlap can only be a replayed or duplicated write).
public enum LedgerIntegrity {
    public struct Outcome: Sendable {
        /// Accepted records in the order they were given.
        public var accepted: [StepRecord]
        /// Refused records (duplicate sequence or overlapping detector time).
        public var duplicates: [StepRecord]
    }

    /// `records` in file order (files by day, lines in order). The first occurrence of a
    /// sequence wins; of two overlapping detector records the one written later (higher
    /// sequence) is refused.
    public static func check(_ records: [StepRecord]) -> Outcome {
        var seen = Set<UInt64>()
        seen.reserveCapacity(records.count)
        var firstPass: [StepRecord] = []
        firstPass.reserveCapacity(records.count)
        var duplicates: [StepRecord] = []
        for record in records {
            if seen.insert(record.sequence).inserted {
                firstPass.append(record)
            } else {
                duplicates.append(record)
            }
        }
        // Detector overlaps, per source id, in time order.
        var bySource: [String: [StepRecord]] = [:]
        for record in firstPass where record.source.kind == .detector && !record.isTombstone {
            bySource[record.source.id, default: []].append(record)
        }
        var refused = Set<UInt64>()
        for (_, list) in bySource {
            let sorted = list.sorted { ($0.startMs, $0.sequence) < ($1.startMs, $1.sequence) }
            var keeper: StepRecord?
            for record in sorted {
                if let previous = keeper, overlaps(previous, record) {
                    if record.sequence > previous.sequence {
                        refused.insert(record.sequence)
                        continue
                    }
                    refused.insert(previous.sequence)
                }
                if let previous = keeper, !refused.contains(previous.sequence), previous.endMs > record.endMs {
                    continue  // keep the longer-reaching record as the comparison point
                }
                keeper = record
            }
        }
        if refused.isEmpty { return Outcome(accepted: firstPass, duplicates: duplicates) }
        var accepted: [StepRecord] = []
        accepted.reserveCapacity(firstPass.count)
        for record in firstPass {
            if refused.contains(record.sequence) { duplicates.append(record) } else { accepted.append(record) }
        }
        return Outcome(accepted: accepted, duplicates: duplicates)
    }

    /// Records overlap when they share a stretch of time; touching records and instants do not
    /// (several one-step records may legitimately sit on the same millisecond).
    public static func overlaps(_ a: StepRecord, _ b: StepRecord) -> Bool {
        max(a.startMs, b.startMs) < min(a.endMs, b.endMs)
    }
}
