import Foundation
import StepJSON
import StepProtocol
import StepSocket
import Testing

/// Relative times in stepctl ("--from -1h", "--last 2h", "--start -10m") count back from the
/// agent's clock (`status`'s `time`), not the client's: under `--simulate-start` the agent's
/// calendar is months away from this machine's, and "the last hour" asked about an hour the
/// agent's ledger had never reached.
@Suite(.serialized) struct StepctlAgentClockTests {
    /// 2025-03-10T12:00:00Z: a whole hour, months before any clock these tests run on.
    let simulatedStart = 1_741_608_000.0

    func stepctl(_ agent: AgentProcess, _ arguments: [String]) throws -> (status: Int32, output: String, error: String) {
        try runTool(AgentProcess.stepctlPath, ["--socket", agent.socketPath] + arguments, environment: ["TZ": "UTC"])
    }

    @Test func relativeTimesCountBackFromTheAgentsSimulatedClock() throws {
        // At 0.01x the simulated calendar moves a hundredth of a second per second.
        let agent = try AgentProcess(arguments: ["--simulate", "builtin", "--replay-speed", "0.01",
                                                 "--simulate-start", "2025-03-10T12:00:00Z", "--log-level", "warning"],
                                     environment: ["TZ": "UTC"])
        let client = try agent.connect()
        let status = try client.call(.status)
        let agentNow = try #require(status.value(atPath: "time")?.doubleValue, "\(status.jsonText)")
        #expect(abs(agentNow - simulatedStart) < 5, "\(status.jsonText)")
        // 500 steps between 11:30 and 11:40 on the agent's calendar.
        _ = try client.call(.samplesAdd, ["source": "app:phone", "start": .double(simulatedStart - 1800),
                                          "end": .double(simulatedStart - 1200), "steps": 500])

        let steps = try stepctl(agent, ["steps", "--from", "-1h", "--json"])
        #expect(steps.status == 0, "\(steps.error)")
        let query = try StepsQueryResult(json: JSONParser.parse(Array(steps.output.utf8)))
        #expect(abs(query.start - (simulatedStart - 3600)) < 5 && abs(query.end - simulatedStart) < 5, "\(steps.output)")
        #expect(query.steps == 500, "\(steps.output)")

        let history = try stepctl(agent, ["history", "--by", "hour", "--last", "2h", "--json"])
        #expect(history.status == 0, "\(history.error)")
        let collection = try StepsCollectionResult(json: JSONParser.parse(Array(history.output.utf8)))
        #expect(collection.buckets.first?.start == simulatedStart - 7200, "\(history.output)")
        #expect(collection.buckets.reduce(0) { $0 + $1.steps } == 500, "\(history.output)")

        // The two whole hours before the agent's current one: 10:00-12:00.
        let stats = try stepctl(agent, ["stats", "--by", "hour", "--last", "2h", "--json"])
        #expect(stats.status == 0, "\(stats.error)")
        let statistics = try StepsStatisticsResult(json: JSONParser.parse(Array(stats.output.utf8)))
        #expect(statistics.start == simulatedStart - 7200 && statistics.end == simulatedStart, "\(stats.output)")
        #expect(statistics.sum == 500, "\(stats.output)")

        let added = try stepctl(agent, ["samples", "add", "--source", "app:watch", "--start", "-10m", "--steps", "60", "--json"])
        #expect(added.status == 0, "\(added.error)")
        let listed = try stepctl(agent, ["samples", "list", "--last", "1h", "--json"])
        #expect(listed.status == 0, "\(listed.error)")
        let samples = try SamplesListResult(json: JSONParser.parse(Array(listed.output.utf8))).samples
        #expect(samples.map(\.steps).sorted() == [60, 500], "\(listed.output)")
        let watch = try #require(samples.first { $0.source == "app:watch" }, "\(listed.output)")
        #expect(abs(watch.start - (simulatedStart - 600)) < 5 && abs(watch.end - simulatedStart) < 5, "\(listed.output)")

        let activity = try stepctl(agent, ["activity", "--history", "--last", "1h", "--json"])
        #expect(activity.status == 0, "\(activity.error)")
        #expect(agent.terminate() == 0)
    }
    @Test func watchStampsUpdatesWithTheAgentsClock() throws {
        // Six hours from this machine's current hour, so no run of the test can pass on the client's clock.
        let now = Date().timeIntervalSince1970
        let start = (now / 3600).rounded(.down) * 3600 + 6 * 3600
        let startText = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: start))
        let agent = try AgentProcess(arguments: ["--simulate", "builtin", "--replay-speed", "20",
                                                 "--simulate-start", startText, "--log-level", "warning"],
                                     environment: ["TZ": "UTC"])
        // The watch connects once: wait until the agent's socket accepts.
        _ = try agent.connect()
        let watch = Process()
        watch.executableURL = URL(fileURLWithPath: AgentProcess.stepctlPath)
        watch.arguments = ["--socket", agent.socketPath, "watch"]
        watch.environment = ProcessInfo.processInfo.environment.merging(["TZ": "UTC"]) { $1 }
        let out = Pipe()
        watch.standardOutput = out
        try watch.run()
        defer { if watch.isRunning { watch.terminate(); watch.waitUntilExit() } }
        var lines: [Substring] = []
        var buffer = Data()
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, !lines.contains(where: { $0.contains("  steps ") }) {
            buffer += out.fileHandleForReading.availableData
            lines = String(decoding: buffer, as: UTF8.self).split(separator: "\n")
        }
        let update = try #require(lines.first { $0.contains("  steps ") }, "\(lines)")
        // 30 s at 20x is 10 simulated minutes: still the simulated start's hour.
        let hour = String(format: "%02d:", Int(start / 3600) % 24)
        #expect(update.hasPrefix(hour), "\(update), expected the hour \(hour) of \(startText)")
        #expect(agent.terminate() == 0)
    }
}
