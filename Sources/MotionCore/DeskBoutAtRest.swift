/// A short walk away from the desk that ends at rest (gate v2.20-B, issue 10 round 13).
///
/// Why: `DeskMinute` (gate v2.18-Q) makes a magnitude-only chain out of a minute of desk work wait
/// for 21 regular candidates, which a 10-20-step bout never offers; its releases (v2.18-B stride,
/// v2.18-D keeping time) reach about half of them, and every window reading at the chain overlaps
/// the held-out PC chains the minute stops (docs/motion.md, "Desk minutes" and the sections after
/// it). What the chain does not show, what follows it does: a walk away from the desk ends, and the
/// wrist comes to rest with no other movement between (the bench's "bouts after daily life" end so:
/// held out by person, 39 of their 55 held chains reach a window at rest within 10 s). The PC chains
/// the minute holds are followed by more movement with candidates, a new chain, before any window at
/// rest (none of the six held-out ones nor the bench's padding minutes reach one, whatever the bound up
/// to 30 s). Rest is a window's |a| spread below 0.02 g over its 5 s (`MovingMagnitude`): held PC
/// chains do pause, and a pause of 3 s or less read from the samples credits padding chains.
/// So the regular span of a chain the minute held at a confident classifier is credited when a
/// magnitude-only window at rest follows within `restWithin` of its last candidate and no chain has
/// started since. The credit comes late: 5-10 s after the chain's last candidate (docs/motion.md,
/// "A walk away from the desk that ends at rest").
struct DeskBoutAtRest: Sendable {
    /// How long (s) after the held span's last candidate a window at rest may come: a 5 s window is at
    /// rest 5-6 s after a walk stops, and the held span may end a few candidates before the walk does
    /// (its last candidates not yet regular). 8-10 s credit the same bouts; every bound up to 30 s
    /// credits no PC chain (held out 1 point more of the 10-step bouts at 15 s, for 5 s more delay).
    static let restWithin = 10.0

    /// The candidates of the held regular span, oldest first (`count` of them).
    private var times: [Double]
    private(set) var count = 0

    init() { times = [Double](repeating: 0, count: StepGate.capacity) }

    mutating func reset() { count = 0 }

    /// The last candidate of the held span; nil when none is held.
    var last: Double? { count > 0 ? times[count - 1] : nil }

    /// Notes the regular span `chain` (in time order) of a chain `DeskMinute` held back at a confident
    /// classifier; a longer reading of the same chain replaces it.
    mutating func hold(_ chain: ArraySlice<Double>) {
        count = min(chain.count, times.count)
        for (i, t) in chain.suffix(count).enumerated() { times[i] = t }
    }

    /// Whether the held span is credited at the window ending at `end`: a magnitude-only window at rest
    /// (`resting`) within `restWithin` of the span's last candidate, no step credited and no run since
    /// (`lastCredited`, `walking`) and no chain started after it (`chainStart`: the first candidate of
    /// the chain waiting, nil when none). A span that can no longer be credited is forgotten.
    mutating func creditsAtRest(resting: Bool, magnitudeOnly: Bool, end: Double, walking: Bool, lastCredited: Double,
                                chainStart: Double?) -> Bool {
        guard let last else { return false }
        // The movement went on: a run, a credited step, or a new chain after the held one (PC work).
        if walking || last <= lastCredited || end - last > Self.restWithin || (chainStart.map { $0 > last } ?? false) {
            count = 0
            return false
        }
        return resting && magnitudeOnly
    }

    /// The held span's candidates, oldest first; forgets them.
    mutating func take(into steps: inout [Double]) {
        for i in 0..<count { steps.append(times[i]) }
        count = 0
    }
}
