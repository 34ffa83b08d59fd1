import ArgumentParser
import CivilTime
import StepJSON
import StepProtocol
import StepdModel
import StepSocket

struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Show the agent, board, sensor health, samples, rate, steps and ledger state.")

    @ParentCommand var root: StepCtl
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup var zone: ZoneOptions

    func run() throws {
        let client = try connect(connection, root.connection)
        let (s, raw) = try call(client, .status, as: StatusResult.init(json:))
        if output.json { return printJSON(raw) }
        // The agent's times in the agent's zone, as today and history show them.
        let times = try zone.times(agentZone: s.details?.timeZone)
        let address = s.sensor.address.map { "0x" + String($0, radix: 16) } ?? "-"
        var pairs: [(String, String)] = [
            ("agent", "stepd \(s.version), protocol \(stepdProtocolVersion), up \(TimeText.span(s.uptimeSeconds))"),
            ("board", s.board.name + (s.board.file.map { " (\($0))" } ?? "")),
            ("sensor", "\(s.sensor.model ?? "none") at \(address) on \(s.sensor.bus): \(s.sensor.health.rawValue)"),
            ("samples", s.sensor.samplesText),
        ]
        // The error stays in the answer after the sensor recovered; beside "ok" its advice (check
        // the wiring) read as a fault still there.
        if let last = s.sensor.lastError {
            pairs.append(("last error", s.sensor.health == .ok ? "\(last) (the sensor has recovered since)" : last))
        }
        pairs.append(("steps", "today \(s.stepsToday), since start \(s.stepsSinceStart)"))
        pairs.append(("activity", "\(s.activity.kind.rawValue) (\(s.activity.confidence.rawValue)) since \(times.text(s.activity.start))"))
        pairs.append(("ledger", "\(s.ledger.health), \(counted(s.ledger.records, "record")), \(counted(s.ledger.unsavedSteps, "unsaved step")), last checkpoint \(times.text(s.ledger.lastCheckpoint, .timeSecond))"))
        if let problem = s.ledger.message { pairs.append(("ledger error", problem)) }
        let caps = s.capabilities
        let names = [("step_counting", caps.stepCounting), ("distance", caps.distance), ("cadence", caps.cadence),
                     ("pace", caps.pace), ("floors", caps.floors), ("activity", caps.activity)]
        pairs.append(("capabilities", names.filter(\.1).map(\.0).joined(separator: ", ")))
        pairs.append(("clients", String(s.clients)))
        printPairs(pairs)
    }
}

/// Prints a steps.query result.
func printStepsResult(_ client: UnixSocketClient, _ params: StepsQueryParams, times: LocalTimes, json: Bool) throws {
    let (r, raw) = try call(client, .stepsQuery, params.json, as: StepsQueryResult.init(json:))
    if json { return printJSON(raw) }
    var pairs: [(String, String)] = [
        ("period", "\(times.text(r.start)) - \(times.text(r.end))"),
        ("steps", String(r.steps)),
        ("distance", "\(formatNumber(r.distanceMeters, digits: 0)) m"),
        ("cadence", r.cadenceStepsPerMinute.map { "\(formatNumber($0)) steps/min" } ?? "-"),
        ("pace", r.paceSecondsPerMeter.map { "\(formatNumber($0 * 1000, digits: 0)) s/km" } ?? "-"),
    ]
    for source in r.bySource ?? [] {
        pairs.append(("  " + source.source, "\(counted(source.steps, "step")), \(formatNumber(source.distanceMeters, digits: 0)) m"))
    }
    printPairs(pairs)
}

/// `--source` and `--exclude-user-entered`, the same on every query command.
struct SelectionOptions: ParsableArguments {
    @Option(name: .customLong("source"), help: ArgumentHelp("Count only this source (kind:id, repeatable).", valueName: "name"))
    var sources: [String] = []
    @Flag(help: "Leave out user-entered samples (counted by default, as in HealthKit).") var excludeUserEntered = false

    var selection: SampleSelection {
        SampleSelection(sources: sources.isEmpty ? nil : sources, includeUserEntered: !excludeUserEntered)
    }
}

struct TodayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "today", abstract: "Steps, distance, cadence and pace since midnight (the agent's, or in --tz).")

    @ParentCommand var root: StepCtl
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup var zone: ZoneOptions
    @Flag(help: "Also list steps per source.") var bySource = false
    @OptionGroup var select: SelectionOptions

    func run() throws {
        let client = try connect(connection, root.connection)
        // --tz is also the zone of "today" itself.
        // Asked with --json too: an agent without a zone name is told this shell's, as history is.
        let times = try zone.times(asking: client)
        let params = StepsQueryParams(range: .today, timeZone: times.requestZone, bySource: bySource, selection: select.selection)
        try printStepsResult(client, params, times: times, json: output.json)
    }
}

struct StepsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "steps", abstract: "Steps, distance, cadence and pace between two times.",
        discussion: "Times: ISO-8601 (2026-05-01, 2026-05-01T08:30, ...Z or +02:00; no suffix = local time in the --tz zone, else the agent's, as history's days), relative (-2h, -30m, -1d: back from the agent's clock, which under stepd --simulate-start is its simulated calendar), now, or UTC seconds.")

    @ParentCommand var root: StepCtl
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions
    @Option(parsing: .unconditional, help: ArgumentHelp("Start time.", valueName: "time")) var from: String
    @Option(parsing: .unconditional, help: ArgumentHelp("End time.", valueName: "time")) var to: String = "now"
    @OptionGroup var zone: ZoneOptions
    @Flag(help: "Also list steps per source.") var bySource = false
    @OptionGroup var select: SelectionOptions

    func range(_ times: LocalTimes, now: Double) throws -> QueryRange {
        let start = try times.instant(from, option: "--from", now: now)
        let end = try times.instant(to, option: "--to", now: now)
        guard end > start else { throw UsageFailure("--to must be after --from") }
        return .between(start: start, end: end)
    }

    func run() throws {
        // Bad times are reported whether or not the agent runs; they are read in its zone, and
        // relative ones from its clock, below.
        _ = try range(LocalTimes(tz: zone.tz), now: TimeText.now())
        let client = try connect(connection, root.connection)
        // Local times typed without a zone are the agent's, as the days `history` shows: in this
        // shell's zone "2026-05-01" was another 24 hours than history's row for that day.
        let (times, now) = try zone.agentClock(asking: client)
        let params = StepsQueryParams(range: try range(times, now: now), timeZone: times.requestZone, bySource: bySource,
                                      selection: select.selection)
        try printStepsResult(client, params, times: times, json: output.json)
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

    /// Refuses `buckets` of this unit beyond what one answer holds, naming the options (the
    /// agent's refusal spoke of "buckets per request" and "interval", which the user never typed).
    func checkCount(_ buckets: Double, last: String) throws {
        guard buckets > Double(maxBucketsPerRequest) else { return }
        let wider = self == .minute ? "--by hour" : "--by day"
        throw UsageFailure("--last \(last) by \(rawValue) is \(buckets < 1e15 ? String(Int(buckets)) : "too many") buckets; at most \(maxBucketsPerRequest) fit one answer: use \(wider) or a shorter --last")
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
    @OptionGroup var zone: ZoneOptions
    @Flag(help: "Split each bucket by source instead of merging sources.") var bySource = false
    @OptionGroup var select: SelectionOptions
    @Flag(help: "Also show empty buckets.") var all = false

    func run() throws {
        guard case .between(let from, let to) = try TimeText.recent(last, examples: "7d, 12h or 90m") else { return }
        // The period seldom starts on a bucket boundary: one bucket more than it spans.
        try by.checkCount(((to - from) / by.interval.nominalSeconds).rounded(.up) + 1, last: last)
        let client = try connect(connection, root.connection)
        // From the start of the bucket --last reaches into: the first row counted only the part
        // after "now minus --last" (from 15:28 of the day a week ago) under that whole day's label.
        // The buckets follow --tz, else the agent's calendar; "now" is the agent's.
        let (times, now) = try zone.agentClock(asking: client)
        guard case .between(let reached, let end) = try TimeText.recent(last, examples: "7d, 12h or 90m", now: now) else { return }
        let start = TimeText.bucketStart(containing: reached, of: by, zone: times.zone)
        var params = StepsCollectionParams(range: .between(start: start, end: end), timeZone: times.requestZone, interval: by.interval,
                                           bySource: bySource, selection: select.selection)
        // Long answers come in pages: ask again from next_start with the same anchor.
        var buckets: [CollectionBucket] = []
        var pages: [JSONValue] = []
        var zoneName = "-"
        while true {
            let (page, raw) = try call(client, .stepsCollection, params.json, as: StepsCollectionResult.init(json:))
            buckets += page.buckets
            pages.append(raw)
            zoneName = page.timeZone
            guard page.more, let next = page.nextStart, case .between(_, let end) = params.range else { break }
            params.range = .between(start: next, end: end)
            params.anchor = page.anchor
        }
        if output.json { return printJSON(joinedPages(pages, arrayKey: "buckets")) }
        // Without --tz the buckets follow the agent's calendar and are labelled in its zone
        // (`times`), or a day from the agent's midnight reads as the day before west of it.
        let style: LocalTime.Style = by == .day ? .dateWeekday : .dateMinute
        var table = Table(bySource ? ["start", "source", "steps", "distance_m"] : ["start", "steps", "distance_m"],
                          numeric: bySource ? [2, 3] : [1, 2])
        var total = 0
        for bucket in buckets {
            total += bucket.steps
            if bucket.steps == 0 && !all { continue }
            let start = times.text(bucket.start, style)
            if let sources = bucket.bySource {
                for source in sources {
                    table.add([start, source.source, String(source.steps), formatNumber(source.distanceMeters, digits: 0)])
                }
            } else {
                table.add([start, String(bucket.steps), formatNumber(bucket.distanceMeters, digits: 0)])
            }
        }
        print(table.render())
        print("total \(counted(total, "step")) since \(times.text(start)), the start of the \(by.rawValue) --last \(last) reaches (time zone \(zoneName))")
    }
}

struct StatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats", abstract: "Sum, minimum, maximum and average steps per bucket (steps.statistics) over whole buckets.",
        discussion: """
            --last 7d means the 7 whole days before today (from local midnight to midnight, in the --tz \
            zone, else the agent's): the day in progress is left out (`stepctl today` shows it), so the \
            average, minimum and maximum are over whole days only. Likewise --by hour --last 12h is the \
            12 whole hours before the current one. --last must be a whole number of --by buckets.
            """)

    @ParentCommand var root: StepCtl
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions
    @Option(help: "Bucket size for min/max/avg.") var by: BucketUnit = .day
    @Option(help: ArgumentHelp("How many whole buckets back: 7d, 30d, 12h (with --by hour).", valueName: "duration")) var last: String = "7d"
    @OptionGroup var zone: ZoneOptions
    @OptionGroup var select: SelectionOptions

    func run() throws {
        // A bad --last is reported as that, whether or not the agent runs.
        let count = try TimeText.wholeBuckets(last, of: by)
        try by.checkCount(Double(count), last: last)
        let client = try connect(connection, root.connection)
        // The window's midnights are the shown zone's: --tz, else the agent's, whose days the
        // buckets follow when the request names no zone.
        let (times, now) = try zone.agentClock(asking: client)
        let range = try TimeText.lastWholeBuckets(count, of: by, zone: times.zone, now: now, last: last)
        let params = StepsStatisticsParams(range: range, timeZone: times.requestZone, bucket: by.interval,
                                           options: StatisticsOption.allCases, selection: select.selection)
        let (r, raw) = try call(client, .stepsStatistics, params.json, as: StepsStatisticsResult.init(json:))
        if output.json { return printJSON(raw) }
        let number: (Int?) -> String = { $0.map(String.init) ?? "-" }
        let unit = by.rawValue
        let inProgress = by == .day ? "today" : "the current \(unit)"
        printPairs([
            ("period", "\(times.text(r.start)) - \(times.text(r.end)) (\(r.buckets) whole \(unit)s; \(inProgress) not included)"),
            ("sum", number(r.sum)), ("min per \(unit)", number(r.min)),
            ("max per \(unit)", number(r.max)), ("avg per \(unit)", formatNumber(r.average)),
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
    @OptionGroup var zone: ZoneOptions

    func run() throws {
        // A bad --last is reported as that, whether or not the agent runs.
        if history { _ = try TimeText.recent(last, examples: "1d or 6h", longest: ActivityQueryParams.maximumSpanSeconds) }
        let client = try connect(connection, root.connection)
        guard history else {
            let (r, raw) = try call(client, .activityCurrent, as: ActivityResult.init(json:))
            if output.json { return printJSON(raw) }
            let times = try zone.times(asking: client)
            print("\(r.kind.rawValue) (\(r.confidence.rawValue) confidence) since \(times.text(r.start, .dateSecond))")
            return
        }
        // --last counts back from the agent's clock.
        let (times, now) = try zone.agentClock(asking: client)
        let range = try TimeText.recent(last, examples: "1d or 6h", longest: ActivityQueryParams.maximumSpanSeconds, now: now)
        let (r, raw) = try call(client, .activityQuery, .object(range.json), as: ActivityQueryResult.init(json:))
        if output.json { return printJSON(raw) }
        var table = Table(["start", "end", "activity", "confidence", "duration"], numeric: [4])
        for segment in r.segments {
            table.add([times.text(segment.start, .monthDaySecond), times.text(segment.end, .monthDaySecond),
                       segment.kind.rawValue, segment.confidence.rawValue, TimeText.span(segment.end - segment.start)])
        }
        print(table.render())
    }
}
