/// A wall-clock reading in some zone: what a person in that zone sees at a UTC instant.
public struct LocalTime: Sendable, Equatable {
    public var year: Int
    public var month: Int
    public var day: Int
    public var hour: Int
    public var minute: Int
    public var second: Int
    /// Local minus UTC, seconds, at that instant.
    public var utcOffset: Int
    /// Day number (days since 1970-01-01) of the local date.
    public var dayNumber: Int { CivilCalendar.days(year: year, month: month, day: day) }

    public init(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, utcOffset: Int) {
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
        self.utcOffset = utcOffset
    }

    /// The local time at UTC instant `utc` (seconds, rounded down); nil when `utc` is no time
    /// (not finite, or beyond the ±2^52 s a zone lookup covers).
    public init?(utc: Double, zone: TimeZoneRule) {
        guard utc.isFinite, abs(utc) < Double(Int64(1) << 52) else { return nil }
        let whole = Int64(utc.rounded(.down))
        let offset = zone.offset(at: Double(whole))
        let local = whole + Int64(offset)
        let days = CivilCalendar.dayNumber(utcSeconds: local)
        let secondOfDay = Int(local - Int64(days) * 86400)
        let date = CivilCalendar.date(days: days)
        self.init(year: date.year, month: date.month, day: date.day, hour: secondOfDay / 3600,
                  minute: secondOfDay % 3600 / 60, second: secondOfDay % 60, utcOffset: offset)
    }

    /// How much of a local time to print.
    public enum Style: Sendable {
        /// "2026-05-01 08:30"
        case dateMinute
        /// "2026-05-01 08:30:15"
        case dateSecond
        /// "05-01 08:30:15"
        case monthDaySecond
        /// "08:30:15"
        case timeSecond
        /// "2026-05-01 Fri"
        case dateWeekday
        /// "2026-11-22T14:42:00Z", or "...+02:00" away from UTC.
        case iso8601
        /// "20261122T144200Z" (UTC only makes sense here: names that sort by time).
        case iso8601Basic
    }

    public func text(_ style: Style) -> String {
        let date = CivilCalendar.isoDate(days: dayNumber)
        let minutes = CivilCalendar.padded(hour, 2) + ":" + CivilCalendar.padded(minute, 2)
        let seconds = minutes + ":" + CivilCalendar.padded(second, 2)
        switch style {
        case .dateMinute: return date + " " + minutes
        case .dateSecond: return date + " " + seconds
        case .monthDaySecond: return CivilCalendar.padded(month, 2) + "-" + CivilCalendar.padded(day, 2) + " " + seconds
        case .timeSecond: return seconds
        case .dateWeekday: return date + " " + Self.weekdayNames[CivilCalendar.weekday(days: dayNumber)]
        case .iso8601: return date + "T" + seconds + offsetSuffix
        case .iso8601Basic:
            return date.filter { $0 != "-" } + "T" + seconds.filter { $0 != ":" } + offsetSuffix.filter { $0 != ":" }
        }
    }

    /// "Z" at UTC, else "+02:00" / "-05:30".
    var offsetSuffix: String {
        guard utcOffset != 0 else { return "Z" }
        let minutes = abs(utcOffset) / 60
        return (utcOffset < 0 ? "-" : "+") + CivilCalendar.padded(minutes / 60, 2) + ":" + CivilCalendar.padded(minutes % 60, 2)
    }

    static let weekdayNames = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]

    /// ISO-8601 "2026-05-01", "2026-05-01T08:30", "2026-05-01 08:30:15", with "Z", "+02:00",
    /// "+0200" or "+02" (no suffix: wall-clock time in `zone`, the instant after a spring-forward
    /// gap, the earlier of a fall-back repeat). Nil when `text` is not such a time.
    public static func parseISO8601(_ text: String, zone: TimeZoneRule) -> Double? {
        let bytes = Array(text.utf8)
        func number(_ from: Int, _ count: Int) -> Int? {
            guard from + count <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[from..<(from + count)] {
                guard byte >= 0x30 && byte <= 0x39 else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            return value
        }
        guard bytes.count >= 10, let year = number(0, 4), bytes[4] == 0x2D, let month = number(5, 2), bytes[7] == 0x2D,
              let day = number(8, 2), (1...12).contains(month),
              (1...CivilCalendar.daysInMonth(year: year, month: month)).contains(day) else { return nil }
        var hour = 0, minute = 0, second = 0
        var index = 10
        if index < bytes.count, bytes[index] == UInt8(ascii: "T") || bytes[index] == UInt8(ascii: " ") {
            guard let h = number(index + 1, 2), index + 3 < bytes.count, bytes[index + 3] == 0x3A, let m = number(index + 4, 2) else { return nil }
            hour = h
            minute = m
            index += 6
            if index < bytes.count, bytes[index] == 0x3A {
                guard let s = number(index + 1, 2) else { return nil }
                second = s
                index += 3
            }
            guard hour < 24, minute < 60, second < 61 else { return nil }
        }
        let wallClock = Double(CivilCalendar.days(year: year, month: month, day: day) * 86400 + hour * 3600 + minute * 60 + second)
        guard index < bytes.count else { return zone.utc(fromLocal: wallClock) }
        if bytes[index] == UInt8(ascii: "Z") && index + 1 == bytes.count { return wallClock }
        guard bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-"), let offsetHours = number(index + 1, 2) else { return nil }
        var offsetMinutes = 0
        if index + 3 < bytes.count {
            let colon = bytes[index + 3] == 0x3A ? 1 : 0
            guard let m = number(index + 3 + colon, 2), index + 5 + colon == bytes.count else { return nil }
            offsetMinutes = m
        } else if index + 3 != bytes.count {
            return nil
        }
        let sign: Double = bytes[index] == UInt8(ascii: "+") ? 1 : -1
        return wallClock - sign * Double(offsetHours * 3600 + offsetMinutes * 60)
    }
}
