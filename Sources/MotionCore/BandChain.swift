/// The chain of step candidates one gait band would have given the step gate (gate v2.15-C).
///
/// Why: the gate reads the peaks of the band `TempoSelector` picked, but the selector needs two
/// windows of a brisk cadence before it switches to the wide band, and the chain then waiting for
/// confirmation holds the narrow band's peaks of the seconds before: at 150-180 steps/min that band
/// merges steps (its peaks 0.3-0.6 s apart for a 0.33 s step), so the chain is irregular, and only
/// the wide band's peaks after the switch are credited once the walk confirms. A walk that starts
/// brisk lost its first 10-15 steps that way (`bangle-100` at ~180 held out: 75 of 100). Each band
/// keeps the chain it would have built (the gate's own rule, `StepGate.chainLink`), and when the band
/// changes the gate adopts that band's chain in place of the old band's (`StepGate.adoptChain`): the
/// same peaks the gate would hold had it read that band all along, confirmed by the same rules.
struct BandChain: Sendable {
    private var times: [Double]
    private var count = 0
    private var newest = -1
    private let parameters: DetectorParameters

    init(parameters: DetectorParameters) {
        times = [Double](repeating: 0, count: StepGate.capacity)
        self.parameters = parameters
    }

    mutating func reset() {
        count = 0
        newest = -1
    }

    /// A peak of this band at `t`.
    mutating func note(_ t: Double) {
        if count > 0 {
            switch StepGate.chainLink(after: t - times[newest], parameters: parameters) {
            case .doublePeak: return
            case .afterGap: count = 0
            case .next: break
            }
        }
        newest = (newest + 1) % times.count
        times[newest] = t
        count = min(count + 1, times.count)
    }

    /// Writes the chain's candidates later than `after` (the gate's last credited step: those
    /// before it were counted by a run) into `pending`, oldest first; returns how many.
    func copy(into pending: inout [Double], after: Double) -> Int {
        var kept = 0
        while kept < count && times[(newest - kept + times.count) % times.count] > after { kept += 1 }
        let n = min(kept, pending.count)
        for i in 0..<n { pending[i] = times[(newest - n + 1 + i + times.count) % times.count] }
        return n
    }
}
