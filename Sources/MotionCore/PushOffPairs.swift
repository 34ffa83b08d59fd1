/// Heel strike and push-off pairs in a slow magnitude-only chain (gate v2.18-S, issue 10 round 11).
///
/// Why: on the magnitude-only watch a slow walk (37-52 steps/min, a step every 1.1-1.6 s) often
/// shows a second peak 0.3-0.5 s after the heel strike (the push-off). A chain of both confirms at
/// half the step period: its intervals alternate short / long (0.44 / 0.88 s), which the gate's
/// lopsided-gait tolerance (mean of two neighbouring intervals) accepts as a 0.66 s walk, and the
/// run that follows counts every push-off and fills every 1.3 s step with a "missed" one
/// (`rieck-l2-12hz-bw2-slow-walking-sh` 28 steps in its first 20 s, about 15 taken). A wrist walk's own
/// steps are nearly symmetric in time: on magnitude-only input no normal or fast walk's confirming
/// chain at 0.55-0.9 s has more than 2 of its last 5 neighbouring interval pairs this lopsided, the
/// slow walks' worst half-period chains 3-4 (a thin margin: one pair). Such a chain's step is the
/// pair: the run starts at twice the chain's mean interval and only the heel strikes (the peaks that
/// end a long interval) are steps; inside the run the refractory (0.55 of the period) then drops each
/// push-off.
///
/// Not read: three-axis input (a phone in a pocket or a purse gives lopsided intervals of real
/// steps, one peak per step: `oxford-samsung_carmelo_hard_frontpocket_1` confirms on 3 of 5), chains
/// outside `meanRange` (brisker ones are steps, slower ones already are the step), and windows whose
/// dominant frequency is brisk (`DetectorParameters.fastTempoHz`, 120 steps/min): the rieck slow walks
/// sped up to ~150 steps/min confirm such chains at one peak per two steps, whose pairs are no step.
/// Band readings measured and not kept (docs/motion.md, gate v2.18-S): the band's autocorrelation at
/// one and two periods over 10 s, the alternation of peak swings and of the |a| energy per interval
/// do not tell these chains from the normal walks.
enum PushOffPairs {
    /// Mean chain intervals (s) read: half the step of a 33-55 steps/min walk.
    static let meanRange = 0.55...0.9
    /// Neighbouring intervals are lopsided when the shorter is at most this share of the longer.
    static let lopsidedRatio = 0.6
    /// How many of the chain's last `pairsRead` neighbouring interval pairs must be lopsided.
    static let lopsidedPairs = 3
    static let pairsRead = 5

    /// Whether the chain `chain` (its candidates, oldest first, `mean` s apart on average) is heel
    /// strikes and push-offs: magnitude-only input, a mean in `meanRange`, a window whose dominant
    /// frequency (`dominantFrequency`, Hz; nil without a window) is below `briskFrequency`, and
    /// `lopsidedPairs` of its last `pairsRead` neighbouring interval pairs lopsided.
    static func holds(_ chain: ArraySlice<Double>, mean: Double, magnitudeOnly: Bool, dominantFrequency: Double?,
                      briskFrequency: Double) -> Bool {
        guard magnitudeOnly, meanRange.contains(mean), let frequency = dominantFrequency, frequency < briskFrequency,
              chain.count >= pairsRead + 2 else { return false }
        var lopsided = 0
        for i in (chain.endIndex - pairsRead - 1)..<(chain.endIndex - 1) {
            let before = chain[i] - chain[i - 1], after = chain[i + 1] - chain[i]
            if min(before, after) <= lopsidedRatio * max(before, after) { lopsided += 1 }
        }
        return lopsided >= lopsidedPairs
    }

    /// Whether the candidate at `index` of a paired chain (at least 3 candidates) is a heel strike:
    /// the interval ending at it is longer than the one after it (the push-off follows the heel
    /// strike closely); the chain's first and last candidates are read from their neighbouring pair.
    static func isHeelStrike(_ index: Int, in chain: ArraySlice<Double>) -> Bool {
        let first = chain.startIndex, last = chain.endIndex - 1
        if index == first { return chain[first + 1] - chain[first] < chain[first + 2] - chain[first + 1] }
        let before = chain[index] - chain[index - 1]
        if index == last { return before > chain[index - 1] - chain[index - 2] }
        return before > chain[index + 1] - chain[index]
    }
}
