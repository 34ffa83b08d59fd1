@testable import MotionCore

/// Drives a step gate as `MotionEngine` does: before each peak, every window that has ended (one a
/// second from `firstWindow`, built by `window(end)`) is observed and the classifier's call on it
/// confirmed; then the peak is offered, called locomotion if `locomotion(next window's end)`.
/// `unsure` / `faint`: how sure the classifier is when the windows confirm (the engine's levels).
/// `closingWindow`: one more window after the last peak, so a chain still waiting is judged.
/// `magnitude`: the |a| (g) at a time, fed to the gate at the engine's 25 Hz from 0 s up to each
/// window and peak (nil: no samples, as before `MagnitudeImpacts`).
/// Returns the steps credited.
func creditedSteps(_ peaks: [Double], firstWindow: Double, unsure: Bool = false, faint: Bool = false,
                   closingWindow: Bool = false, locomotion: (Double) -> Bool = { _ in true },
                   magnitude: ((Double) -> Double)? = nil,
                   window: (Double) -> StepGate.WindowCadence) -> Int {
    var gate = StepGate(parameters: .fitted)
    var credited: [Double] = []
    var next = firstWindow
    var sample = 0
    func samples(until t: Double) {
        guard let magnitude else { return }
        while Double(sample) / MotionEngine.internalRate <= t {
            gate.noteMagnitude(magnitude(Double(sample) / MotionEngine.internalRate))
            sample += 1
        }
    }
    func windowEnds(at end: Double) {
        samples(until: end)
        gate.observe(window(end), end: end)
        gate.locomotionConfirmed(since: end - 5, unsure: unsure, faint: faint, steps: &credited)
    }
    for t in peaks {
        while next <= t {
            windowEnds(at: next)
            next += 1
        }
        samples(until: t)
        gate.advance(to: t)
        gate.offer(t, locomotion: locomotion(next), steps: &credited)
    }
    if closingWindow { windowEnds(at: next) }
    return credited.count
}
