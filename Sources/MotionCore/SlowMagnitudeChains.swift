/// Slow magnitude-only chains at a faint classifier (gate v2.18-S, issue 10 round 11).
///
/// Why: held out, the |a|-only model gives the slow rieck walks (37-52 steps/min) 0.2-0.6 locomotion
/// for most of their length, where gate v2.14 credits a slow chain (beyond the step lags' reach, its
/// intervals spread by at most 0.2, the window's dominant frequency at its rate) on 14 regular
/// candidates, 15-20 s of such a walk. Its chains break every 7-12 steps at a turn or a stop, so
/// `rieck-l2-12hz-bw2-slow-walking-sh` went 68 s without a credited step (77 of 96 held out). Since
/// gate v2.17-P (`PushOffPeaks`) a push-off no longer breaks a slow |a| chain, and 7 such candidates,
/// steady and at the window's own rhythm, are a walk: no real daily-life file, in-sample or held out,
/// gains a step from it. It acts with `PushOffPairs`: alone it leaves the half-period runs of the same
/// walks (held out worst file 17.8 %) and adds slow synthetic |a| arm work, which the pairs take back
/// (docs/motion.md, gate v2.18-S).
///
/// Only magnitude-only input: held out, a three-axis Bangle drive (`bangle-hughb-drive-18`) confirms a
/// 7-candidate slow chain at a faint classifier (10 -> 21 steps of 18, 3.8 false steps per still or
/// driving hour); the three-axis walks never needed it.
enum SlowMagnitudeChains {
    /// How many times the gate's `confirmSteps` a slow chain needs at a faint classifier.
    static func confirmFactor(magnitudeOnly: Bool) -> Int {
        magnitudeOnly ? 1 : StepGate.slowFaintFactor
    }
}
