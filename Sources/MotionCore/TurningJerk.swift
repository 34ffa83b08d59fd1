/// Arm work whose quick changes turn the acceleration instead of changing its size: talking with
/// the hands, scrubbing, combing roll and swing the forearm, so gravity sweeps through the axes
/// while |a| barely moves; a walk's quick changes are its footfalls, along gravity.
///
/// Why: the three-axis jerk (the mean length of the change of the acceleration vector from one
/// 25 Hz sample to the next, `jerk3_log`) is never below the jerk of |a| (`jerk_log`: the change
/// of its length), and the two are equal when the acceleration only grows and shrinks along its
/// own direction. The acceleration is mostly gravity, so a change along it is movement along
/// gravity: a walk's bounce, heel strikes and the centripetal pull of the swing at the bottom of
/// its arc, the fastest changes a walking body makes, while the arm's turn in the swing is slow
/// (once per stride). A forearm that rolls or sweeps turns the vector at nearly constant length:
/// the quick changes are across it. The index is the log10 ratio of the two jerks (rotation
/// invariant: both are lengths). Its ~10 s mean (`RecentMean`, as the other arm-work readings, over
/// the windows with step candidates), in every window of every three-axis walk of the development
/// set (the Bangle wrist walks, the Oxford phones, the ST wrist and phone walking, jogging and
/// running clips; as recorded and time-scaled to ~80, ~150 and ~180 steps/min), stays at or below
/// 0.37 (p99 0.11-0.34); synthetic gesturing is above 0.45 in 65 % of its windows, the dishes in
/// 56 %, and the real Bangle desk work sits at 0.40 (median) (docs/motion.md, "Quick turns of the
/// wrist"). `TurningArmWork` reads the same direction from the size of the movement, where a wrist
/// walk that turns as it swings reaches the arm work; the jerk weighs the quick changes, where the
/// footfalls keep a walk along gravity. While the mean is above `ceiling`, a chain waits and is
/// credited back whole once the mean falls and the chain still keeps its rhythm; a run already
/// credited goes on, and so does a chain within `StepGate.recentSeconds` of a walk (the hook in
/// `StepGate.confirm`, as for `TurningArmWork`).
/// Magnitude-only windows carry no direction and clear the mean.
struct TurningJerk: Sendable {
    /// The recent log10 ratio of the three-axis jerk to the |a| jerk, over the three-axis windows
    /// since it was cleared (a magnitude-only window or a gap clears it).
    private(set) var mean = RecentMean()
    /// The recent ratio; nil before the first three-axis window, after a magnitude-only one and after a gap.
    var turning: Double? { mean.value }
    /// Windows the mean needs before it judges (as `TurningArmWork.minWindows`).
    static let minWindows = 10
    /// The mean above which the quick changes are turns (the three-axis jerk 2.8 times the |a|
    /// jerk): 0.08 above the highest mean of any real walk's window (0.37, the Bangle wrist walk
    /// `bangle-hughb-walk-6605` time-scaled to ~150 steps/min; the Oxford phones 0.36, the ST clips
    /// 0.30). 0.5 leaves every real count as it is too, 0.13 from the walks, but holds fewer of the
    /// synthetic gesturing chains (833 instead of 627 false steps per hour); 0.4 would sit 0.03 from
    /// the walks.
    static let ceiling = 0.45

    /// Step candidates per second a window needs for its index to count: between bouts of arm work
    /// the wrist rests and the sensor's noise, about as large across gravity as along it, would
    /// pull the mean towards a walk's (a walk at 60-180 steps/min offers 1-3 candidates a second).
    static let minCandidateRate = 0.6

    private static let jerk3Feature = NamedFeature("jerk3_log")
    private static let jerkFeature = NamedFeature("jerk_log")
    private static let candidateRateFeature = NamedFeature("peak_rate")

    /// One window's evidence (the log10 ratio); nil for magnitude-only windows (their three-axis
    /// features are zero), a window with fewer than `minCandidateRate` step candidates a second,
    /// or a vector without the features.
    static func evidence(in values: [Double], magnitudeOnly: Bool) -> Double? {
        guard !magnitudeOnly, let rate = candidateRateFeature.value(in: values), rate >= minCandidateRate,
              let jerk3 = jerk3Feature.value(in: values), let jerk = jerkFeature.value(in: values) else { return nil }
        return jerk3 - jerk
    }

    /// Takes one window (`threeAxis` false: a magnitude-only window, which clears the mean;
    /// `evidence` nil: a three-axis window without enough candidates, which leaves it).
    mutating func observe(threeAxis: Bool, evidence: Double?) {
        guard threeAxis else {
            reset()
            return
        }
        if let evidence { mean.add(evidence) }
    }

    /// Whether a chain must wait: the recent quick changes turn the acceleration.
    var holdsBack: Bool {
        guard let turning = mean.formed(after: Self.minWindows) else { return false }
        return turning > Self.ceiling
    }

    mutating func reset() {
        mean.clear()
    }
}
