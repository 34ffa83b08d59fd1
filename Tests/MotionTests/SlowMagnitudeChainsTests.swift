@testable import MotionCore
import Testing

/// Slow magnitude-only chains at a faint classifier (`SlowMagnitudeChains`, gate v2.18-S): 7 steady
/// peaks at the window's slow rhythm are a walk on magnitude-only input, 14 on three-axis input.
@Suite struct SlowMagnitudeChainsTests {
    /// A slow walk's window (no usable step-lag repeat, the dominant frequency at the step rate of
    /// `period`), magnitude-only unless `threeAxis`; the classifier faint throughout.
    private func faintSteps(_ peaks: [Double], period: Double, threeAxis: Bool = false) -> Int {
        creditedSteps(peaks, firstWindow: 1, faint: true, closingWindow: true, locomotion: { _ in false }) { _ in
            var window = StepGate.WindowCadence(stepCorrelation: 0.05, stepLag: 0.76, dominantFrequency: 1 / period)
            window.strideCorrelation = 0.3
            if !threeAxis { window.armWork = MagnitudeArmWork.Evidence(balance: 0, swing: -0.6) }
            return window
        }
    }

    @Test func eightSteadySlowMagnitudePeaksCountWhole() {
        // 0 with the three-axis factor (14 candidates) on magnitude-only input.
        #expect(faintSteps(slowPeaks(8), period: 1.1) == 8)
    }

    @Test func threeAxisInputStillNeedsFourteen() {
        #expect(faintSteps(slowPeaks(8), period: 1.1, threeAxis: true) == 0)
        #expect(faintSteps(slowPeaks(15), period: 1.1, threeAxis: true) == 15)
    }

    @Test func theWindowMustShowTheSlowRate() {
        // The dominant frequency twice the step rate: not the chain's rhythm.
        #expect(faintSteps(slowPeaks(8), period: 0.55) == 0)
    }

    @Test func theFactorIsOneOnMagnitudeOnlyInput() {
        #expect(SlowMagnitudeChains.confirmFactor(magnitudeOnly: true) == 1)
        #expect(SlowMagnitudeChains.confirmFactor(magnitudeOnly: false) == StepGate.slowFaintFactor)
    }
}
