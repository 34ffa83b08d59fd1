@testable import MotionCore
import Testing

/// Push-off peaks inside a slow magnitude-only chain (`PushOffPeaks`, gate v2.17-P): an early peak
/// inside a slow walk's step does not join the chain waiting for confirmation.
@Suite struct PushOffPeaksTests {
    /// The gate's count for `peaks`, every window (each second from 5 s) called locomotion, showing
    /// a rhythm at `interval`, magnitude-only unless `threeAxis`.
    private func steps(_ peaks: [Double], interval: Double, threeAxis: Bool = false) -> Int {
        creditedSteps(peaks.sorted(), firstWindow: 5, closingWindow: true) { _ in
            var window = StepGate.WindowCadence(stepCorrelation: 0.8, stepLag: min(interval, 0.76),
                                                dominantFrequency: 1 / interval)
            window.strideCorrelation = 0.6
            if !threeAxis { window.armWork = MagnitudeArmWork.Evidence(balance: 0, swing: -0.6) }
            return window
        }
    }

    /// A 50 steps/min walk (1.2 s) with a push-off 0.4 s after its fifth step.
    static let slowWalk = chain(from: 6, count: 14, interval: 1.2) + [6 + 4 * 1.2 + 0.4]

    @Test func aPushOffInASlowMagnitudeWalkDoesNotBreakItsChain() {
        // All 14 steps: without the rule the push-off makes the chain irregular and the steps
        // before it are never credited.
        #expect(steps(Self.slowWalk, interval: 1.2) == 14)
    }

    @Test func threeAxisInputKeepsEveryPeak() {
        // The rule reads magnitude-only input only: a three-axis chain takes the early peak.
        #expect(steps(Self.slowWalk, interval: 1.2, threeAxis: true) < 14)
    }

    @Test func onlyAnEarlyPeakOfASlowSteadyMagnitudeChainIsAPushOff() {
        let slowChain = chain(from: 0, count: 4, interval: 1.2)[...]
        #expect(PushOffPeaks.isPushOff(4.0, chain: slowChain, regularity: 0.35, magnitudeOnly: true))
        // Not early (0.6 s is half the step), not magnitude-only, or too short a chain.
        #expect(!PushOffPeaks.isPushOff(4.2, chain: slowChain, regularity: 0.35, magnitudeOnly: true))
        #expect(!PushOffPeaks.isPushOff(4.0, chain: slowChain, regularity: 0.35, magnitudeOnly: false))
        #expect(!PushOffPeaks.isPushOff(2.8, chain: slowChain.prefix(3), regularity: 0.35, magnitudeOnly: true))
        // 0.9 s chains (67 steps/min, the held-out PC work's 0.92 s) and brisker ones hold no push-off.
        #expect(!PushOffPeaks.isPushOff(3.0, chain: chain(from: 0, count: 4, interval: 0.9)[...], regularity: 0.35, magnitudeOnly: true))
        // An unsteady chain (1.2 s on average, one interval of 0.6 s) neither.
        #expect(!PushOffPeaks.isPushOff(4.0, chain: [0, 1.5, 2.1, 3.6][...], regularity: 0.35, magnitudeOnly: true))
        // Only the chain's last intervals count: a long chain ending in a steady slow beat.
        #expect(PushOffPeaks.isPushOff(8.2, chain: ([0, 0.5, 1, 4.2] + chain(from: 5.4, count: 3, interval: 1.2))[...],
                                       regularity: 0.35, magnitudeOnly: true))
    }
}
