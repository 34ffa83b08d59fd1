@testable import MotionCore
import Testing

/// Heel strike and push-off pairs in a slow magnitude-only chain (`PushOffPairs`, gate v2.18-S): the
/// run starts at the pair's period and counts only the heel strikes.
@Suite struct PushOffPairsTests {
    /// The gate's count for `peaks`, every window (each second from 5 s) called locomotion, its
    /// dominant frequency `frequency` and no clear step-lag repeat (as on the slow rieck walks),
    /// magnitude-only unless `threeAxis`.
    private func steps(_ peaks: [Double], frequency: Double, threeAxis: Bool = false) -> Int {
        creditedSteps(peaks.sorted(), firstWindow: 5, closingWindow: true) { _ in
            var window = StepGate.WindowCadence(stepCorrelation: 0.1, stepLag: 0.76, dominantFrequency: frequency)
            window.strideCorrelation = 0.6
            if !threeAxis { window.armWork = MagnitudeArmWork.Evidence(balance: 0, swing: -0.6) }
            return window
        }
    }

    /// A 46 steps/min walk (1.3 s steps from 6 s), each heel strike followed by a push-off 0.44 s later.
    static let heelStrikes = chain(from: 6, count: 14, interval: 1.3)
    static let slowWalk = heelStrikes + heelStrikes.map { $0 + 0.44 }

    @Test func aSlowMagnitudeWalkCountsItsHeelStrikesOnly() {
        // 14 steps: without the rule its chain confirms at 0.65 s and every push-off counts (28).
        #expect(steps(Self.slowWalk, frequency: 1 / 1.3) == 14)
    }

    @Test func threeAxisInputCountsEveryPeak() {
        // A pocket phone's lopsided intervals are real steps: three-axis chains are not read.
        #expect(steps(Self.slowWalk, frequency: 1 / 1.3, threeAxis: true) == 28)
    }

    @Test func aBriskWindowKeepsEveryPeak() {
        // The window's rhythm at 2.3 Hz: a slow walk sped up, one peak per two steps, not pairs.
        #expect(steps(Self.slowWalk, frequency: 2.3) == 28)
    }

    @Test func onlyLopsidedChainsAtHalfASlowStepArePairs() {
        let pairs = Self.slowWalk.sorted().prefix(7)
        #expect(PushOffPairs.holds(pairs, mean: 0.65, magnitudeOnly: true, dominantFrequency: 0.8, briskFrequency: 2))
        // Not magnitude-only, no window, a brisk window.
        #expect(!PushOffPairs.holds(pairs, mean: 0.65, magnitudeOnly: false, dominantFrequency: 0.8, briskFrequency: 2))
        #expect(!PushOffPairs.holds(pairs, mean: 0.65, magnitudeOnly: true, dominantFrequency: nil, briskFrequency: 2))
        #expect(!PushOffPairs.holds(pairs, mean: 0.65, magnitudeOnly: true, dominantFrequency: 2.1, briskFrequency: 2))
        // A steady 0.65 s walk (92 steps/min), and a brisk lopsided one (mean 0.5 s).
        #expect(!PushOffPairs.holds(chain(from: 0, count: 7, interval: 0.65)[...], mean: 0.65, magnitudeOnly: true,
                                    dominantFrequency: 1.5, briskFrequency: 2))
        let brisk = [0, 0.35, 1.0, 1.35, 2.0, 2.35, 3.0][...]
        #expect(!PushOffPairs.holds(brisk, mean: 0.5, magnitudeOnly: true, dominantFrequency: 1, briskFrequency: 2))
        // Two lopsided pairs of five (0.5 / 0.8 once, then steady 0.65 s) are a walk's unevenness.
        let uneven = [0, 0.5, 1.3, 1.95, 2.6, 3.25, 3.9][...]
        #expect(!PushOffPairs.holds(uneven, mean: 0.65, magnitudeOnly: true, dominantFrequency: 1, briskFrequency: 2))
    }

    @Test func aHeelStrikeEndsTheLongInterval() {
        let pairs = [6, 6.44, 7.3, 7.74, 8.6][...]
        #expect((0..<5).map { PushOffPairs.isHeelStrike($0, in: pairs) } == [true, false, true, false, true])
        let startingOnAPushOff = [6.44, 7.3, 7.74, 8.6, 9.04][...]
        #expect((0..<5).map { PushOffPairs.isHeelStrike($0, in: startingOnAPushOff) } == [false, true, false, true, false])
    }
}
