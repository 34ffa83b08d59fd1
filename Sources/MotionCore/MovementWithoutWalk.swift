/// Minutes of magnitude-only movement with no walk in them: the drive context on |a| (gate v2.20-V,
/// issue 10 round 13).
///
/// Why: a drive as a magnitude-only watch logs it (`stepbench robustness`'s "|a| watch" row) was still
/// counted 58.8 false steps per drive hour held out after `SlowSmoothMagnitude` (gate v2.19-V): the
/// wheel's chains that remain step at 0.73-0.77 s (inside the impact-free wrist walks' 0.62-0.75 s) or
/// read a few peaks as impacts, and every window reading at their confirmation overlaps a real walk's.
/// What the window does not show, the minutes before it do: the wrist at the wheel never rests (the |a|
/// spread stays above `MagnitudeImpacts.minimumSpread` for 359 and 406 s before the first false chains
/// of `bangle-hughb-drive-18` held out) and no walk was credited in that time. The real walks' chains
/// confirm at most 123 s into such movement (`bangle-hughb-walk-6605`, 82 and 123 s into its file;
/// every other walk 52 s or less), and the |a| bouts after 60 s of PC or desk work lose steps only when
/// the threshold is 60 s. On three-axis input the activity state opens the drive context
/// (`StepGate.afterDrive`); on |a| it never does (the |a| model does not know a wrist at the wheel), so
/// from `seconds` of such movement on a magnitude-only chain gets the drive context's hold: twice the
/// regular candidates unless it shows a walk (`ReleasedMagnitudeChains`, released as the desk minute
/// releases). A walk keeps its rhythm over 14 candidates and is credited whole; the wheel's loose
/// chains do not. The clock restarts only at a run that showed the gait
/// (`StepGate.gaitShownCorrelation`): the wheel's own false runs never do, so one false run does not
/// reopen the door for the next.
struct MovementWithoutWalk: Sendable {
    /// Seconds of moving |a| with no walk from which a chain gets the drive context's hold: 3 minutes,
    /// as long as the drive context stays open after the state was automotive
    /// (`StepGate.afterDriveSeconds`). At 60 s the |a| bouts after PC and desk work lose steps (10-step
    /// bouts after a real recording 68.1 -> 63.0 % held out) and a slow rieck walk in-sample 16 of its
    /// 98; from 90 to 300 s the drives measure the same, and at 120 and 180 s no real figure moves.
    static let seconds = 180.0

    /// The last step of the last run that showed the gait; -infinity before any and after a gap.
    private(set) var lastWalkStep = -Double.infinity

    /// Takes the end of a run (`StepGate.endRun`, `lastStep` its last credited step): only a run whose
    /// band repeated stride after stride (`showedGait`) was a walk.
    mutating func noteRunEnd(showedGait: Bool, lastStep: Double) {
        if showedGait { lastWalkStep = max(lastWalkStep, lastStep) }
    }

    /// Whether a chain whose last candidate is at `t` rises out of `seconds` of movement with no walk:
    /// on magnitude-only input, the impact reading's moving windows (`movingWindows`, one a second since
    /// the wrist last rested, `MagnitudeImpacts.reading`) and the time since the last walk's step both
    /// reach `seconds`.
    func holds(magnitudeOnly: Bool, movingWindows: Int, at t: Double) -> Bool {
        magnitudeOnly && Double(movingWindows) * Self.windowSeconds >= Self.seconds && t - lastWalkStep >= Self.seconds
    }

    /// Seconds between windows (`WindowFeatures.hop` samples at the engine's rate).
    static let windowSeconds = Double(WindowFeatures.hop) / MotionEngine.internalRate

    mutating func reset() { lastWalkStep = -Double.infinity }
}
