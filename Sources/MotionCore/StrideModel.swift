import StepdModel

/// Step length from cadence and height: faster steps are longer (the ratio of step length to
/// height grows roughly linearly with cadence in gait studies), clamped to walking/running range.
public struct StrideModel: Sendable, Equatable {
    public static let defaultHeight = 1.70
    public var height: Double

    public init(height: Double?) {
        // The range stepd --height and stepctl analyze --height check against: one range, so
        // a height either command accepts is never replaced by the default here.
        if let height, WearerHeight.metres.contains(height) {
            self.height = height
        } else {
            self.height = Self.defaultHeight
        }
    }

    /// Metres per step at `cadence` steps per second.
    public func stepLength(cadence: Double) -> Double {
        let ratio = min(max(0.20 + 0.12 * cadence, 0.25), 0.75)
        return height * ratio
    }

    /// Seconds per metre at `cadence`; nil when not moving.
    public func pace(cadence: Double) -> Double? {
        guard cadence > 0 else { return nil }
        return 1 / (cadence * stepLength(cadence: cadence))
    }
}
