@testable import MotionCore

/// Drives a step gate as `MotionEngine` does: before each peak, every window that has ended (one a
/// second from `firstWindow`, built by `window(end)`) is observed and the classifier's call on it
/// confirmed; then the peak is offered, called locomotion if `locomotion(next window's end)`.
/// `unsure` / `faint`: how sure the classifier is when the windows confirm (the engine's levels).
/// `closingWindow`: one more window after the last peak, so a chain still waiting is judged.
/// `adopt`: the tempo switches to another band when the window ending at `at` has been observed,
/// and the gate adopts that band's chain (`StepGate.adoptChain`), as the engine does.
/// Returns the steps credited.
func creditedSteps(_ peaks: [Double], firstWindow: Double, unsure: Bool = false, faint: Bool = false,
                   closingWindow: Bool = false, locomotion: (Double) -> Bool = { _ in true },
                   adopt: (at: Double, chain: BandChain)? = nil,
                   window: (Double) -> StepGate.WindowCadence) -> Int {
    var gate = StepGate(parameters: .fitted)
    var credited: [Double] = []
    var next = firstWindow
    func windowEnds(at end: Double) {
        gate.observe(window(end), end: end)
        if let adopt, adopt.at == end { gate.adoptChain(adopt.chain) }
        gate.locomotionConfirmed(since: end - 5, unsure: unsure, faint: faint, steps: &credited)
    }
    for t in peaks {
        while next <= t {
            windowEnds(at: next)
            next += 1
        }
        gate.advance(to: t)
        gate.offer(t, locomotion: locomotion(next), steps: &credited)
    }
    if closingWindow { windowEnds(at: next) }
    return credited.count
}
