import CivilTime
import Glibc
import LedgerStore
import POSIXLayer
import StepJSON
import StepProtocol
import StepdModel

/// Local dates and times for one command, in the zone of `--tz` (every form the agent accepts:
/// a zone name, "UTC", an offset such as +02:00) or else this machine's zone ($TZ, then
/// /etc/localtime, then UTC as the C library does), through the agent's own zone code.
struct LocalTimes {
    let zone: TimeZoneRule
    /// The zone to name in requests (their `time_zone`) so the agent's buckets and days follow
    /// `zone`: nil lets the agent use its own, which is `zone` only when it was taken from the agent.
    let requestZone: String?

    init(tz: String?) throws {
        requestZone = tz
        if let tz {
            do { zone = try TimeZoneLoader.load(tz) } catch { throw CtlFailure("--tz \(tz): \(error)") }
        } else {
            zone = (try? TimeZoneLoader.local(environment: ProcessEnvironment.current())) ?? .utc
        }
    }

    /// The zone an agent named, which requests need not name again.
    init(agentZone name: String) throws {
        do { zone = try TimeZoneLoader.load(name) } catch { throw CtlFailure("the agent's time zone \(name): \(error)") }
        requestZone = nil
    }

    /// Local time such as "2026-05-01 08:30"; "-" for a value that is no time (the agent's
    /// reply is not trusted to be in range).
    func text(_ seconds: Double?, _ style: LocalTime.Style = .dateMinute) -> String {
        guard let seconds, let local = LocalTime(utc: seconds, zone: zone) else { return "-" }
        return local.text(style)
    }

    /// "now", relative ("-2h", "-30m", "-1d"), UTC seconds, or ISO-8601: "2026-05-01",
    /// "2026-05-01T08:30", "2026-05-01 08:30:15", with "Z" or "+02:00" (no suffix: local time).
    func instant(_ text: String, now: Double) -> Double? {
        if text == "now" { return now }
        // A time before 1970 is no time the agent keeps (it would answer about "start" instead).
        if text.hasPrefix("-"), let d = TimeText.duration(String(text.dropFirst())) { return now - d >= 0 ? now - d : nil }
        if let seconds = Double(text), seconds >= 0, seconds.isFinite, !text.contains("-") { return seconds }
        return LocalTime.parseISO8601(text, zone: zone)
    }

    /// `instant`, or an error naming the option and an example of what it takes.
    func instant(_ text: String, option: String, now: Double) throws -> Double {
        guard let seconds = instant(text, now: now) else {
            throw UsageFailure("\(option) \(text): not a time; use e.g. 2026-05-01T08:00, -2h, now or UTC seconds")
        }
        return seconds
    }
}

/// Durations and the clock, without Foundation.
enum TimeText {
    static func now() -> Double { SystemClocks.wall() }

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

    /// The period from `last` (a `duration`) before `now` until `now` (the agent's, once
    /// connected: `ZoneOptions.agentClock`), for the `--last` options.
    static func recent(_ last: String, examples: String, longest: Double = maxQuerySpanSeconds, now end: Double = now()) throws -> QueryRange {
        guard let span = duration(last) else { throw UsageFailure("--last \(last): use a duration such as \(examples)") }
        try checkSpan(span, last: last, longest: longest, examples: examples)
        // Otherwise the agent refuses a negative "start" the user never typed.
        guard end - span >= 0 else { throw UsageFailure("--last \(last): reaches back before 1970; use a shorter duration such as \(examples)") }
        return .between(start: end - span, end: end)
    }

    /// The agent refuses longer ranges ("range of 40 days is too long ... per request"), after
    /// connecting and without naming --last.
    static func checkSpan(_ span: Double, last: String, longest: Double, examples: String) throws {
        guard span > longest else { return }
        throw UsageFailure("--last \(last) is longer than \(DecimalText.shortest(longest / 86_400)) days, the longest period one answer covers; use a shorter duration such as \(examples)")
    }

    /// How many `unit` buckets `last` (a `duration`) is, for `stats`: a whole number, at least one.
    static func wholeBuckets(_ last: String, of unit: BucketUnit) throws -> Int {
        let examples = unit == .day ? "7d or 30d" : unit == .hour ? "12h or 2d" : "90m or 6h"
        guard let span = duration(last) else { throw UsageFailure("--last \(last): use a duration such as \(examples)") }
        // Whole local days may run an hour over N x 24 h (DST): a day's margin under the agent's limit.
        try checkSpan(span, last: last, longest: maxQuerySpanSeconds - (unit == .day ? 86_400 : 0), examples: examples)
        let buckets = span / unit.interval.nominalSeconds
        guard buckets >= 1, buckets == buckets.rounded(), buckets <= Double(Int32.max) else {
            throw UsageFailure("--last \(last) is not a whole number of \(unit.rawValue)s (stats averages whole \(unit.rawValue)s); use e.g. --last \(examples.prefix { $0 != " " })")
        }
        // Otherwise the agent refuses a negative "start" the user never typed.
        guard now() - span - unit.interval.nominalSeconds >= 0 else {
            throw UsageFailure("--last \(last): reaches back before 1970; use a shorter duration such as \(examples)")
        }
        return Int(buckets)
    }

    /// The `count` whole buckets before the one in progress at `now`, on the local calendar of
    /// `zone` (days from midnight to midnight, 23 or 25 hours across a DST change; minutes and
    /// hours of elapsed time from midnight, as the agent aligns its buckets).
    static func lastWholeBuckets(_ count: Int, of unit: BucketUnit, zone: TimeZoneRule, now: Double, last: String) throws -> QueryRange {
        let end = bucketStart(containing: now, of: unit, zone: zone)
        let length = unit.interval.nominalSeconds
        let start: Double
        switch unit {
        case .day: start = zone.utc(fromLocal: end + Double(zone.offset(at: end)) - Double(count) * length)
        case .hour, .minute: start = end - Double(count) * length
        }
        guard start >= 0 else { throw UsageFailure("--last \(last): reaches back before 1970; use a shorter duration") }
        return .between(start: start, end: end)
    }

    /// The start of the `unit` bucket holding `time`, as the agent lays buckets out by default:
    /// local midnight in `zone`, then whole minutes or hours of elapsed time from it.
    static func bucketStart(containing time: Double, of unit: BucketUnit, zone: TimeZoneRule) -> Double {
        let midnight = zone.startOfLocalDay(containing: time)
        guard unit != .day else { return midnight }
        let length = unit.interval.nominalSeconds
        return midnight + ((time - midnight) / length).rounded(.down) * length
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
    return DecimalText.fixed(d, decimals: digits) ?? "-"
}

/// "1 record", "2 records": the count with its noun, plural unless the count is 1 (status
/// printed "1 records").
func counted(_ count: Int, _ noun: String) -> String { "\(count) \(noun)\(count == 1 ? "" : "s")" }

func formatInt(_ value: JSONValue?) -> String { value?.int64Value.map { String($0) } ?? "-" }

func formatNumber(_ value: Double?, digits: Int = 1) -> String { formatNumber(value.map { JSONValue.double($0) }, digits: digits) }

/// Writes all of `text` to `fd` straight through write(2) (analyze and features stream large
/// outputs line by line); a closed pipe ends the output quietly.
func writeAll(_ fd: Int32, _ text: String) {
    try? FileDescriptor(borrowing: fd).writeAll(Array(text.utf8))
}
