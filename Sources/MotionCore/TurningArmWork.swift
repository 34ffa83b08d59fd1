/// Three-axis arm work that |a| does not see: the hand turns and sweeps across gravity while the
/// magnitude of the acceleration hardly changes.
///
/// Why: a walk moves whatever carries the sensor up and down once per step (the body's bounce,
/// and on a wrist the pendulum swing, whose arc rises at both ends), and movement along gravity
/// changes |a| directly, so the three-axis movement across gravity (`horizontal_rms_log`) is
/// about as large as the |a| movement (`magnitude_std_log`): their difference (log10) stays
/// below 0.33 in 95 % of the Bangle wrist walks' stepping windows and below 0.16 for the Oxford
/// phones. Combing, clapping, scrubbing and gesturing turn the forearm (gravity sweeps through the
/// axes, |a| stays near 1 g) and push the hand sideways: the movement across gravity is 2-4 times
/// the |a| movement (0.3-0.6). The vertical share (`StepGate.verticalFloor`) misses them where
/// part of the movement is along gravity; this ratio compares the movement with what |a| shows of
/// it. One window is noisy (a turn of the wrist while walking), so an exponential mean over the
/// three-axis windows (`gain` a window, about 10 s, as the vertical share) decides: while it is
/// above `ceiling`, a chain waits and is credited back whole once the mean falls and the chain
/// still keeps its rhythm. A run already credited goes on (a walker who turns the wrist keeps
/// walking), and so does a chain within `StepGate.recentSeconds` of a walk of
/// `StepGate.recentMinSteps` (the hook in `StepGate.confirm`). Magnitude-only windows carry no
/// direction and clear the mean.
struct TurningArmWork: Sendable {
    /// The recent log10 ratio of the movement across gravity to the |a| movement, over the
    /// three-axis windows since it was cleared (a magnitude-only window or a gap clears it).
    private(set) var mean = RecentMean()
    /// The recent ratio; nil before the first three-axis window, after a magnitude-only one and after a gap.
    var hidden: Double? { mean.value }
    /// Windows the mean needs before it judges: one window's value is not a mean (without it the
    /// first seconds of a recording are judged on a window or two: at a ceiling of 0.4 the Bangle
    /// wrist walk that opens `bangle-hughb-drive-18` lost 10 of its 18 steps).
    static let minWindows = 10
    /// The mean above which the movement is arm work (3.5 times the |a| movement): windows with
    /// at least 0.6 step candidates/s and a mean vertical share above the floor exceed it in 0.10 %
    /// of the Bangle wrist walks and 0.08 % of the Oxford walks, but 39 % of synthetic gesturing,
    /// 9 % of clapping and 8 of the 13 such windows of the real Bangle desk work and no-step files.
    /// Lower ceilings catch far more of the synthetic arm work (0.4: combing, clapping, dishes) but
    /// cost the Bangle wrist walk `bangle-hughb-walk-6605`, whose wrist turns as much in a few
    /// stretches (0.5: 44 of its steps time-scaled to ~150 steps/min held out; 0.4: 21 steps as
    /// recorded and 1.6 % at ~150; docs/motion.md, "Turning arm work").
    static let ceiling = 0.55

    private static let horizontalFeature = NamedFeature("horizontal_rms_log")
    private static let magnitudeFeature = NamedFeature("magnitude_std_log")

    /// One window's evidence (the log10 ratio); nil for magnitude-only windows (their three-axis
    /// features are zero) or a vector without the features.
    static func evidence(in values: [Double], magnitudeOnly: Bool) -> Double? {
        guard !magnitudeOnly, let horizontal = horizontalFeature.value(in: values),
              let magnitude = magnitudeFeature.value(in: values) else { return nil }
        return horizontal - magnitude
    }

    /// Takes one window's evidence (nil: a magnitude-only window, which clears the mean).
    mutating func observe(_ evidence: Double?) {
        guard let evidence else {
            reset()
            return
        }
        mean.add(evidence)
    }

    /// Whether a chain must wait: the recent movement is mostly hidden from |a|.
    var holdsBack: Bool {
        guard let hidden = mean.formed(after: Self.minWindows) else { return false }
        return hidden > Self.ceiling
    }

    mutating func reset() {
        mean.clear()
    }
}
