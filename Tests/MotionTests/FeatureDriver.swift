@testable import MotionCore

/// The last window's features of `seconds` of 25 Hz samples from `sample(t)`, pushed as the engine
/// pushes them (|a| of the three axes, no band).
func windowFeatures(seconds: Double, _ sample: (Double) -> (Double, Double, Double)) -> WindowFeatures {
    var features = WindowFeatures()
    var t = 0.0
    while t < seconds {
        let (x, y, z) = sample(t)
        _ = features.push(x: x, y: y, z: z, magnitude: (x * x + y * y + z * z).squareRoot(), band: 0, at: t)
        t += 1 / WindowFeatures.rate
    }
    return features
}
