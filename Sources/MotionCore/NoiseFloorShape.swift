import Glibc

/// A road cannot raise the level a road must reach (activity rule v2.17-F).
///
/// On a noisy sensor the level a road window needs rises with the noise floor the classifier
/// measured (`roadLevel`, `NoisyRoad.swift`): the lowest vibration of a window whose gravity
/// direction held. A recording (or a day of wear) that starts in a moving vehicle with the device
/// held steady takes its road as that floor: `stmlc-car-motion` measured 48.7 mg from its 11th
/// steady window, its road level rose from 20 to 37.5 mg, and the step gate's road evidence
/// (`RoadEvidence`) and the automotive onset read half its road as none.
///
/// The two differ in direction. A sensor's noise is independent on each axis, so a third of its
/// energy falls along gravity (`vertical_share` 0.31 on a device at rest under 0.03 g of white noise
/// per axis); a road shakes the car on its suspension, along gravity (the car clip's steady windows:
/// 0.58-0.93). The floor a road's level rises with (`sensorNoiseFloor`) is therefore learned only
/// from windows whose vertical axis carries no more energy than the two across it together
/// (`noiseVerticalShare`, 1.5 times the share of isotropic noise), or that vibrate below the road
/// level itself (no road at all: a coarse quantiser's flicker may fall on any axis). The still rule
/// keeps the floor of every steady window (`noiseFloor`): with the road's floor the synthetic typing
/// on the 6-bit watch lost 0.2-0.6 points of stationary time.
extension ActivityClassifier {
    static let noiseVerticalShare = 0.5

    /// Whether a three-axis window's movement can be a sensor's own noise (see above).
    static func isSensorNoise(_ values: [Double]) -> Bool {
        guard let share = verticalShareFeature.value(in: values), let vibration = vibrationFeature.value(in: values)
        else { return false }
        return share <= noiseVerticalShare || vibration < log10(roadVibration)
    }
}
