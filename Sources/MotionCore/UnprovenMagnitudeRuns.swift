/// Magnitude-only runs that have not shown a gait, judged while they run (gate v2.16-B).
///
/// Why: a credited run whose band never repeated stride after stride (`StepGate.gaitShownCorrelation`)
/// is judged on its rhythm only after `StepGate.unprovenRunSeconds` (35 s), because the slow,
/// irregular rieck walks go that long without a gait window. Held out, the rieck shoe laces ran 35 s
/// on that allowance (74 false steps) and a dishwashing run 18 s (29 steps; the file has 14). Two readings
/// that `MagnitudeImpacts` and `MagnitudeArmWork` already keep tell them from the walks sooner:
/// - **a loose rhythm with jerky, impact-free |a|** (`rhythmIsLoose`): after `earlySeconds`, fewer than
///   `looseShare` of the run's windows keep its rhythm (`StepGate.windowKeepsRhythm`), the recent |a|
///   balance is above `jerkyBalance` (as much power above 6 Hz as in the gait band) and the recent
///   asymmetry below `impactCeiling` (no heel strikes). Shoe laces read 0.36-0.45 of the windows,
///   balance +0.03 to +0.06, asymmetry 0.11-0.16. The real walks keep their rhythm in most windows
///   or are smooth (balance -0.25 to -0.4); the slow rieck walks time-scaled to ~80-150 steps/min,
///   whose runs are as loose and whose balance rises with the tempo, keep their heel strikes
///   (asymmetry 0.18-0.52) whatever the tempo (docs/motion.md, "Magnitude-only runs that never show a
///   gait");
/// - **no impacts** (`lacksImpacts`): the reading that holds a waiting chain back (`MagnitudeImpacts.holdsBack`:
///   8 moving windows, asymmetry below 0.06, not a smooth pendulum) ends a run that has not shown
///   the gait. A dishwashing run confirms on the first windows of its movement, before the reading
///   has its 8 windows, and then goes on; the walks' runs, impact trains, never read that low.
/// The run ends as on the 35 s rule: chains then wait for a gait window (`StepGate.doubtSeconds`).
enum UnprovenMagnitudeRuns {
    /// Seconds into a run before its rhythm is judged early: at 8-12 s the slow rieck walks sped up
    /// to ~80 steps/min lose steps (MAPE 2.90 -> 2.96-3.01 % held out); at 15 s none does.
    static let earlySeconds = 15.0
    /// Share of the run's windows keeping its rhythm below which it is loose: shoe laces 0.36-0.45
    /// from 14 s on; the walks' long runs 0.8-0.99. At 15 s, 0.6 measures the same.
    static let looseShare = 0.5
    /// Recent |a| balance (`MagnitudeArmWork.balance`) above which the movement is jerky: the rieck
    /// walks read -0.25 to -0.4 (medians), shoe laces +0.03 to +0.06. Without it and `impactCeiling`
    /// the slow rieck walks lose their own loose runs (worst file 36.4 -> 50.9 %, held out).
    static let jerkyBalance = -0.1
    /// Recent |a| asymmetry (`MagnitudeImpacts.asymmetry`) below which the movement shows no heel
    /// strikes: shoe laces 0.11-0.16, the slow rieck walks time-scaled to ~80 / ~150 steps/min whose
    /// runs are loose 0.18-0.52. At 0.18 one of them loses 20 of 93 steps at ~80.
    static let impactCeiling = 0.15

    /// Whether a magnitude-only run `seconds` old that has not shown the gait, `rhythmWindows` of
    /// its `runWindows` keeping its rhythm, at the recent |a| `balance` and `asymmetry` (nil: no
    /// reading), is loose jerky arm work and ends.
    static func rhythmIsLoose(seconds: Double, rhythmWindows: Int, runWindows: Int, magnitudeOnly: Bool,
                              balance: Double?, asymmetry: Double?) -> Bool {
        guard magnitudeOnly, seconds > earlySeconds, let balance, let asymmetry else { return false }
        return Double(rhythmWindows) < looseShare * Double(runWindows) && balance > jerkyBalance && asymmetry < impactCeiling
    }

    /// Whether a run at `stepPeriod` (s) that has not shown the gait shows no impacts (the reading
    /// that holds a chain back, `MagnitudeImpacts.holdsBack`) at the recent |a| `balance`, and ends.
    static func lacksImpacts(_ impacts: MagnitudeImpacts, stepPeriod: Double, balance: Double?) -> Bool {
        impacts.holdsBack(stepPeriod: stepPeriod, balance: balance)
    }
}
