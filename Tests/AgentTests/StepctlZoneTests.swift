import Foundation
import StepJSON
import StepProtocol
import StepSocket
import Testing

/// An agent in Berlin, a shell in New York: every stepctl command that shows or reads local
/// times follows the agent's zone unless --tz names another (one `ZoneOptions`), and `stats`
/// averages whole days of that zone.
@Suite(.serialized) struct StepctlZoneTests {
    let agentZone = "Europe/Berlin"
    let shellZone = ["TZ": "America/New_York"]

    var berlin: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: agentZone) ?? .gmt
        return calendar
    }

    func text(_ seconds: Double, _ format: String, zone: String) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: zone)
        formatter.dateFormat = format
        return formatter.string(from: Date(timeIntervalSince1970: seconds))
    }

    func stepctl(_ agent: AgentProcess, _ arguments: [String]) throws -> (status: Int32, output: String, error: String) {
        try runTool(AgentProcess.stepctlPath, ["--socket", agent.socketPath] + arguments, environment: shellZone)
    }

    /// Every command that shows or reads times takes the same --tz.
    @Test(arguments: [["status"], ["today"], ["steps"], ["history"], ["stats"], ["activity"], ["watch"], ["samples", "list"],
                      ["samples", "add"], ["sync", "export"], ["record"]])
    func everyCommandWithTimesTakesTz(command: [String]) throws {
        let help = try runTool(AgentProcess.stepctlPath, command + ["--help"])
        #expect(help.output.contains("--tz <zone>"), "\(command): \(help.output)")
        #expect(help.output.contains("(default: the agent's)"), "\(command): \(help.output)")
    }

    /// `stats --last 7d` averaged the steps of 7 × 24 hours over the 8 calendar days they touch
    /// (two of them partly), so the average was 7/8 of the true one and the minimum a part-day.
    /// It now asks for the 7 whole days before today in the agent's zone; history starts at the
    /// first of those days' midnight.
    @Test func statsAveragesSevenWholeDaysBeforeToday() throws {
        let agent = try AgentProcess(arguments: ["--simulate", "builtin", "--replay-speed", "0.01"], environment: ["TZ": agentZone])
        let client = try agent.connect()
        let today = berlin.startOfDay(for: Date()).timeIntervalSince1970
        let weekAgo = try #require(berlin.date(byAdding: .day, value: -7, to: Date(timeIntervalSince1970: today))).timeIntervalSince1970
        let yesterday = try #require(berlin.date(byAdding: .day, value: -1, to: Date(timeIntervalSince1970: today))).timeIntervalSince1970
        let now = Date().timeIntervalSince1970
        // The first minutes of the week's first day (before "now - 7 days"), yesterday, and today.
        var samples: [JSONValue] = [
            ["source": "app:phone", "start": .double(weekAgo + 60), "end": .double(weekAgo + 660), "steps": 300],
            ["source": "app:phone", "start": .double(yesterday + 3600), "end": .double(yesterday + 4200), "steps": 1400],
        ]
        if now - today > 120 { samples.append(["source": "app:phone", "start": .double(today + 30), "end": .double(today + 90), "steps": 200]) }
        _ = try client.call(.samplesAdd, ["samples": .array(samples)])

        let json = try stepctl(agent, ["stats", "--json"])
        #expect(json.status == 0, "\(json.error)")
        let answer = try StepsStatisticsResult(json: JSONParser.parse(Array(json.output.utf8)))
        #expect(answer.start == weekAgo && answer.end == today, "\(json.output)")
        #expect(answer.buckets == 7 && answer.sum == 1700 && answer.min == 0 && answer.max == 1400, "\(json.output)")
        #expect(answer.average == 1700.0 / 7, "\(json.output)")

        let shown = try stepctl(agent, ["stats"])
        let period = "\(text(weekAgo, "yyyy-MM-dd", zone: agentZone)) 00:00 - \(text(today, "yyyy-MM-dd", zone: agentZone)) 00:00"
        #expect(shown.output.contains("period       \(period) (7 whole days; today not included)"), "\(shown.output)")
        #expect(shown.output.contains("avg per day  242.9"), "\(shown.output)")

        // history's first row is that whole day too: it counted only the part after "now - 7 days"
        // (here none of the 300 steps) under the whole day's label.
        let history = try stepctl(agent, ["history", "--by", "day", "--last", "7d", "--json"])
        let collection = try StepsCollectionResult(json: JSONParser.parse(Array(history.output.utf8)))
        #expect(collection.buckets.first?.start == weekAgo && collection.buckets.first?.steps == 300, "\(history.output)")
        #expect(collection.buckets.count == 8 && collection.buckets.reduce(0) { $0 + $1.steps } >= 1700, "\(history.output)")
        let historyText = try stepctl(agent, ["history", "--by", "day", "--last", "7d"])
        #expect(historyText.output.contains("since \(text(weekAgo, "yyyy-MM-dd", zone: agentZone)) 00:00, the start of the day --last 7d reaches (time zone Europe/Berlin)"),
                "\(historyText.output)")

        // Hours: the 3 whole hours before the current one.
        let hourBefore = (Date().timeIntervalSince1970 / 3600).rounded(.down) * 3600
        let hours = try StepsStatisticsResult(json: JSONParser.parse(Array(try stepctl(agent, ["stats", "--by", "hour", "--last", "3h", "--json"]).output.utf8)))
        let hourAfter = (Date().timeIntervalSince1970 / 3600).rounded(.down) * 3600
        #expect(hours.buckets == 3 && [hourBefore, hourAfter].contains(hours.end) && hours.end - hours.start == 3 * 3600, "\(hours)")

        for (last, by) in [("36h", "day"), ("90m", "hour"), ("12h", "day")] {
            let refused = try stepctl(agent, ["stats", "--last", last, "--by", by])
            #expect(refused.status == 64, "\(refused.output)")
            #expect(refused.error.contains("--last \(last) is not a whole number of \(by)s"), "\(refused.error)")
        }
        #expect(agent.terminate() == 0)
    }

    /// An agent that names no zone ("local": here a $TZ it cannot read, so UTC) aligned the
    /// buckets of requests without a time_zone to its own midnights, while stepctl aligned the
    /// window and labels to this shell's: stats asked for New York's days and got UTC's sums.
    /// Requests now name the shell's $TZ, so both follow one calendar, and history says which.
    @Test func anAgentWithoutAZoneNameFollowsTheShellsZone() throws {
        let agent = try AgentProcess(arguments: ["--simulate", "builtin", "--replay-speed", "0.01"], environment: ["TZ": ":/nonexistent/zone"])
        // The agent takes a moment to listen; stepctl would find no socket and print nothing.
        _ = try agent.connect()
        let status = try StatusResult(json: JSONParser.parse(Array(try stepctl(agent, ["status", "--json"]).output.utf8)))
        #expect(status.details?.timeZone == nil, "\(String(describing: status.details))")
        var newYork = Calendar(identifier: .gregorian)
        newYork.timeZone = TimeZone(identifier: "America/New_York") ?? .gmt
        let today = newYork.startOfDay(for: Date()).timeIntervalSince1970
        let weekAgo = try #require(newYork.date(byAdding: .day, value: -7, to: Date(timeIntervalSince1970: today))).timeIntervalSince1970

        let history = try stepctl(agent, ["history", "--by", "day", "--last", "7d", "--json"])
        let collection = try StepsCollectionResult(json: JSONParser.parse(Array(history.output.utf8)))
        #expect(collection.timeZone == "America/New_York", "\(history.output)")
        #expect(collection.buckets.first?.start == weekAgo, "\(history.output)")
        #expect(collection.buckets.allSatisfy { newYork.startOfDay(for: Date(timeIntervalSince1970: $0.start)).timeIntervalSince1970 == $0.start },
                "\(history.output)")
        let stats = try StepsStatisticsResult(json: JSONParser.parse(Array(try stepctl(agent, ["stats", "--json"]).output.utf8)))
        #expect(stats.start == weekAgo && stats.end == today && stats.buckets == 7, "\(stats)")
        let todayAnswer = try StepsQueryResult(json: JSONParser.parse(Array(try stepctl(agent, ["today", "--json"]).output.utf8)))
        #expect(todayAnswer.start == today, "\(todayAnswer)")
        #expect(agent.terminate() == 0)
    }

    /// samples list, sync export, steps and samples add read and show the agent's local times
    /// (they used this shell's), and --tz overrides that.
    @Test func listingsAndTypedTimesFollowTheAgentsZone() throws {
        let agent = try AgentProcess(arguments: ["--simulate", "builtin", "--replay-speed", "0.01"], environment: ["TZ": agentZone])
        let client = try agent.connect()
        // 00:30 in Berlin two days ago: 18:30 the day before in New York.
        let midnight = berlin.startOfDay(for: Date(timeIntervalSinceNow: -2 * 86_400)).timeIntervalSince1970
        let start = midnight + 1800
        _ = try client.call(.samplesAdd, ["source": "app:phone", "start": .double(start), "end": .double(start + 600), "steps": 777])
        let berlinTime = text(start, "MM-dd HH:mm:ss", zone: agentZone)
        let utcTime = text(start, "MM-dd HH:mm:ss", zone: "UTC")
        for command in [["samples", "list", "--last", "3d"], ["sync", "export"]] {
            let shown = try stepctl(agent, command)
            #expect(shown.status == 0, "\(shown.error)")
            #expect(shown.output.contains(berlinTime), "\(command): \(shown.output)")
            let utc = try stepctl(agent, command + ["--tz", "UTC"])
            #expect(utc.output.contains(utcTime) && !utc.output.contains(berlinTime), "\(command): \(utc.output)")
        }
        // The agent's day, typed as a date: its 777 steps (from New York's midnight they were outside).
        let day = text(midnight, "yyyy-MM-dd", zone: agentZone)
        let next = text(midnight + 36 * 3600, "yyyy-MM-dd", zone: agentZone)
        let steps = try stepctl(agent, ["steps", "--from", day, "--to", next])
        #expect(steps.output.contains("steps     777"), "\(steps.output)")
        #expect(steps.output.contains("period    \(day) 00:00 - \(next) 00:00"), "\(steps.output)")
        // A sample typed in local time lands at the agent's 01:00, not New York's.
        let added = try stepctl(agent, ["samples", "add", "--source", "app:typed", "--start", "\(day)T01:00", "--end", "\(day)T01:10", "--steps", "50", "--json"])
        #expect(added.status == 0, "\(added.error)")
        let listed = try client.call(.samplesList, ["start": .double(midnight), "end": .double(midnight + 86_400), "sources": ["app:typed"]])
        #expect(listed["samples"]?.arrayValue?.first?["start"]?.doubleValue == midnight + 3600, "\(listed.jsonText)")
        let badZone = try stepctl(agent, ["samples", "list", "--tz", "Mars/Olympus"])
        #expect(badZone.status == 64 && badZone.error.contains("unknown time zone 'Mars/Olympus'"), "\(badZone.error)")
        #expect(agent.terminate() == 0)
    }

    /// activity (current and --history) and watch show the agent's clock times.
    @Test func activityAndWatchShowTheAgentsZone() throws {
        let agent = try AgentProcess(arguments: ["--simulate", "builtin", "--replay-speed", "20"], environment: ["TZ": agentZone])
        _ = try agent.waitForStatus { ($0.value(atPath: "ledger.records")?.intValue ?? 0) > 0 }
        let json = try stepctl(agent, ["activity", "--history", "--json"])
        let segments = try JSONParser.parse(Array(json.output.utf8))["segments"]?.arrayValue ?? []
        let first = try #require(segments.first?["start"]?.doubleValue, "\(json.output)")
        let history = try stepctl(agent, ["activity", "--history"])
        #expect(history.output.split(separator: "\n").dropFirst().first?.hasPrefix(text(first, "MM-dd HH:mm:ss", zone: agentZone)) == true,
                "\(history.output)")
        let current = try stepctl(agent, ["activity", "--json"])
        if let since = try JSONParser.parse(Array(current.output.utf8))["start"]?.doubleValue {
            let shown = try stepctl(agent, ["activity"])
            #expect(shown.output.hasSuffix("since \(text(since, "yyyy-MM-dd HH:mm:ss", zone: agentZone))\n"), "\(shown.output)")
        }

        let watch = Process()
        watch.executableURL = URL(fileURLWithPath: AgentProcess.stepctlPath)
        watch.arguments = ["--socket", agent.socketPath, "watch"]
        watch.environment = ProcessInfo.processInfo.environment.merging(shellZone) { $1 }
        let out = Pipe()
        watch.standardOutput = out
        try watch.run()
        defer { if watch.isRunning { watch.terminate(); watch.waitUntilExit() } }
        var lines: [Substring] = []
        let deadline = Date().addingTimeInterval(30)
        var buffer = Data()
        while Date() < deadline, !lines.contains(where: { $0.contains("  steps ") }) {
            buffer += out.fileHandleForReading.availableData
            lines = String(decoding: buffer, as: UTF8.self).split(separator: "\n")
        }
        let before = text(Date().timeIntervalSince1970 - 60, "HH", zone: agentZone)
        let after = text(Date().timeIntervalSince1970, "HH", zone: agentZone)
        let update = try #require(lines.first { $0.contains("  steps ") }, "\(lines)")
        #expect(update.hasPrefix(before + ":") || update.hasPrefix(after + ":"), "\(update)")
        #expect(agent.terminate() == 0)
    }
}
