/// On a noisy sensor the model-free road under a quiet hand meets a drive's road onset (activity rule
/// v2.18-A).
///
/// The onset of automotive needs `roadOnset` (12) road windows among the last `quietTurnSpan` (60):
/// vibration at the road level with a tenth of it along gravity (`isRoad`). On a noisy sensor that
/// level rises with the noise floor (`roadLevel`, up to 37.5 mg), and the held-out model's lead wavers
/// (stationary leads hold the count but do not add to it), so its 30 automotive windows can take longer
/// than the minute the road windows are counted over: under 0.03 g of white noise the person-fold model
/// led the Bangle drive `bangle-hughb-drive-18` with automotive for 29-51 windows (stops held) from
/// 102 s to 250 s, but by the time the count reached 30 (162-193 s) only 0-6 of the last minute's
/// windows were road windows (the wrist shaken across gravity, `vertical_share` below 0.1, or steadier
/// windows at 22-35 mg under the raised level), a walking lead at 252 s reset it, and the state waited
/// until 396 s. Over 102-225 s the step gate's model-free road evidence (`RoadEvidence`: 18 of the last
/// 120 windows at the same raised level under a hand barely moving across gravity, no chain forming)
/// was open. Two independent readings agree, the model's 30 automotive windows and that road,
/// so the onset's road condition is met. The sway, quiet-turn and wide-turn conditions stay.
///
/// Only where the sensor's noise raised the road level (`roadLevel` above `roadVibration`). On a quiet
/// sensor the vertical share of the road windows is what keeps a desk out (round 7), and the road
/// evidence reads no direction: the in-sample Bangle desk work under 50-150 mg zero-g offsets (an offset
/// adds no noise) opens it with windows at 20-58 mg, most of them with 1-7 % of it along gravity, and without this
/// limit it became 22 % automotive (the offset row's non-vehicle time 2.62 -> 3.19 %).
extension ActivityClassifier {
    /// Whether the road condition of the automotive onset holds: `roadOnset` road windows in the last
    /// minute, or the step gate's road evidence open (`Window.roadOpen`) on a sensor whose noise floor
    /// (`sensorNoiseFloor`, g; 0 when unknown) raised the road level.
    static func roadOnsetMet(roadWindows: Int, window: Window, noiseFloor: Double) -> Bool {
        roadWindows >= roadOnset || (window.roadOpen && roadLevel(noiseFloor: noiseFloor) > roadVibration)
    }
}
