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
}
