/// A new run that turns out to be three-axis arm work ends (gate v2.22-N): a run the gate credited on a
/// short regular chain, before it has counted a walk's worth of steps, ends at the first three-axis
/// window in which one of the arm-work waits that hold a chain at its confirmation (`TurningArmWork`,
/// `TurningJerk`, `UpwardPeaks`, `SwingAlignedPeaks`, `CirclingArmWork`, `WanderingTilt`:
/// `StepGate.armWorkHolding`) holds and could already judge when the run was confirmed (its mean had
/// formed: `StepGate.armWorkFormed`), unless a walk of `StepGate.recentMinSteps` steps ended within
/// `StepGate.recentSeconds` (the same exemption as at the confirmation).
///
/// Why: those waits are ~10 s means; they judge a chain only at its confirmation. Combing, scrubbing
/// and gesturing often confirm in the first seconds of a bout, before a mean has formed or while a
/// stretch of the stroke looks like a walk, and the run then goes on for as long as the strokes keep
/// their rhythm: at the synthetic arm work's confirmations (`stepbench daily-life`, seed 1, person
/// folds) 1816 steps were credited by the confirmations themselves and at least 1355 more by the runs
/// after them (combing 407, dishes 512, gesturing 295, clapping 141). A walk's body does not change what
/// it does a few seconds into a walk, while arm work whose first seconds looked like a walk shows the
/// evidence a few windows later. The waits' ceilings were set where chains wait; inside real runs some
/// margins are thin (`CirclingArmWork` meets one Oxford window inside a long run), so the bound is
/// measured: in the development set's recordings, clips and tempo / bout / hole copies no run younger
/// than `StepGate.recentMinSteps` steps, not right after a walk, meets any of them; of the robustness
/// rows none (without the formed-at-confirmation condition a 50-150 mg offset ended one, a purse walk,
/// 381 -> 376 of 364 steps) (docs/motion.md, "Arm work in a new run").
/// A run that ends this way loses nothing it has credited; its next peaks form a chain that waits on
/// the same evidence and is credited back whole once the evidence clears and the chain keeps its
/// rhythm. A run past `StepGate.recentMinSteps` steps is a walk (its period becomes the walk memory)
/// and is left alone: judging runs of any length changed real walks' counts.
/// Not read: the vertical share (`StepGate.verticalFloor`) and `SlowRhythmAcrossGravity`, whose
/// margins hold at confirmations only: inside real runs they end walks (the ST walking clip at
/// 0.9-1 s steps crosses the slow rhythm's ceiling 35 steps into a run; the vertical share ends runs
/// of `bangle-hughb-walk-6605` and moves every robustness row's summed error).
enum ArmWorkInNewRuns {
    /// Whether a run must end at a window: the window is three-axis (`threeAxis`; the waits read no
    /// magnitude-only window), the run has counted fewer than `StepGate.recentMinSteps` steps
    /// (`runSteps`), no walk ended within `StepGate.recentSeconds` before its last step (`afterWalk`),
    /// and one of the waits that hold now (`holding`) could already judge when the run was confirmed
    /// (`judgedBy`): a wait whose mean had not formed then (a walk out of a car in the first seconds of
    /// a recording) did not let the chain through on its reading, and does not judge the run later.
    /// `afterWalk` and `holding` are read only when the cheap conditions leave the question open:
    /// this runs every window of every run.
    static func endsRun(threeAxis: Bool, runSteps: Int, afterWalk: @autoclosure () -> Bool,
                        holding: @autoclosure () -> ArmWorkWaits, judgedBy: ArmWorkWaits) -> Bool {
        threeAxis && runSteps < StepGate.recentMinSteps && !judgedBy.isEmpty && !afterWalk()
            && !holding().intersection(judgedBy).isEmpty
    }
}

/// The six three-axis arm-work waits that hold a chain at its confirmation (`StepGate.confirm`), one bit each.
struct ArmWorkWaits: OptionSet, Sendable {
    let rawValue: UInt8
    static let turningArmWork = ArmWorkWaits(rawValue: 1 << 0)
    static let turningJerk = ArmWorkWaits(rawValue: 1 << 1)
    static let upwardPeaks = ArmWorkWaits(rawValue: 1 << 2)
    static let swingAligned = ArmWorkWaits(rawValue: 1 << 3)
    static let circling = ArmWorkWaits(rawValue: 1 << 4)
    static let wanderingTilt = ArmWorkWaits(rawValue: 1 << 5)
}
