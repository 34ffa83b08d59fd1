@testable import MotionCore

/// `count` peaks `interval` s apart from `start`: a regular chain for the gate tests.
func chain(from start: Double, count: Int, interval: Double = 0.6) -> [Double] {
    (0..<count).map { start + interval * Double($0) }
}

/// Drives a step gate as `MotionEngine` does: before each peak, every window that has ended (one a
/// second from `firstWindow`, built by `window(end)`) is observed and the classifier's call on it
/// confirmed; then the peak is offered, called locomotion if `locomotion(next window's end)`.
/// `unsure` / `faint`: how sure the classifier is when the windows confirm (the engine's levels).
/// `closingWindow`: one more window after the last peak, so a chain still waiting is judged.
/// `sample`: the three-axis sample (g) at a time, fed to the gate at 25 Hz from 0 s up to each
/// window and peak as the engine feeds it (`StepGate.noteSample`); nil feeds none.
/// `magnitude`: a magnitude-only watch's |a| (g) at a time, fed the same way as the sample
/// (|a|, 0, 0), as the engine sees a `rieck-*` file; used when `sample` is nil.
/// `desk`: each window's feature vector, magnitude-only flag and locomotion for the minute of desk
/// work (`DeskMinute`), fed as the engine feeds it; nil feeds none.
/// `adopt`: the tempo switches to another band when the window ending at `at` has been observed,
/// and the gate adopts that band's chain (`StepGate.adoptChain`), as the engine does.
/// Returns the steps credited.
func creditedSteps(_ peaks: [Double], firstWindow: Double, unsure: Bool = false, faint: Bool = false,
                   closingWindow: Bool = false, locomotion: (Double) -> Bool = { _ in true },
                   sample: ((Double) -> (x: Double, y: Double, z: Double))? = nil,
                   magnitude: ((Double) -> Double)? = nil,
                   adopt: (at: Double, chain: BandChain)? = nil,
                   desk: ((Double) -> (values: [Double], magnitudeOnly: Bool, locomotion: Double))? = nil,
                   window: (Double) -> StepGate.WindowCadence) -> Int {
    var gate = StepGate(parameters: .fitted)
    var credited: [Double] = []
    var next = firstWindow
    let sample = sample ?? magnitude.map { magnitude in { (x: magnitude($0), y: 0.0, z: 0.0) } }
    var sampleIndex = 0
    func samples(until t: Double) {
        guard let sample else { return }
        while (Double(sampleIndex) + 0.5) / MotionEngine.internalRate <= t {
            let time = (Double(sampleIndex) + 0.5) / MotionEngine.internalRate
            let a = sample(time)
            gate.noteSample(x: a.x, y: a.y, z: a.z, magnitude: (a.x * a.x + a.y * a.y + a.z * a.z).squareRoot(), at: time)
            sampleIndex += 1
        }
    }
    func windowEnds(at end: Double) {
        samples(until: end)
        gate.observe(window(end), end: end)
        if let adopt, adopt.at == end { gate.adoptChain(adopt.chain) }
        if let desk {
            let reading = desk(end)
            gate.deskMinute.observe(values: reading.values, magnitudeOnly: reading.magnitudeOnly, locomotion: reading.locomotion)
        }
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
