import POSIXLayer
import SensorBus

/// The agent's calendar: what the ledger stamps, what "today" and every query's "now" mean.
/// Normally CLOCK_REALTIME. Under `--simulate-start` it is a simulated calendar that begins at the
/// given instant and follows the emulated chip's clock, so with `--replay-speed 1000` a week of
/// wear (day files, local midnights, a DST change, retention) passes in ten minutes: what
/// `scripts/soak` needs, since every measurement on a real clock covers minutes.
struct AgentWallClock {
    private let simulated: (start: Double, clock: any SensorClock, origin: Double)?

    /// CLOCK_REALTIME.
    static var real: AgentWallClock { AgentWallClock(simulated: nil) }

    /// A calendar starting at `start` (UTC seconds) now, one second per second of `clock`.
    static func simulated(startingAt start: Double, following clock: any SensorClock) -> AgentWallClock {
        AgentWallClock(simulated: (start, clock, clock.now()))
    }

    private init(simulated: (start: Double, clock: any SensorClock, origin: Double)?) {
        self.simulated = simulated
    }

    /// UTC seconds on this calendar.
    func now() -> Double {
        guard let simulated else { return SystemClocks.wall() }
        return simulated.start + (simulated.clock.now() - simulated.origin)
    }

    /// Calendar seconds per real second: a calendar delay divided by this is a poll timeout.
    var rate: Double { simulated?.clock.speed ?? 1 }

    var isSimulated: Bool { simulated != nil }
}
