import Glibc

/// The two clocks the agent reads. Pure modules never read either: the agent passes times in.
enum SystemClocks {
    /// CLOCK_MONOTONIC in seconds: deadlines and intervals.
    static func monotonic() -> Double { read(CLOCK_MONOTONIC) }

    /// CLOCK_REALTIME in seconds since the epoch (UTC): what the ledger and clients see.
    static func wall() -> Double { read(CLOCK_REALTIME) }

    private static func read(_ id: clockid_t) -> Double {
        var spec = timespec()
        clock_gettime(id, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1_000_000_000
    }
}

/// Maps times on the sensor clock (which runs `speed` times faster than real time under
/// `--replay-speed`) to wall-clock UTC. Each batch is anchored at "now" on both clocks rather than
/// once at start: a Raspberry Pi has no RTC, so the wall clock may jump when NTP syncs after boot,
/// and steps should carry the corrected time from then on.
struct SensorTimeMapping {
    var sensorNow: Double
    var wallNow: Double
    var speed: Double

    func wall(atSensorTime t: Double) -> Double {
        wallNow - (sensorNow - t) / speed
    }

    /// Real seconds until the sensor clock reaches `t`.
    func realDelay(untilSensorTime t: Double) -> Double {
        (t - sensorNow) / speed
    }
}
