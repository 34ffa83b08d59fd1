import ArgumentParser
import StepJSON
import StepProtocol

struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Show the agent, board, sensor health, samples, rate, steps and ledger state.")

    @ParentCommand var root: StepCtl
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        let client = try connect(connection, root.connection)
        let s = try call(client, .status)
        if output.json { return printJSON(s) }
        let address = s.value(atPath: "sensor.address")?.intValue.map { "0x" + String($0, radix: 16) } ?? "-"
        var pairs: [(String, String)] = [
            ("agent", "stepd \(s["version"]?.stringValue ?? "?"), protocol \(formatInt(s["protocol_version"])), up \(TimeText.span(s["uptime_s"]?.doubleValue ?? 0))"),
            ("board", "\(s.value(atPath: "board.name")?.stringValue ?? "-")" + (s.value(atPath: "board.file")?.stringValue.map { " (\($0))" } ?? "")),
            ("sensor", "\(s.value(atPath: "sensor.model")?.stringValue ?? "none") at \(address) on \(s.value(atPath: "sensor.bus")?.stringValue ?? "-"): \(s.value(atPath: "sensor.health")?.stringValue ?? "?")"),
            ("samples", "\(formatInt(s.value(atPath: "sensor.samples"))) at \(formatNumber(s.value(atPath: "sensor.rate_hz"))) Hz (errors \(formatInt(s.value(atPath: "sensor.errors"))), overflows \(formatInt(s.value(atPath: "sensor.overflows"))), re-inits \(formatInt(s.value(atPath: "sensor.reinits"))))"),
        ]
        if let last = s.value(atPath: "sensor.last_error")?.stringValue { pairs.append(("last error", last)) }
        pairs.append(("steps", "today \(formatInt(s.value(atPath: "steps.today"))), since start \(formatInt(s.value(atPath: "steps.since_start")))"))
        pairs.append(("activity", "\(s.value(atPath: "activity.type")?.stringValue ?? "-") (\(s.value(atPath: "activity.confidence")?.stringValue ?? "-")) since \(TimeText.local(s.value(atPath: "activity.start")?.doubleValue))"))
        pairs.append(("ledger", "\(s.value(atPath: "ledger.health")?.stringValue ?? "-"), \(formatInt(s.value(atPath: "ledger.records"))) records, \(formatInt(s.value(atPath: "ledger.unsaved_steps"))) unsaved steps, last checkpoint \(TimeText.local(s.value(atPath: "ledger.last_checkpoint")?.doubleValue, format: "%H:%M:%S"))"))
        if let problem = s.value(atPath: "ledger.message")?.stringValue {
            pairs.append(("ledger error", problem))
        }
        if let caps = s["capabilities"]?.objectValue {
            pairs.append(("capabilities", caps.members.filter { $0.value == true }.map(\.key).joined(separator: ", ")))
        }
        pairs.append(("clients", formatInt(s["clients"])))
        printPairs(pairs)
    }
}

/// Prints a steps.query result.
func printStepsResult(_ r: JSONValue, json: Bool) {
    if json { return printJSON(r) }
    var pairs: [(String, String)] = [
        ("period", "\(TimeText.local(r["start"]?.doubleValue)) - \(TimeText.local(r["end"]?.doubleValue))"),
        ("steps", formatInt(r["steps"])),
        ("distance", "\(formatNumber(r["distance_m"], digits: 0)) m"),
        ("cadence", r["cadence_spm"]?.doubleValue == nil ? "-" : "\(formatNumber(r["cadence_spm"])) steps/min"),
        ("pace", r["pace_s_per_m"]?.doubleValue.map { "\(formatNumber(.double($0 * 1000), digits: 0)) s/km" } ?? "-"),
    ]
    if let sources = r["by_source"]?.arrayValue {
        for source in sources {
            pairs.append(("  " + (source["source"]?.stringValue ?? "?"), "\(formatInt(source["steps"])) steps, \(formatNumber(source["distance_m"], digits: 0)) m"))
        }
    }
    printPairs(pairs)
}

struct TodayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "today", abstract: "Steps, distance, cadence and pace since local midnight.")

    @ParentCommand var root: StepCtl
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions
    @Option(help: ArgumentHelp("Time zone for \"today\" (default: the agent's).", valueName: "name")) var tz: String?
    @Flag(help: "Also list steps per source.") var bySource = false

    func run() throws {
        if let tz { try TimeText.useTimeZone(tz) }
        let client = try connect(connection, root.connection)
        let params = StepsQueryParams(range: .today, timeZone: tz, bySource: bySource)
        printStepsResult(try call(client, .stepsQuery, params.json), json: output.json)
    }
}

struct StepsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "steps", abstract: "Steps, distance, cadence and pace between two times.",
        discussion: "Times: ISO-8601 (2026-05-01, 2026-05-01T08:30, ...Z or +02:00; no suffix = local time), relative (-2h, -30m, -1d), now, or UTC seconds.")

    @ParentCommand var root: StepCtl
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions
    @Option(parsing: .unconditional, help: ArgumentHelp("Start time.", valueName: "time")) var from: String
    @Option(parsing: .unconditional, help: ArgumentHelp("End time (default now).", valueName: "time")) var to: String = "now"
    @Option(help: ArgumentHelp("Time zone for local times.", valueName: "name")) var tz: String?
    @Flag(help: "Also list steps per source.") var bySource = false

    func run() throws {
        if let tz { try TimeText.useTimeZone(tz) }
        let now = TimeText.now()
        guard let start = TimeText.instant(from, now: now) else { throw CtlFailure("--from \(from): not a time; use e.g. 2026-05-01T08:00, -2h or now") }
        guard let end = TimeText.instant(to, now: now) else { throw CtlFailure("--to \(to): not a time; use e.g. 2026-05-01T18:00, -1h or now") }
        guard end > start else { throw CtlFailure("--to must be after --from") }
        let client = try connect(connection, root.connection)
        let params = StepsQueryParams(range: .between(start: start, end: end), timeZone: tz, bySource: bySource)
        printStepsResult(try call(client, .stepsQuery, params.json), json: output.json)
    }
}

enum BucketUnit: String, ExpressibleByArgument, CaseIterable {
    case minute, hour, day
    var interval: BucketInterval {
        switch self {
        case .minute: return BucketInterval(.minutes, 1)
        case .hour: return BucketInterval(.hours, 1)
        case .day: return BucketInterval(.days, 1)
        }
    }
}

struct HistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history", abstract: "Steps per minute, hour or day over a recent period (steps.collection).")

    @ParentCommand var root: StepCtl
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions
    @Option(help: "Bucket size.") var by: BucketUnit = .hour
    @Option(help: ArgumentHelp("How far back: 7d, 12h, 90m.", valueName: "duration")) var last: String = "1d"
    @Option(help: ArgumentHelp("Time zone of the buckets (default: the agent's).", valueName: "name")) var tz: String?
    @Flag(help: "Split each bucket by source instead of merging sources.") var bySource = false
    @Flag(help: "Leave out user-entered samples.") var excludeUserEntered = false
    @Flag(help: "Also show empty buckets.") var all = false

    func run() throws {
        if let tz { try TimeText.useTimeZone(tz) }
        let range = try TimeText.recent(last, examples: "7d, 12h or 90m")
        let client = try connect(connection, root.connection)
        let params = StepsCollectionParams(range: range, timeZone: tz, interval: by.interval,
                                           bySource: bySource, includeUserEntered: !excludeUserEntered)
        let r = try call(client, .stepsCollection, params.json)
        if output.json { return printJSON(r) }
        let format = by == .day ? "%Y-%m-%d %a" : "%Y-%m-%d %H:%M"
        var table = Table(bySource ? ["start", "source", "steps", "distance_m"] : ["start", "steps", "distance_m"],
                          numeric: bySource ? [2, 3] : [1, 2])
        var total: Int64 = 0
        for bucket in r["buckets"]?.arrayValue ?? [] {
            let steps = bucket["steps"]?.int64Value ?? 0
            total += steps
            if steps == 0 && !all { continue }
            let start = TimeText.local(bucket["start"]?.doubleValue, format: format)
            if bySource, let sources = bucket["by_source"]?.arrayValue {
                for source in sources {
                    table.add([start, source["source"]?.stringValue ?? "?", formatInt(source["steps"]), formatNumber(source["distance_m"], digits: 0)])
                }
            } else {
                table.add([start, formatInt(bucket["steps"]), formatNumber(bucket["distance_m"], digits: 0)])
            }
        }
        print(table.render())
        print("total \(total) steps over \(last) (time zone \(r["time_zone"]?.stringValue ?? "-"))")
    }
}

struct StatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats", abstract: "Sum, minimum, maximum and average steps per bucket (steps.statistics).")

    @ParentCommand var root: StepCtl
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions
    @Option(help: "Bucket size for min/max/avg.") var by: BucketUnit = .day
    @Option(help: ArgumentHelp("How far back: 7d, 30d.", valueName: "duration")) var last: String = "7d"
    @Option(help: ArgumentHelp("Time zone of the buckets.", valueName: "name")) var tz: String?

    func run() throws {
        if let tz { try TimeText.useTimeZone(tz) }
        let range = try TimeText.recent(last, examples: "7d or 12h")
        let client = try connect(connection, root.connection)
        let params = StepsStatisticsParams(range: range, timeZone: tz, bucket: by.interval,
                                           options: StatisticsOption.allCases)
        let r = try call(client, .stepsStatistics, params.json)
        if output.json { return printJSON(r) }
        printPairs([
            ("period", "\(TimeText.local(r["start"]?.doubleValue)) - \(TimeText.local(r["end"]?.doubleValue)) (\(formatInt(r["buckets"])) \(by.rawValue)s)"),
            ("sum", formatInt(r["sum"])), ("min per \(by.rawValue)", formatInt(r["min"])),
            ("max per \(by.rawValue)", formatInt(r["max"])), ("avg per \(by.rawValue)", formatNumber(r["avg"])),
        ])
    }
}

struct ActivityCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "activity", abstract: "The current activity, or its history with --history.")

    @ParentCommand var root: StepCtl
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions
    @Flag(help: "List activity segments instead of the current activity.") var history = false
    @Option(help: ArgumentHelp("With --history: how far back (1d, 6h).", valueName: "duration")) var last: String = "1d"

    func run() throws {
        let client = try connect(connection, root.connection)
        if !history {
            let r = try call(client, .activityCurrent)
            if output.json { return printJSON(r) }
            print("\(r["type"]?.stringValue ?? "-") (\(r["confidence"]?.stringValue ?? "-") confidence) since \(TimeText.local(r["start"]?.doubleValue, format: "%Y-%m-%d %H:%M:%S"))")
            return
        }
        let range = try TimeText.recent(last, examples: "1d or 6h")
        let r = try call(client, .activityQuery, .object(range.json))
        if output.json { return printJSON(r) }
        var table = Table(["start", "end", "activity", "confidence", "duration"], numeric: [4])
        for segment in r["segments"]?.arrayValue ?? [] {
            let start = segment["start"]?.doubleValue ?? 0
            let stop = segment["end"]?.doubleValue ?? start
            table.add([TimeText.local(start, format: "%m-%d %H:%M:%S"), TimeText.local(stop, format: "%m-%d %H:%M:%S"),
                       segment["type"]?.stringValue ?? "-", segment["confidence"]?.stringValue ?? "-", TimeText.span(stop - start)])
        }
        print(table.render())
    }
}
