/// One accelerometer reading as it leaves a driver or a recording: `t` in seconds on the
/// source's monotonic clock, acceleration in g (gravity included) in the board's axes.
public struct AccelSample: Sendable, Equatable {
    public var t: Double
    public var x: Double
    public var y: Double
    public var z: Double

    public init(t: Double, x: Double, y: Double, z: Double) {
        self.t = t
        self.x = x
        self.y = y
        self.z = z
    }

    /// Magnitude of the acceleration vector in g.
    @inlinable public var magnitude: Double { (x * x + y * y + z * z).squareRoot() }
}
