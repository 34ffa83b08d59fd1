import Glibc
import POSIXLayer
import StepJSON
import StepProtocol

/// Time arguments and table output without Foundation.
enum TimeText {
    static func now() -> Double { SystemClocks.wall() }

    /// Uses `name` for local dates and times in this process (`--tz`).
    static func useTimeZone(_ name: String) throws {
        guard !name.isEmpty, !name.contains(".."), !name.hasPrefix("/") else { throw CtlFailure("--tz must be a zone name such as Europe/Berlin") }
        let known = access("/usr/share/zoneinfo/" + name, R_OK) == 0 || name == "UTC"
        guard known else { throw CtlFailure("unknown time zone \"\(name)\" (no /usr/share/zoneinfo/\(name)); try e.g. Europe/Berlin or UTC") }
        setenv("TZ", name, 1)
        tzset()
    }

    /// Parses "7d", "12h", "30m", "90s" (a plain number is seconds).
    static func duration(_ text: String) -> Double? {
        guard let last = text.last else { return nil }
        let unit: Double
        var digits = Substring(text)
        switch last {
        case "s": unit = 1; digits = digits.dropLast()
        case "m": unit = 60; digits = digits.dropLast()
        case "h": unit = 3600; digits = digits.dropLast()
        case "d": unit = 86_400; digits = digits.dropLast()
        case "w": unit = 7 * 86_400; digits = digits.dropLast()
        default: unit = 1
        }
        guard let value = Double(digits), value > 0, (value * unit).isFinite else { return nil }
        return value * unit
    }

    /// The period from `last` (a `duration`) ago until now, for the `--last` options.
    static func recent(_ last: String, examples: String) throws -> QueryRange {
        guard let span = duration(last) else { throw CtlFailure("--last \(last): use a duration such as \(examples)") }
        let end = now()
        return .between(start: end - span, end: end)
    }

    /// "now", relative ("-2h", "-30m", "-1d"), UTC seconds, or ISO-8601: "2026-05-01",
    /// "2026-05-01T08:30", "2026-05-01 08:30:15", with "Z" or "+02:00" (no suffix: local time).
    static func instant(_ text: String, now: Double) -> Double? {
        if text == "now" { return now }
        if text.hasPrefix("-"), let d = duration(String(text.dropFirst())) { return now - d }
        if let seconds = Double(text), seconds >= 0, seconds.isFinite, !text.contains("-") { return seconds }
        return iso8601(text)
    }

    static func iso8601(_ text: String) -> Double? {
        let bytes = Array(text.utf8)
        func number(_ from: Int, _ count: Int) -> Int? {
            guard from + count <= bytes.count else { return nil }
            var v = 0
            for b in bytes[from..<(from + count)] {
                guard b >= 0x30 && b <= 0x39 else { return nil }
                v = v * 10 + Int(b - 0x30)
            }
            return v
        }
        guard bytes.count >= 10, let year = number(0, 4), bytes[4] == 0x2D, let month = number(5, 2), bytes[7] == 0x2D,
              let day = number(8, 2), (1...12).contains(month), (1...31).contains(day) else { return nil }
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
        var tmValue = tm()
        tmValue.tm_year = Int32(year - 1900)
        tmValue.tm_mon = Int32(month - 1)
        tmValue.tm_mday = Int32(day)
        tmValue.tm_hour = Int32(hour)
        tmValue.tm_min = Int32(minute)
        tmValue.tm_sec = Int32(second)
        if index == bytes.count {
            tmValue.tm_isdst = -1
            let t = mktime(&tmValue)
            return t == -1 ? nil : Double(t)
        }
        let utc = Double(timegm(&tmValue))
        if bytes[index] == UInt8(ascii: "Z") && index + 1 == bytes.count { return utc }
        guard bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-"), let oh = number(index + 1, 2) else { return nil }
        var om = 0
        if index + 3 < bytes.count {
            let colon = bytes[index + 3] == 0x3A ? 1 : 0
            guard let m = number(index + 3 + colon, 2), index + 5 + colon == bytes.count else { return nil }
            om = m
        } else if index + 3 != bytes.count {
            return nil
        }
        let sign: Double = bytes[index] == UInt8(ascii: "+") ? 1 : -1
        return utc - sign * Double(oh * 3600 + om * 60)
    }

    /// Local time as "2026-05-01 08:30" (or with seconds / date only); "-" for a value that is
    /// no time (the agent's reply is not trusted to be in range: `time_t(_:)` would trap).
    static func local(_ seconds: Double?, format: String = "%Y-%m-%d %H:%M") -> String {
        guard let seconds, var t = time_t(exactly: seconds.rounded(.down)) else { return "-" }
        var parts = tm()
        localtime_r(&t, &parts)
        var buffer = [CChar](repeating: 0, count: 64)
        let n = strftime(&buffer, buffer.count, format, &parts)
        return String(decoding: buffer.prefix(n).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func span(_ seconds: Double) -> String {
        guard let s = Int(exactly: seconds.rounded(.towardZero)) else { return "-" }
        if s >= 86_400 { return "\(s / 86_400)d \(s % 86_400 / 3600)h" }
        if s >= 3600 { return "\(s / 3600)h \(s % 3600 / 60)m" }
        if s >= 60 { return "\(s / 60)m \(s % 60)s" }
        return "\(s)s"
    }
}

/// Fixed-width text tables.
struct Table {
    var headers: [String]
    var rows: [[String]] = []
    /// Columns that are right-aligned (numbers).
    var numeric: Set<Int> = []

    init(_ headers: [String], numeric: Set<Int> = []) {
        self.headers = headers
        self.numeric = numeric
    }

    mutating func add(_ row: [String]) { rows.append(row) }

    func render() -> String {
        var widths = headers.map(\.count)
        for row in rows { for (i, cell) in row.enumerated() where i < widths.count { widths[i] = max(widths[i], cell.count) } }
        func line(_ cells: [String]) -> String {
            var out = ""
            for (i, cell) in cells.enumerated() {
                let pad = String(repeating: " ", count: max(0, widths[i] - cell.count))
                out += numeric.contains(i) ? pad + cell : cell + pad
                if i < cells.count - 1 { out += "  " }
            }
            while out.hasSuffix(" ") { out.removeLast() }
            return out
        }
        return ([line(headers)] + rows.map(line)).joined(separator: "\n")
    }
}

/// Key/value blocks for `status`-like output.
func printPairs(_ pairs: [(String, String)]) {
    let width = pairs.map(\.0.count).max() ?? 0
    for (key, value) in pairs { print(key + String(repeating: " ", count: width - key.count + 2) + value) }
}

func formatNumber(_ value: JSONValue?, digits: Int = 1) -> String {
    guard let value, let d = value.doubleValue else { return "-" }
    if digits == 0, let exact = value.int64Value { return String(exact) }
    let scale = Double(Array(repeating: 10.0, count: digits).reduce(1, *))
    let rounded = (d * scale).rounded() / scale
    if digits == 0 {
        // Beyond Int64 (a corrupt or hostile reply) Int64(_:) would trap; print it as it came.
        return Int64(exactly: rounded).map { String($0) } ?? String(rounded)
    }
    var text = String(rounded)
    if let dot = text.firstIndex(of: ".") {
        let decimals = text.distance(from: dot, to: text.endIndex) - 1
        if decimals < digits { text += String(repeating: "0", count: digits - decimals) }
    }
    return text
}

func formatInt(_ value: JSONValue?) -> String { value?.int64Value.map { String($0) } ?? "-" }

func formatNumber(_ value: Double?, digits: Int = 1) -> String { formatNumber(value.map { JSONValue.double($0) }, digits: digits) }

/// Writes all of `text` to `fd` straight through write(2) (analyze and features stream large
/// outputs line by line); a closed pipe ends the output quietly.
func writeAll(_ fd: Int32, _ text: String) {
    try? FileDescriptor(borrowing: fd).writeAll(Array(text.utf8))
}
