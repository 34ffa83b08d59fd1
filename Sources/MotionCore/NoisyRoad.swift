/// Road vibration on a noisy sensor (activity rule v2.16-D).
///
/// White noise of 0.03 g per axis puts 20-25 mg into the 1 s deviation of |a| of a device at rest
/// (`stepbench robustness`: `bangle-hughb-static-0` 4 -> 24 mg), the 20 mg `roadVibration` of
/// `isRoad`, and a third of it falls along gravity (`vertical_share` 0.31): on such a sensor every
/// minute of a desk is a road (the Bangle desk work under that noise: up to 60 road windows of 60,
/// 100 % automotive). A road shakes a car on top of the sensor's noise, so the level a road
/// window needs rises with the noise floor the classifier measured (`sensorNoiseFloor`, the lowest
/// vibration of a window whose gravity direction held and whose movement is spread like a sensor's
/// noise, v2.17-F `NoiseFloorShape.swift`): `roadNoiseMargin` times the floor.
/// The floor is a minimum; the noise of a typical window is 1.3-1.6 times it (the noisy desk:
/// floor 16.5 mg, median 26 mg; the noisy rest 21 mg and 24 mg).
///
/// The floor counts up to `roadNoiseCap` (15 mg, a demand of at most 37.5 mg): above it the
/// "floor" is no sensor's rest but the road itself (a clip that starts in a moving car:
/// `stmlc-car-motion`, floor 49 mg; its windows vibrate at 30 / 55 / 83 mg, 10th / 50th / 90th
/// percentile), and a drive must still show a road over it. Below 8 mg of floor (every
/// untransformed recording but the two ST car clips, and a sensor with 0.01 g of noise) the
/// level stays `roadVibration`.
///
/// Measured on the windows of `stepbench robustness --only "noise 0.03" --write DIR`, most road
/// windows (vibration and `vertical_share`) in any 60 (the onset needs `roadOnset`, 12): the
/// noisy desk 60 -> 9; the noisy drives keep their onsets at the same window (the short drive
/// 51 road windows at most, the 36-minute drive 47); the ST car clip reaches 12 at its 24th
/// window instead of the 11th, before its 30th automotive one.
extension ActivityClassifier {
    static let roadNoiseMargin = 2.5
    static let roadNoiseCap = 0.015

    /// The vibration (g) a road window needs on a sensor whose noise floor is `noiseFloor` (g; 0
    /// when not measured yet).
    static func roadLevel(noiseFloor: Double) -> Double {
        max(roadVibration, roadNoiseMargin * min(noiseFloor, roadNoiseCap))
    }
}
