import SensorBus

/// A sensor clock that only moves when told to: benchmarks and tests run minutes of sensor
/// time in milliseconds, deterministically.
public final class ManualClock: SensorClock {
    public var time: Double

    public init(start: Double = 0) { time = start }

    public func now() -> Double { time }

    /// Moves forward to `time` (never backwards: the clock is monotonic).
    public func advance(to time: Double) { self.time = max(self.time, time) }
}
