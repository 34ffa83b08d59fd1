import StepdModel

/// Steering under the model-free road evidence holds a drive's onset (activity rule v2.17-V).
///
/// Why: the state becomes automotive after `automotiveOnset` (30) automotive-led windows, and any
/// lead but stationary resets the count. At the wheel the held-out model calls a few seconds of
/// steering walking, with no step credited (the gate's after-drive context holds those chains), and
/// each such window restarts the count: under 12.5-50 Hz resampling, clock drift, 8-bit output or
/// 0.03 g of noise the Bangle drives held out by person were 74-91 % automotive (`stepbench
/// robustness --folds`), the untransformed 93.3 %. Holding every stepless walking window was
/// measured in round 7 and not kept (the fidgeting start of an in-sample walk became a drive, a
/// hand-held still clip turned automotive). Here a stepless walking lead holds the evidence only
/// while the step gate's model-free road evidence is open (`RoadEvidence`: 18 of the last 120
/// windows vibrate at a road's level under a quiet hand and no chain forms); the walks reach 14 at
/// most (`bangle-hughb-walk-6605` pausing), and at 8 its pauses became automotive. Walking only:
/// holding unknown leads as well gave synthetic combing and dish washing 9-13 % automotive and the
/// desk under 0.01 g of noise 3.9 %. It neither counts nor resets, as a stop at a light does.
extension ActivityClassifier {
    /// Whether a window led by `kind` keeps the automotive evidence as a stepless steering window
    /// under an open road: three axes, walking, no step in the gate (`hasSteps`).
    static func roadHoldsEvidence(_ window: Window, kind: ActivityKind, gait: Gait, at t: Double) -> Bool {
        window.roadOpen && !window.magnitudeOnly && kind == .walking && !hasSteps(gait, at: t)
    }
}
