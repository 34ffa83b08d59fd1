/// Push-off peaks inside a slow magnitude-only chain (gate v2.17-P, issue 10 round 10).
///
/// Why: on the magnitude-only watch a very slow walk (37-55 steps/min, a step every 1.1-1.6 s)
/// gives a second, early peak inside some steps (the push-off, or a second bump of the same step)
/// at a third of the step period or less, too far from the step to be a double peak
/// (`DetectorParameters.minInterval`). Joined to the chain waiting for confirmation it breaks the
/// chain's regularity, so the walk's steps are never confirmed: in-sample
/// `rieck-l2-25hz-bw4-slow-walking2` counted 35 of 55, its steady 1.1-1.4 s steps at 40-60 s lost to
/// a peak 0.40 s after a step. A chain whose last intervals are steady at such a slow step takes no
/// candidate that early; the next one then lands on the chain's beat or breaks it as before.
///
/// Only chains at a step period of `minChainInterval` or more (60 steps/min or slower) are read,
/// the slow walks this is for: at 0.9 s the held-out PC work `rieck-l2-12hz-bw2-pc-working3`
/// confirms a 0.92 s chain (7 -> 20 false steps). Brisker walks never reach it, so the lopsided
/// intervals of pocket and purse walks (1.2 peaks per step) are untouched; and only magnitude-only
/// input, whose slow walks show it. Runs are untouched: inside a run the refractory
/// (`DetectorParameters.refractory`, 0.55 of the period) already drops such a peak.
/// Holding the early peak and letting it join when the next candidate misses the beat was measured
/// too: the same walks, fewer 10-step bouts held out (docs/motion.md, gate v2.17-P).
enum PushOffPeaks {
    /// Shortest mean interval (s) of the chain's last `chainIntervals` intervals: 60 steps/min.
    static let minChainInterval = 1.0
    /// A candidate sooner than this share of the chain's interval after its last one is early.
    static let earlyShare = 0.45
    /// How many of the chain's last intervals must be steady (within the gate's regularity).
    static let chainIntervals = 3

    /// Whether a candidate at `t`, offered to the chain `chain` (its candidates, oldest first) with
    /// the gate's relative `regularity`, is a push-off inside the chain's step.
    static func isPushOff(_ t: Double, chain: ArraySlice<Double>, regularity: Double, magnitudeOnly: Bool) -> Bool {
        guard magnitudeOnly, chain.count > chainIntervals, let last = chain.last else { return false }
        let first = chain.endIndex - chainIntervals - 1
        let mean = (last - chain[first]) / Double(chainIntervals)
        guard mean >= minChainInterval, t - last < earlyShare * mean else { return false }
        for index in first..<(chain.endIndex - 1) where abs(chain[index + 1] - chain[index] - mean) > regularity * mean {
            return false
        }
        return true
    }
}
