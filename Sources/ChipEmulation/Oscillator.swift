/// The chip's own time base: real parts are not trimmed to their nominal rate. The MPU-6050's
/// internal oscillator is specified at ±3 % initial tolerance plus ±1 % over temperature; the
/// LIS3DH's output data rate is not trimmed at all. `errorPercent` is the offset at power-up,
/// `driftPercentPerMinute` a slow change (warming up), held once the error reaches
/// `limitPercent` (no oscillator runs away without bound).
public struct Oscillator: Sendable, Equatable {
    public static let limitPercent = 15.0

    public var errorPercent: Double
    public var driftPercentPerMinute: Double
    /// Sensor time the drift counts from.
    public var origin: Double

    public init(errorPercent: Double = 0, driftPercentPerMinute: Double = 0, origin: Double = 0) {
        self.errorPercent = errorPercent
        self.driftPercentPerMinute = driftPercentPerMinute
        self.origin = origin
    }

    public static let nominal = Oscillator()

    /// The rate error in percent at sensor time `time`.
    public func errorPercent(at time: Double) -> Double {
        let drifted = errorPercent + driftPercentPerMinute * (time - origin) / 60
        return max(-Self.limitPercent, min(Self.limitPercent, drifted))
    }

    /// True rate over nominal rate at `time`.
    public func factor(at time: Double) -> Double { 1 + errorPercent(at: time) / 100 }

    /// Whether `percent` is an error or drift an emulation accepts (within ±limitPercent).
    public static func accepts(_ percent: Double) -> Bool { percent.isFinite && abs(percent) <= limitPercent }
}
