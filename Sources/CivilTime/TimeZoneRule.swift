/// Why a time zone could not be read.
public enum TimeZoneError: Error, Sendable, Equatable, CustomStringConvertible {
    case notTZif
    case truncated(String)
    case invalid(String)
    case badPOSIXRule(String)
    case badOffset(String)

    public var description: String {
        switch self {
        case .notTZif: return "not a TZif file (missing 'TZif' magic)"
        case .truncated(let part): return "TZif data ends inside \(part)"
        case .invalid(let reason): return "invalid TZif data: \(reason)"
        case .badPOSIXRule(let rule): return "cannot read POSIX TZ rule '\(rule)'"
        case .badOffset(let text): return "'\(text)' is not a UTC offset; use 'UTC', 'Z', '+02:00', '-0530' or a zone name"
        }
    }
}

/// The local UTC offset at any instant: a fixed offset, or a zone read from TZif bytes (the
/// files under /usr/share/zoneinfo), including the POSIX rule in the v2+ footer that covers
/// instants after the last listed transition.
public enum TimeZoneRule: Sendable, Equatable {
    case fixed(seconds: Int)
    case zone(TZifZone)

    public static let utc = TimeZoneRule.fixed(seconds: 0)

    /// Local time minus UTC, seconds, at UTC instant `utc`.
    public func offset(at utc: Double) -> Int {
        switch self {
        case .fixed(let seconds): return seconds
        case .zone(let zone): return zone.offset(at: Self.wholeSeconds(utc))
        }
    }

    /// Whole seconds for a zone lookup. Int64(Double) traps on NaN, infinities and huge values;
    /// beyond ±2^52 s no calendar question makes sense, so those are capped (NaN reads as 0).
    static func wholeSeconds(_ utc: Double) -> Int64 {
        guard !utc.isNaN else { return 0 }
        let limit = Double(Int64(1) << 52)
        return Int64(min(max(utc.rounded(.down), -limit), limit))
    }

    /// The UTC instant at which local wall-clock time reads `local` (seconds since 1970 in
    /// local time). A time a spring-forward skips is read with the offset before the change, as
    /// mktime does (02:30 in a gap from 02:00 to 03:00 is the instant the clocks read 03:30); in
    /// a fall-back repeat the earlier instant.
    public func utc(fromLocal local: Double) -> Double {
        // The offsets in force a day either side cover both sides of any one transition.
        let offsets = Set([offset(at: local - 86400), offset(at: local), offset(at: local + 86400)])
        let candidates = offsets.map { local - Double($0) }
        if let earliest = offsets.filter({ offset(at: local - Double($0)) == $0 }).map({ local - Double($0) }).min() {
            return earliest
        }
        // In a gap no offset reads `local`; the later candidate (the offset before the change) lands after the gap.
        return candidates.max() ?? local
    }

    /// Start of the local day containing `utc`, as a UTC instant.
    public func startOfLocalDay(containing utc: Double) -> Double {
        let local = utc + Double(offset(at: utc))
        let midnight = (local / 86400).rounded(.down) * 86400
        return self.utc(fromLocal: midnight)
    }

    /// "UTC", "Z", "+02:00", "-05:30", "+0530", "+2".
    public static func parseFixedOffset(_ text: String) throws(TimeZoneError) -> TimeZoneRule {
        if text == "UTC" || text == "Z" || text == "GMT" { return .utc }
        let bytes = Array(text.utf8)
        guard let sign = bytes.first, sign == 0x2B || sign == 0x2D else { throw .badOffset(text) }
        let digits = bytes.dropFirst().filter { $0 != 0x3A }
        guard !digits.isEmpty, digits.count <= 4, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
              bytes.dropFirst().filter({ $0 == 0x3A }).count <= 1 else { throw .badOffset(text) }
        let values = digits.map { Int($0 - 0x30) }
        let hours: Int
        let minutes: Int
        switch values.count {
        case 1: hours = values[0]; minutes = 0
        case 2: hours = values[0] * 10 + values[1]; minutes = 0
        case 4: hours = values[0] * 10 + values[1]; minutes = values[2] * 10 + values[3]
        default: throw .badOffset(text)
        }
        guard hours <= 18, minutes < 60 else { throw .badOffset(text) }
        let seconds = hours * 3600 + minutes * 60
        return .fixed(seconds: sign == 0x2D ? -seconds : seconds)
    }
}

/// A zone parsed from TZif (RFC 8536) bytes.
public struct TZifZone: Sendable, Equatable {
    public struct LocalType: Sendable, Equatable {
        public var utcOffset: Int
        public var isDST: Bool
    }

    public var transitions: [Int64]
    public var typeIndices: [UInt8]
    public var types: [LocalType]
    public var footer: POSIXTimeZone?

    /// A zone given by a POSIX TZ string alone (`TZ=CET-1CEST,M3.5.0,M10.5.0/3`): the rule in force
    /// at every instant, as a zone file whose only transition is at the start of time.
    public init(rule: POSIXTimeZone) {
        transitions = [Int64.min]
        typeIndices = [0]
        types = [LocalType(utcOffset: rule.standardOffset, isDST: false)]
        footer = rule
    }

    public init(bytes: [UInt8]) throws(TimeZoneError) {
        var reader = ByteReader(bytes: bytes)
        let header = try Self.readHeader(&reader)
        if header.version >= 2 {
            // Skip the v1 block; the v2 block repeats it with 64-bit times.
            try reader.skip(header.counts.v1DataLength, "version 1 data")
            let header2 = try Self.readHeader(&reader)
            try self.init(block: &reader, counts: header2.counts, timeSize: 8)
            footer = try Self.readFooter(&reader)
        } else {
            try self.init(block: &reader, counts: header.counts, timeSize: 4)
            footer = nil
        }
    }

    private init(block reader: inout ByteReader, counts: Counts, timeSize: Int) throws(TimeZoneError) {
        var transitions: [Int64] = []
        transitions.reserveCapacity(counts.time)
        for _ in 0..<counts.time {
            transitions.append(timeSize == 8 ? try reader.int64("transition times") : Int64(try reader.int32("transition times")))
        }
        var indices: [UInt8] = []
        for _ in 0..<counts.time { indices.append(try reader.uint8("transition types")) }
        var types: [LocalType] = []
        for _ in 0..<counts.type {
            let offset = Int(try reader.int32("local time types"))
            let dst = try reader.uint8("local time types")
            _ = try reader.uint8("local time types")
            guard abs(offset) <= 26 * 3600 else { throw .invalid("UTC offset \(offset) s") }
            types.append(LocalType(utcOffset: offset, isDST: dst != 0))
        }
        guard !types.isEmpty else { throw .invalid("no local time types") }
        guard indices.allSatisfy({ Int($0) < types.count }) else { throw .invalid("transition type out of range") }
        for index in transitions.indices.dropFirst() where transitions[index] <= transitions[index - 1] {
            throw .invalid("transition times not ascending")
        }
        try reader.skip(counts.char + counts.leap * (timeSize + 4) + counts.isStd + counts.isUT, "trailing tables")
        self.transitions = transitions
        self.typeIndices = indices
        self.types = types
        self.footer = nil
    }

    struct Counts {
        var isUT = 0, isStd = 0, leap = 0, time = 0, type = 0, char = 0
        var v1DataLength: Int { time * 5 + type * 6 + char + leap * 8 + isStd + isUT }
    }

    private static func readHeader(_ reader: inout ByteReader) throws(TimeZoneError) -> (version: Int, counts: Counts) {
        guard reader.remaining >= 44 else { throw reader.remaining >= 4 ? .truncated("header") : .notTZif }
        let magic = try reader.take(4, "header")
        guard Array(magic) == Array("TZif".utf8) else { throw .notTZif }
        let versionByte = try reader.uint8("header")
        let version: Int
        switch versionByte {
        case 0: version = 1
        case 0x32...0x39: version = Int(versionByte - 0x30)
        default: throw .invalid("version byte \(versionByte)")
        }
        try reader.skip(15, "header")
        var counts = Counts()
        var values: [Int] = []
        for _ in 0..<6 {
            let value = try reader.int32("header")
            guard value >= 0, value < 1_000_000 else { throw .invalid("count \(value)") }
            values.append(Int(value))
        }
        counts.isUT = values[0]; counts.isStd = values[1]; counts.leap = values[2]
        counts.time = values[3]; counts.type = values[4]; counts.char = values[5]
        return (version, counts)
    }

    private static func readFooter(_ reader: inout ByteReader) throws(TimeZoneError) -> POSIXTimeZone? {
        guard reader.remaining > 0 else { return nil }
        guard try reader.uint8("footer") == 0x0A else { throw .invalid("footer does not start with a newline") }
        var text: [UInt8] = []
        while reader.remaining > 0 {
            let byte = try reader.uint8("footer")
            if byte == 0x0A { break }
            text.append(byte)
        }
        if text.isEmpty { return nil }
        return try POSIXTimeZone(String(decoding: text, as: UTF8.self))
    }

    public func offset(at utc: Int64) -> Int {
        guard let first = transitions.first, utc >= first else {
            // Before the first transition: the first non-DST type, as RFC 8536 recommends.
            return (types.first { !$0.isDST } ?? types[0]).utcOffset
        }
        if let last = transitions.last, utc >= last, let footer {
            return footer.offset(at: utc)
        }
        var low = 0, high = transitions.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if transitions[mid] <= utc { low = mid } else { high = mid - 1 }
        }
        return types[Int(typeIndices[low])].utcOffset
    }
}

/// A POSIX TZ string such as `CET-1CEST,M3.5.0,M10.5.0/3` (the TZif footer).
public struct POSIXTimeZone: Sendable, Equatable {
    enum DateRule: Sendable, Equatable {
        case julianNoLeap(Int)      // Jn, 1...365, Feb 29 never counted
        case zeroBased(Int)         // n, 0...365
        case monthWeekDay(Int, Int, Int)
    }

    /// Seconds east of UTC (local minus UTC), the opposite sign of the string.
    public var standardOffset: Int
    public var daylightOffset: Int?
    var start: (rule: DateRule, time: Int)?
    var end: (rule: DateRule, time: Int)?

    public static func == (a: POSIXTimeZone, b: POSIXTimeZone) -> Bool {
        a.standardOffset == b.standardOffset && a.daylightOffset == b.daylightOffset
            && a.start?.rule == b.start?.rule && a.start?.time == b.start?.time
            && a.end?.rule == b.end?.rule && a.end?.time == b.end?.time
    }

    public init(_ text: String) throws(TimeZoneError) {
        var scanner = RuleScanner(bytes: Array(text.utf8))
        guard scanner.name(), let std = scanner.offset() else { throw .badPOSIXRule(text) }
        standardOffset = -std
        if scanner.atEnd {
            daylightOffset = nil
            return
        }
        guard scanner.name() else { throw .badPOSIXRule(text) }
        if let dst = scanner.offset() { daylightOffset = -dst } else { daylightOffset = standardOffset + 3600 }
        guard scanner.consume(0x2C), let startRule = scanner.dateRule() else { throw .badPOSIXRule(text) }
        let startTime = scanner.consume(0x2F) ? scanner.offset() : 7200
        guard let startTime, scanner.consume(0x2C), let endRule = scanner.dateRule() else { throw .badPOSIXRule(text) }
        let endTime = scanner.consume(0x2F) ? scanner.offset() : 7200
        guard let endTime, scanner.atEnd else { throw .badPOSIXRule(text) }
        start = (startRule, startTime)
        end = (endRule, endTime)
    }

    public func offset(at utc: Int64) -> Int {
        guard let daylightOffset, let start, let end else { return standardOffset }
        let localDay = CivilCalendar.dayNumber(utcSeconds: utc + Int64(standardOffset))
        let year = CivilCalendar.date(days: localDay).year
        let startUTC = Int64(Self.day(start.rule, year: year) * 86400 + start.time - standardOffset)
        let endUTC = Int64(Self.day(end.rule, year: year) * 86400 + end.time - daylightOffset)
        let inDST = startUTC < endUTC ? (utc >= startUTC && utc < endUTC) : !(utc >= endUTC && utc < startUTC)
        return inDST ? daylightOffset : standardOffset
    }

    static func day(_ rule: DateRule, year: Int) -> Int {
        let january1 = CivilCalendar.days(year: year, month: 1, day: 1)
        switch rule {
        case .julianNoLeap(let n):
            return january1 + n - 1 + (CivilCalendar.isLeap(year) && n >= 60 ? 1 : 0)
        case .zeroBased(let n):
            return january1 + n
        case .monthWeekDay(let month, let week, let weekday):
            let first = CivilCalendar.days(year: year, month: month, day: 1)
            var day = first + (weekday - CivilCalendar.weekday(days: first) + 7) % 7 + (week - 1) * 7
            let last = first + CivilCalendar.daysInMonth(year: year, month: month) - 1
            while day > last { day -= 7 }
            return day
        }
    }
}

private struct RuleScanner {
    let bytes: [UInt8]
    var index = 0

    var atEnd: Bool { index >= bytes.count }

    mutating func consume(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    /// `<...>` quoted or three or more letters.
    mutating func name() -> Bool {
        if consume(0x3C) {
            let begin = index
            while index < bytes.count, bytes[index] != 0x3E { index += 1 }
            guard index < bytes.count, index - begin >= 1 else { return false }
            index += 1
            return true
        }
        let begin = index
        while index < bytes.count, (bytes[index] | 0x20) >= 0x61, (bytes[index] | 0x20) <= 0x7A { index += 1 }
        return index - begin >= 3
    }

    mutating func number() -> Int? {
        let begin = index
        var value = 0
        while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39, index - begin < 4 {
            value = value * 10 + Int(bytes[index] - 0x30)
            index += 1
        }
        return index > begin ? value : nil
    }

    /// `[+-]hh[:mm[:ss]]` in seconds as written (POSIX sign: west positive).
    mutating func offset() -> Int? {
        let save = index
        var sign = 1
        if consume(0x2D) { sign = -1 } else { _ = consume(0x2B) }
        guard let hours = number(), hours <= 167 else { index = save; return nil }
        var seconds = hours * 3600
        if consume(0x3A) {
            guard let minutes = number(), minutes < 60 else { index = save; return nil }
            seconds += minutes * 60
            if consume(0x3A) {
                guard let secs = number(), secs < 60 else { index = save; return nil }
                seconds += secs
            }
        }
        return sign * seconds
    }

    mutating func dateRule() -> POSIXTimeZone.DateRule? {
        if consume(0x4A) {
            guard let n = number(), (1...365).contains(n) else { return nil }
            return .julianNoLeap(n)
        }
        if consume(0x4D) {
            guard let month = number(), (1...12).contains(month), consume(0x2E),
                  let week = number(), (1...5).contains(week), consume(0x2E),
                  let weekday = number(), (0...6).contains(weekday) else { return nil }
            return .monthWeekDay(month, week, weekday)
        }
        guard let n = number(), (0...365).contains(n) else { return nil }
        return .zeroBased(n)
    }
}

private struct ByteReader {
    let bytes: [UInt8]
    var index = 0

    var remaining: Int { bytes.count - index }

    mutating func take(_ count: Int, _ part: String) throws(TimeZoneError) -> ArraySlice<UInt8> {
        guard count >= 0, remaining >= count else { throw .truncated(part) }
        defer { index += count }
        return bytes[index..<(index + count)]
    }

    mutating func skip(_ count: Int, _ part: String) throws(TimeZoneError) { _ = try take(count, part) }

    mutating func uint8(_ part: String) throws(TimeZoneError) -> UInt8 { try take(1, part).first ?? 0 }

    mutating func int32(_ part: String) throws(TimeZoneError) -> Int32 {
        let slice = try take(4, part)
        return Int32(bitPattern: slice.reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
    }

    mutating func int64(_ part: String) throws(TimeZoneError) -> Int64 {
        let slice = try take(8, part)
        return Int64(bitPattern: slice.reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
    }
}
