import CivilTime
import Ledger
import POSIXLayer

/// Naming and reading of the ledger directory, shared by the service (which repairs) and
/// the verifier (which only reports).
public enum LedgerFiles {
    public static let directoryName = "ledger"
    public static let fileSuffix = ".steps"
    public static let anchorFileName = "sync-anchor"

    /// One file per UTC day of the record start: "2024-06-10.steps".
    public static func fileName(day: Int) -> String { CivilCalendar.isoDate(days: day) + fileSuffix }

    public static func day(ofFileName name: String) -> Int? {
        guard name.hasSuffix(fileSuffix) else { return nil }
        return CivilCalendar.parseISODate(String(name.dropLast(fileSuffix.count)))
    }

    public static func day(of record: StepRecord) -> Int { day(ofStartMs: record.startMs) }

    public static func day(ofStartMs startMs: Int64) -> Int { CivilCalendar.dayNumber(utcSeconds: floorDiv(startMs, 1000)) }

    static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 { a >= 0 ? a / b : (a - b + 1) / b }

    public static func isDamagedCopy(_ name: String) -> Bool { name.contains(fileSuffix + ".damaged-") }

    public struct ScannedFile {
        public var day: Int
        public var name: String
        public var size: Int
        public var scan: LedgerFileScan
    }

    /// Reads and scans every day file, oldest first. Nothing is modified.
    public static func scanAll(directory: String, names: [String], fileSystem: any LedgerFileSystem)
    throws(FileSystemError) -> [ScannedFile] {
        var result: [ScannedFile] = []
        for name in names.sorted() {
            guard let day = day(ofFileName: name) else { continue }
            let bytes = try fileSystem.readFile(directory + "/" + name)
            result.append(ScannedFile(day: day, name: name, size: bytes.count, scan: LedgerFileScan(bytes: bytes)))
        }
        return result
    }

    /// "A1 <anchor> <crc32c>\n": the acknowledged sync anchor, replaced atomically.
    public static func encodeAnchor(_ anchor: UInt64) -> [UInt8] {
        let body = Array("A1 \(anchor)".utf8)
        let crc = String(CRC32C.checksum(body), radix: 16)
        return body + Array((" " + String(repeating: "0", count: 8 - crc.count) + crc + "\n").utf8)
    }

    public static func decodeAnchor(_ bytes: [UInt8]) -> UInt64? {
        guard bytes.last == 0x0A else { return nil }
        let parts = String(decoding: bytes.dropLast(), as: UTF8.self).split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "A1", let anchor = UInt64(parts[1]), let crc = UInt32(parts[2], radix: 16),
              CRC32C.checksum(Array("A1 \(anchor)".utf8)) == crc else { return nil }
        return anchor
    }

    /// The user's source priority order, one `kind:id` per line, replaced atomically.
    public static let priorityFileName = "source-priority"

    public static func encodePriority(_ order: [SampleSource]) -> [UInt8] {
        Array(order.map { "P1 \($0.kind.rawValue) \($0.id)\n" }.joined().utf8)
    }

    public static func decodePriority(_ bytes: [UInt8]) -> [SampleSource]? {
        guard bytes.isEmpty || bytes.last == 0x0A else { return nil }
        var order: [SampleSource] = []
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            let parts = line.split(separator: " ", omittingEmptySubsequences: false)
            guard parts.count == 3, parts[0] == "P1", let kind = SourceKind(rawValue: String(parts[1])),
                  SampleSource.isValidId(String(parts[2])) else { return nil }
            order.append(SampleSource(id: String(parts[2]), kind: kind))
        }
        return order
    }

    /// Sync identifiers of live samples: `Y1 <seq> <start-ms> <kind> <id> <version> <identifier>`
    /// per line, replaced atomically on change. A line whose record is missing or different
    /// (a record lost in a crash, its sequence reused) is ignored on load.
    public static let syncFileName = "sync-identifiers"

    public struct SyncEntry: Sendable, Equatable {
        public var sequence: UInt64
        public var startMs: Int64
        public var source: SampleSource
        public var sync: SampleSync
        public init(sequence: UInt64, startMs: Int64, source: SampleSource, sync: SampleSync) {
            self.sequence = sequence
            self.startMs = startMs
            self.source = source
            self.sync = sync
        }
    }

    public static func encodeSync(_ entries: [SyncEntry]) -> [UInt8] {
        Array(entries.map { e in
            "Y1 \(e.sequence) \(e.startMs) \(e.source.kind.rawValue) \(e.source.id) \(e.sync.version) \(e.sync.identifier)\n"
        }.joined().utf8)
    }

    public static func decodeSync(_ bytes: [UInt8]) -> [SyncEntry] {
        var entries: [SyncEntry] = []
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            let parts = line.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 7, parts[0] == "Y1", let sequence = UInt64(parts[1]), let startMs = Int64(parts[2]),
                  let kind = SourceKind(rawValue: parts[3]), SampleSource.isValidId(parts[4]),
                  let version = Int64(parts[5]), SampleSync.isValidIdentifier(parts[6]) else { continue }
            entries.append(SyncEntry(sequence: sequence, startMs: startMs, source: SampleSource(id: parts[4], kind: kind),
                                     sync: SampleSync(identifier: parts[6], version: version)))
        }
        return entries
    }
}
