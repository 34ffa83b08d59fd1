import POSIXLayer

/// Monotonic seconds on the sensor's time base.
public protocol SensorClock: AnyObject {
    func now() -> Double
    /// Sensor seconds per real second: the agent divides a sensor-time delay by this to get its
    /// poll timeout.
    var speed: Double { get }
}

extension SensorClock {
    public var speed: Double { 1 }
}

/// CLOCK_MONOTONIC, the clock GPIO event timestamps use.
public final class MonotonicClock: SensorClock {
    public init() {}

    public func now() -> Double { SystemClocks.monotonic() }
}

/// Monotonic time since creation times `speed`, starting at 0: an emulated chip replaying a
/// recording N times faster than real time (`--replay-speed N`).
public final class ScaledClock: SensorClock {
    public let speed: Double
    private let base = MonotonicClock()
    private let origin: Double

    /// `speed` must be positive; values <= 0 are treated as 1.
    public init(speed: Double) {
        self.speed = speed > 0 && speed.isFinite ? speed : 1
        origin = base.now()
    }

    public func now() -> Double { (base.now() - origin) * speed }
}
