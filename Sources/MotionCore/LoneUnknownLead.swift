import StepdModel

/// A lone unknown lead under an open road holds a drive's onset (activity rule v2.17-F).
///
/// The state becomes automotive after `automotiveOnset` (30) automotive-led windows, and any lead
/// but stationary (and stepless walking under the road, `roadHoldsEvidence`) resets the count. The
/// held-out model's lead on a road wavers: `stmlc-car-motion` held out by person counted 22
/// automotive windows when one window led unknown at 0.29 (automotive 0.43 the window before) and
/// the count restarted; the clip ended 10 short. A single unknown window right after an
/// automotive one, while the step gate's model-free road evidence is open (`RoadEvidence`), neither
/// counts nor resets; a second one in a row resets as before. Without the road the synthetic eating
/// became 2-8 % automotive (seeds 1-3) and the in-sample noise 0.01 g row 0.34 %.
extension ActivityClassifier {
    /// Whether a window led by `kind` right after an automotive-led window (`previousLead`, a class
    /// index into `MotionModel.classes`; -1 after a gap) keeps the automotive evidence: unknown,
    /// three axes, the road evidence open.
    static func loneUnknownHolds(_ window: Window, kind: ActivityKind, previousLead: Int) -> Bool {
        guard kind == .unknown, !window.magnitudeOnly, window.roadOpen,
              MotionModel.classes.indices.contains(previousLead) else { return false }
        return MotionModel.classes[previousLead] == .automotive
    }
}
