@testable import MotionCore
import Testing

/// Gate v2.15-C: when the tempo switches to the wide band, a chain waiting for confirmation becomes
/// that band's own (`BandChain`, `StepGate.adoptChain`). A walk at 180 steps/min (0.333 s steps):
/// before the switch the 2.5 Hz band merged steps (peaks 0.33 and 0.67 s apart in turn), the wide
/// band showed every step. The classifier calls locomotion from the window at 6 s (the first
/// the gate sees: before it the engine asks the gate nothing), when the band switches.
@Suite struct BandChainAdoption {
    private let period = 1.0 / 3
    private var window: StepGate.WindowCadence {
        var window = StepGate.WindowCadence(stepCorrelation: 0.8, stepLag: period, dominantFrequency: 1 / period)
        window.strideCorrelation = 0.8
        return window
    }

    /// The wide band's peaks: every step from `from` to `to` s.
    private func wideSteps(from: Double, to: Double) -> [Double] {
        stride(from: from, to: to, by: period).map { $0 }
    }

    /// The narrow band's peaks up to 6 s, from `from`: steps merged by twos and threes, and a peak
    /// between two steps (the 2.5 Hz band at 3 Hz steps, as `bangle-100` at ~180 held out shows it).
    private func mergedSteps(from: Double) -> [Double] {
        [0.5, 0.95, 1.55, 1.83, 2.8, 3.1, 3.4, 3.68, 3.97, 4.3, 4.7, 5.2, 5.85].filter { $0 >= from }
    }

    private func chain(_ peaks: [Double]) -> BandChain {
        var chain = BandChain(parameters: .fitted)
        for t in peaks { chain.note(t) }
        return chain
    }

    private func steps(narrowUntilSwitch narrow: [Double], wide: [Double], adopting: Bool) -> Int {
        let peaks = narrow + wide.filter { $0 > 6 }
        let adopted = adopting ? (at: 6.0, chain: chain(wide.filter { $0 <= 6 })) : nil
        return creditedSteps(peaks, firstWindow: 6, closingWindow: true, locomotion: { $0 > 6 }, adopt: adopted) { _ in window }
    }

    @Test func aBriskWalkThatStartsOnTheNarrowBandCountsFromItsFirstStep() {
        let wide = wideSteps(from: 0.5, to: 10)
        let narrow = mergedSteps(from: 0.5)
        let adopted = steps(narrowUntilSwitch: narrow, wide: wide, adopting: true)
        #expect(adopted == wide.count, "\(adopted) of \(wide.count)")
        // Without the adoption the merged peaks before the switch are lost (the chain is credited
        // back only while it keeps the rhythm).
        let kept = steps(narrowUntilSwitch: narrow, wide: wide, adopting: false)
        #expect(kept <= wide.count - 5, "\(kept) of \(wide.count)")
    }

    @Test func theAdoptedChainReachesNoFurtherBackThanTheGatesOwn() {
        // The gate's chain began at 2.8 s (a pause before it on the narrow band); the wide band
        // showed peaks from 0.5 s: only those from about 2.8 s on (within the minimum interval: the
        // wider band's peak of a step comes a little earlier) are the walk the gate was judging.
        let wide = wideSteps(from: 0.5, to: 10)
        let narrow = mergedSteps(from: 2.8)
        let adopted = steps(narrowUntilSwitch: narrow, wide: wide, adopting: true)
        let from = 2.8 - DetectorParameters.fitted.minInterval
        #expect(adopted == wide.filter { $0 > from }.count, "\(adopted)")
        #expect(adopted < wide.count)
    }

    @Test func withoutAWaitingChainNothingIsAdopted() {
        let wide = wideSteps(from: 0.5, to: 10)
        let adopted = steps(narrowUntilSwitch: [], wide: wide, adopting: true)
        #expect(adopted == wide.filter { $0 > 6 }.count, "\(adopted)")
    }

    @Test func aBandChainKeepsTheGatesChainRules() {
        var chain = BandChain(parameters: .fitted)
        // A peak sooner than the minimum interval is a double peak; a gap beyond the longest
        // interval starts a new chain.
        for t in [0.5, 0.9, 0.95, 1.3, 4.0, 4.4, 4.8] { chain.note(t) }
        var pending = [Double](repeating: 0, count: StepGate.capacity)
        #expect(chain.copy(into: &pending, after: 0) == 3)
        #expect(Array(pending[0..<3]) == [4.0, 4.4, 4.8])
        // Only candidates after the last credited step.
        #expect(chain.copy(into: &pending, after: 4.4) == 1)
        #expect(pending[0] == 4.8)
    }
}
