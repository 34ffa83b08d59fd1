import Testing
@testable import StepdAgent

/// `--sensor-clock-error` and `--sensor-clock-drift`: the simulated chip's oscillator.
@Suite struct SensorClockOptionTests {
    func parse(_ arguments: [String]) -> AgentOptions.ParseOutcome {
        AgentOptions.parse(arguments, defaultStateDirectory: "/state", defaultSocketPath: "/sock")
    }

    @Test func flagsReachTheSimulatedSensorPlan() {
        guard case .run(let options) = parse(["--simulate", "builtin", "--sensor-clock-error", "-4.5", "--sensor-clock-drift=0.5"]) else {
            Issue.record("expected run")
            return
        }
        #expect(options.sensorClockError == -4.5)
        #expect(options.sensorClockDrift == 0.5)
        guard case .success(let plan) = AgentLauncher.sensorPlan(options: options, defaultBoardPath: "/nonexistent/board.toml") else {
            Issue.record("built-in plan failed")
            return
        }
        #expect(plan.clockErrorPercent == -4.5)
        #expect(plan.clockDriftPercentPerMinute == 0.5)
        #expect(plan.describeSource().hasSuffix(", chip clock -4.5 %, chip clock drifting 0.5 %/min"))
    }

    @Test func outOfRangeAndRealBoardsAreRefused() {
        #expect(parse(["--sensor-clock-error", "20"]) == .failure("--sensor-clock-error takes a number from -15 to 15, got '20'"))
        #expect(parse(["--sensor-clock-drift", "x"]) == .failure("--sensor-clock-drift takes a number from -5 to 5, got 'x'"))
        let repository = String(#filePath.split(separator: "/").dropLast(3).joined(separator: "/"))
        guard case .run(let options) = parse(["--board", "/" + repository + "/boards/rpi4-lis3dh.toml", "--sensor-clock-error", "2"]) else {
            Issue.record("expected run")
            return
        }
        guard case .failure(let problem) = AgentLauncher.sensorPlan(options: options, defaultBoardPath: "/nonexistent/board.toml") else {
            Issue.record("a real board must refuse an emulated clock error")
            return
        }
        #expect(problem.message.contains("work only with a simulated sensor"))
        #expect(problem.status == .usage)
    }
}
