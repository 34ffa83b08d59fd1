/// A slow, smooth, impact-free |a| rhythm is a wrist at a steering wheel, not a walk (gate v2.19-V,
/// issue 10 round 12).
///
/// Why: a drive as a magnitude-only watch logs it (`stepbench robustness`'s "|a| watch" row: the Bangle
/// drives as the L1 or L2 norm times 1.2-1.4) was counted 320 false steps per drive hour held out. The
/// fold model, which never saw a wrist at the wheel as |a|, calls stretches of steering walking at
/// 0.76-0.93, and 7-10 of the wheel's |a| peaks 0.83-1.21 s apart confirm as a chain on the plain
/// regular-chain path (no hold open: no desk minute, no drive context on |a|) and run on for 5-30 s
/// (`bangle-hughb-drive-18` as its watch logs it, 12.5 Hz L1: 7 runs, 147 steps held out). The reading
/// that tells an |a| walk from arm work already says what they are: no heel strikes
/// (`MagnitudeImpacts`: recent asymmetry -0.13 to +0.03 at 13 of both drives' 16 confirmations; the
/// walks' impact trains 0.1-0.37). But it exempts a smooth pendulum (recent balance at or below
/// `MagnitudeImpacts.smoothBalance`), and a watch at 12.5 Hz sees nothing above 6 Hz, so the wheel
/// reads smooth (-0.44 to -0.68). The smooth pendulums that exemption is for are walks at a walking
/// pace: the Oxford phones in a hand or an armband and hughb's own wrist step at 0.5-0.75 s with no
/// impacts; slower than `slowestSmoothStep` (75 steps/min) every real |a| walk lands its heels (the
/// slow rieck walks read 0.1-0.37 at every chain). So from that step period on the exemption ends once
/// the reading is long (`evidenceWindows`): such a chain waits for impacts (credited back whole once
/// they show and it keeps its rhythm, as any chain `MagnitudeImpacts` holds), and such a run that has
/// not shown the gait ends (`UnprovenMagnitudeRuns.lacksImpacts`). A stride chain is judged at its
/// step period (half its interval): four of hughb's five impact-free walk chains at 0.91-0.98 s are
/// strides of a 0.45-0.49 s step (the fifth waits; the walk's count moves by 6-15 steps of 6605).
enum SlowSmoothMagnitude {
    /// The step period (s) from which a smooth, impact-free |a| rhythm is no walk: 75 steps/min. The
    /// wheel's chains confirm at 0.83-1.21 s (two more at 0.73 and 0.77 s stay counted); the impact-free
    /// chains of the walks step at 0.75 s at most (`bangle-hughb-walk-6605`, 0.62-0.75 s).
    static let slowestSmoothStep = 0.8
    /// Moving windows the impact reading must hold (20 s; the reading itself is a ~10 s mean) before
    /// it judges a smooth slow rhythm: a slow walk from rest (the bouts' 10 steps after 15 s still)
    /// reads low while its first impacts enter the mean. At 8 windows (the reading's own minimum) the
    /// 10-step bouts lost 0.9-1.1 points (93.9 -> 92.8 % held out by person) and the walks at ~80
    /// steps/min 0.04 points of MAPE, at 15 windows 0.1 point; 18-20 cost nothing; at 22 and 25 the
    /// drives keep one more false step and held-out daily life 5.5-7.6 per hour more.
    static let evidenceWindows = 20

    /// Whether a chain or run at `stepPeriod` (s) whose recent |a| balance is a smooth pendulum's is
    /// judged on its impact reading of `readingWindows` moving windows (`MagnitudeImpacts.holdsBack`).
    static func judgesSmooth(stepPeriod: Double, readingWindows: Int) -> Bool {
        stepPeriod >= slowestSmoothStep && readingWindows >= evidenceWindows
    }
}
