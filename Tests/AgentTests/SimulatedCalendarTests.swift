import ChipEmulation
import Foundation
import StepJSON
import Testing
@testable import StepdAgent

/// `--simulate-start`: the agent's calendar on the emulated chip's clock (what `scripts/soak`
/// runs a week on).
@Suite struct SimulatedCalendarTests {
    func parse(_ arguments: [String]) -> AgentOptions.ParseOutcome {
        AgentOptions.parse(arguments, defaultStateDirectory: "/state", defaultSocketPath: "/sock")
    }

    @Test func theStartIsUTCSecondsOrISO8601() {
        guard case .run(let iso) = parse(["--simulate", "builtin", "--simulate-start", "2026-10-24T23:59:00Z"]),
              case .run(let offset) = parse(["--simulate", "builtin", "--simulate-start=2026-10-25T01:59:00+02:00"]),
              case .run(let seconds) = parse(["--simulate", "builtin", "--simulate-start", "1792886340"]) else {
            Issue.record("expected run")
            return
        }
        #expect(iso.simulatedStart == 1_792_886_340)
        #expect(offset.simulatedStart == 1_792_886_340)
        #expect(seconds.simulatedStart == 1_792_886_340)
        #expect(parse(["--simulate-start", "tomorrow"])
            == .failure("--simulate-start takes UTC seconds or an ISO-8601 time such as 2026-10-21T00:00:00Z, got 'tomorrow'"))
        #expect(parse(["--board", "/etc/stepd/board.toml", "--simulate-start", "0"])
            == .failure("--simulate-start applies to --simulate or the built-in simulated board: a real sensor runs on the real clock"))
    }

    @Test func theCalendarFollowsTheSensorClockFromItsStart() {
        let clock = ManualClock(start: 500)
        let calendar = AgentWallClock.simulated(startingAt: 1_792_886_340, following: clock)
        #expect(calendar.now() == 1_792_886_340)
        clock.advance(to: 560)
        #expect(calendar.now() == 1_792_886_400)
        #expect(calendar.rate == 1)
        #expect(!AgentWallClock.real.isSimulated)
        // A step 10 sensor seconds ago happened 10 calendar seconds ago, whatever the replay speed.
        let mapping = SensorTimeMapping(sensorNow: 560, wallNow: calendar.now(), speed: 250 / 250)
        #expect(mapping.wall(atSensorTime: 550) == 1_792_886_390)
    }

    /// activity.current (and status.activity) on the simulated calendar: a walk begun at its
    /// start read as begun a few seconds (of real time) before "now", hours later on the calendar
    /// that the ledger, activity.query and activity.update follow.
    @Test func theCurrentActivityStartsOnTheSimulatedCalendar() throws {
        let simulatedStart = 1_792_872_000.0  // 2026-10-24T20:00:00Z
        let agent = try AgentProcess(arguments: ["--simulate", "builtin", "--replay-speed", "100",
                                                 "--simulate-start", "2026-10-24T20:00:00Z", "--log-level", "warning"],
                                     environment: ["TZ": "UTC"])
        let status = try agent.waitForStatus(timeout: 120) { status in
            status.value(atPath: "activity.type") == "walking" && (status["time"]?.doubleValue ?? 0) > simulatedStart + 600
        }
        let start = try #require(status.value(atPath: "activity.start")?.doubleValue, "\(status.jsonText)")
        // The embedded walk walks from its first seconds, and loops without a pause.
        #expect(start >= simulatedStart && start < simulatedStart + 60, "walking since \(start - simulatedStart) s into the calendar; \(status.jsonText)")
        #expect(agent.terminate() == 0)
    }

    /// The real agent a minute before midnight UTC: the ledger opens the next day's file and
    /// "today" starts again at midnight, on the simulated calendar, not the machine's.
    @Test func theLedgerRollsOverToTheNextDayFileAtSimulatedMidnight() throws {
        let agent = try AgentProcess(arguments: ["--simulate", "builtin", "--replay-speed", "100",
                                                 "--simulate-start", "2026-10-24T23:59:00Z", "--log-level", "warning"],
                                     environment: ["TZ": "UTC"])
        let ledger = agent.stateDirectory + "/ledger/"
        let status = try agent.waitForStatus(timeout: 120) { status in
            let today = status.value(atPath: "steps.today")?.intValue ?? 0
            let total = status.value(atPath: "steps.since_start")?.intValue ?? 0
            return FileManager.default.fileExists(atPath: ledger + "2026-10-25.steps") && today > 0 && total > today
        }
        #expect(FileManager.default.fileExists(atPath: ledger + "2026-10-24.steps"))
        #expect((status.value(atPath: "ledger.last_checkpoint")?.doubleValue ?? 0) >= 1_792_886_400)
        #expect(agent.terminate() == 0)
        let files = try FileManager.default.contentsOfDirectory(atPath: ledger).filter { $0.hasSuffix(".steps") }.sorted()
        #expect(files == ["2026-10-24.steps", "2026-10-25.steps"])
    }
}
