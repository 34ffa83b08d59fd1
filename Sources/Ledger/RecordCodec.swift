import StepdModel

/// Why a ledger line was refused. Each case names what is wrong so `stepctl ledger verify`
/// can say it.
public enum RecordDecodeError: Error, Sendable, Equatable, CustomStringConvertible {
    case tooLong(Int)
    case wrongFieldCount(Int)
    case unknownVersion(String)
    case checksumMismatch
    case badField(name: String, value: String)
    case inconsistent(String)

    public var description: String {
        switch self {
        case .tooLong(let count): return "line of \(count) bytes is longer than \(RecordCodec.maximumLineLength)"
        case .wrongFieldCount(let count): return "\(count) fields, expected \(RecordCodec.fieldCount)"
        case .unknownVersion(let tag): return "unknown record version '\(tag)'"
        case .checksumMismatch: return "checksum mismatch"
        case .badField(let name, let value): return "bad \(name) '\(value)'"
        case .inconsistent(let reason): return reason
        }
    }
}

/// The text line format, version 1 (see docs/ledger.md):
///
///     S1 <seq> <start-ms> <end-ms> <utc-offset-s> <steps> <distance-m> <activity> <kind> <source-id> <flags> <deletes> <crc32c>
///
/// One space between fields, `\n` at the end. The checksum is CRC-32C over every byte before
/// the last space, as 8 lowercase hex digits, so `awk '{print $6}'` still reads steps.
public enum RecordCodec {
    public static let versionTag = "S1"
    public static let fieldCount = 13
    public static let maximumLineLength = 256
    /// Offsets beyond ±18 h do not exist in any zone; a larger value is corruption.
    public static let maximumUTCOffset: Int32 = 18 * 3600

    /// The full line including the terminating newline.
    public static func encode(_ record: StepRecord) -> [UInt8] {
        var line = versionTag
        line += " \(record.sequence) \(record.startMs) \(record.endMs) \(record.utcOffset) \(record.steps) "
        line += formatMetres(record.distanceMm)
        line += " \(record.activity.rawValue) \(record.source.kind.rawValue) \(record.source.id) "
        line += formatFlags(record.flags)
        line += " \(record.deletes) "
        var bytes = Array(line.utf8)
        let crc = CRC32C.checksum(bytes[..<(bytes.count - 1)])
        bytes += hex8(crc)
        bytes.append(0x0A)
        return bytes
    }

    /// Decodes one line without its newline.
    public static func decode<C: RandomAccessCollection>(_ line: C) -> Result<StepRecord, RecordDecodeError>
    where C.Element == UInt8, C.Index == Int {
        guard line.count <= maximumLineLength else { return .failure(.tooLong(line.count)) }
        var fields: [ArraySlice<UInt8>] = []
        fields.reserveCapacity(fieldCount)
        let bytes = Array(line)
        var fieldStart = 0
        for index in 0...bytes.count where index == bytes.count || bytes[index] == 0x20 {
            fields.append(bytes[fieldStart..<index])
            fieldStart = index + 1
        }
        if let first = fields.first, String(decoding: first, as: UTF8.self) != versionTag {
            return .failure(.unknownVersion(String(decoding: first.prefix(8), as: UTF8.self)))
        }
        guard fields.count == fieldCount else { return .failure(.wrongFieldCount(fields.count)) }
        let checksumField = fields[12]
        guard checksumField.count == 8, let stored = parseHex(checksumField) else {
            return .failure(.badField(name: "checksum", value: text(checksumField)))
        }
        // Everything before the last space is covered by the checksum.
        let covered = bytes[..<(checksumField.startIndex - 1)]
        guard CRC32C.checksum(covered) == stored else { return .failure(.checksumMismatch) }

        guard let sequence = parseUnsigned(fields[1]), sequence > 0 else { return bad("sequence", fields[1]) }
        let timeRange = -LedgerTime.maximumMilliseconds...LedgerTime.maximumMilliseconds
        guard let startMs = parseSigned(fields[2]), timeRange.contains(startMs) else { return bad("start", fields[2]) }
        guard let endMs = parseSigned(fields[3]), timeRange.contains(endMs) else { return bad("end", fields[3]) }
        guard let offset = parseSigned(fields[4]), abs(offset) <= Int64(maximumUTCOffset) else {
            return bad("utc offset", fields[4])
        }
        guard let steps = parseUnsigned(fields[5]), steps <= UInt64(Int32.max) else { return bad("steps", fields[5]) }
        guard let distanceMm = parseMetres(fields[6]) else { return bad("distance", fields[6]) }
        guard let activity = ActivityKind(rawValue: text(fields[7])) else { return bad("activity", fields[7]) }
        guard let kind = SourceKind(rawValue: text(fields[8])) else { return bad("source kind", fields[8]) }
        let sourceId = text(fields[9])
        guard SampleSource.isValidId(sourceId) else { return bad("source id", fields[9]) }
        guard let flags = parseFlags(fields[10]) else { return bad("flags", fields[10]) }
        guard let deletes = parseUnsigned(fields[11]) else { return bad("deletes", fields[11]) }

        guard endMs >= startMs else { return .failure(.inconsistent("end before start")) }
        if flags.contains(.tombstone) {
            guard deletes > 0, deletes < sequence else {
                return .failure(.inconsistent("tombstone must delete an earlier sequence"))
            }
        } else if deletes != 0 {
            return .failure(.inconsistent("only a tombstone may name a deleted sequence"))
        }
        return .success(StepRecord(sequence: sequence, startMs: startMs, endMs: endMs, utcOffset: Int32(offset),
                                   steps: Int(steps), distanceMm: distanceMm, activity: activity,
                                   source: SampleSource(id: sourceId, kind: kind), flags: flags, deletes: deletes))
    }

    private static func bad(_ name: String, _ field: ArraySlice<UInt8>) -> Result<StepRecord, RecordDecodeError> {
        .failure(.badField(name: name, value: text(field)))
    }

    private static func text(_ field: ArraySlice<UInt8>) -> String { String(decoding: field.prefix(40), as: UTF8.self) }

    static func formatFlags(_ flags: RecordFlags) -> String {
        var text = ""
        if flags.contains(.userEntered) { text += "u" }
        if flags.contains(.tombstone) { text += "t" }
        return text.isEmpty ? "-" : text
    }

    static func parseFlags(_ field: ArraySlice<UInt8>) -> RecordFlags? {
        switch text(field) {
        case "-": return []
        case "u": return .userEntered
        case "t": return .tombstone
        case "ut": return [.userEntered, .tombstone]
        default: return nil
        }
    }

    static func formatMetres(_ millimetres: Int64) -> String { DecimalText.fixed(units: millimetres, decimals: 3) }

    /// Exactly `<digits>.<3 digits>`; anything else is not a value this encoder writes.
    static func parseMetres(_ field: ArraySlice<UInt8>) -> Int64? {
        guard let dot = field.firstIndex(of: 0x2E), field.endIndex - dot == 4 else { return nil }
        guard let whole = parseUnsigned(field[field.startIndex..<dot]), whole < 1_000_000_000_000 else { return nil }
        var fraction: Int64 = 0
        for byte in field[(dot + 1)...] {
            guard byte >= 0x30, byte <= 0x39 else { return nil }
            fraction = fraction * 10 + Int64(byte - 0x30)
        }
        return Int64(whole) * 1000 + fraction
    }

    static func parseUnsigned(_ field: ArraySlice<UInt8>) -> UInt64? {
        guard !field.isEmpty, field.count <= 19 else { return nil }
        // No leading zeros: one spelling per value keeps the format canonical.
        if field.count > 1, field.first == 0x30 { return nil }
        var value: UInt64 = 0
        for byte in field {
            guard byte >= 0x30, byte <= 0x39 else { return nil }
            value = value * 10 + UInt64(byte - 0x30)
        }
        return value
    }

    static func parseSigned(_ field: ArraySlice<UInt8>) -> Int64? {
        if field.first == 0x2D {
            guard let magnitude = parseUnsigned(field.dropFirst()), magnitude > 0, magnitude <= UInt64(Int64.max) else {
                return nil
            }
            return -Int64(magnitude)
        }
        guard let value = parseUnsigned(field), value <= UInt64(Int64.max) else { return nil }
        return Int64(value)
    }

    static func parseHex(_ field: ArraySlice<UInt8>) -> UInt32? {
        var value: UInt32 = 0
        for byte in field {
            let digit: UInt8
            switch byte {
            case 0x30...0x39: digit = byte - 0x30
            case 0x61...0x66: digit = byte - 0x61 + 10
            default: return nil
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    static func hex8(_ value: UInt32) -> [UInt8] {
        let digits = Array("0123456789abcdef".utf8)
        return (0..<8).reversed().map { shift in digits[Int((value >> (UInt32(shift) * 4)) & 0xF)] }
    }
}
