@testable import MotionCore
import Testing

/// Magnitude-only arm work (`MagnitudeArmWork`): a chain waits while the recent |a| windows put
/// as much power above 6 Hz as in the gait band and swing hard, at a step period of 0.5 s or more.
@Suite struct MagnitudeArmWorkTests {
    /// `peaks` peaks `interval` s apart from 1 s; each window (every second from 5 s) called locomotion,
    /// with the band showing the cadence (and the gait) and the magnitude-only evidence `evidence(t)`
    /// (nil: a three-axis window).
    private func steps(interval: Double = 0.6, peaks: Int = 60, gait: Double = 0.8, _ evidence: (Double) -> MagnitudeArmWork.Evidence?) -> Int {
        creditedSteps((0..<peaks).map { 1 + interval * Double($0) }, firstWindow: 5, locomotion: { $0 > 5 }) { end in
            var window = StepGate.WindowCadence(stepCorrelation: 0.8, stepLag: interval, dominantFrequency: 1 / interval)
            window.strideCorrelation = gait
            window.armWork = evidence(end)
            return window
        }
    }

    static let armWork = MagnitudeArmWork.Evidence(balance: 0.0, swing: -0.25)
    static let walk = MagnitudeArmWork.Evidence(balance: -0.3, swing: -0.25)

    @Test func vigorousJerkyMagnitudeOnlyRhythmIsNoWalk() {
        #expect(steps { _ in Self.armWork } == 0)
        // The same rhythm with its power in the gait band, or with no magnitude-only evidence, is a walk.
        #expect(steps { _ in Self.walk } == 60)
        #expect(steps { _ in nil } == 60)
    }

    @Test func weakOrBriskChainsAreNotJudged() {
        #expect(steps { _ in MagnitudeArmWork.Evidence(balance: 0.0, swing: -0.3) } == 0)
        // A slow, weak walk whose balance wanders up keeps its steps...
        #expect(steps { _ in MagnitudeArmWork.Evidence(balance: 0.0, swing: -0.45) } == 60)
        // ...and so does a brisk chain (150 steps/min), whose step harmonics reach above 6 Hz.
        #expect(steps(interval: 0.4) { _ in Self.armWork } == 60)
    }

    @Test func aWalkAfterArmWorkIsCreditedBackOnceTheEvidenceFalls() {
        // Arm work until 12 s, then a walk's balance: the mean passes the ceiling within a few
        // windows and the chain (peaks 0.6 s apart throughout) is credited whole.
        #expect(steps { t in t < 12 ? Self.armWork : Self.walk } == 60)
        // Nothing is credited while the arm work lasts (18 peaks, until 11.2 s).
        #expect(steps(peaks: 18) { t in t < 12 ? Self.armWork : Self.walk } == 0)
    }

    @Test func aRunWithoutAGaitEndsOnClearArmWork() {
        // Credited as a walk, then the movement turns clearly jerky and vigorous: a run whose band
        // never repeated stride after stride ends (the mean passes -0.1 about 9 windows later) and
        // the rest waits for a gait window; a run that showed the gait goes on.
        let clear = MagnitudeArmWork.Evidence(balance: 0.05, swing: -0.2)
        let ungaited = steps(gait: 0.3) { t in t < 15 ? Self.walk : clear }
        #expect(ungaited >= 20 && ungaited <= 45)
        #expect(steps(gait: 0.8) { t in t < 15 ? Self.walk : clear } == 60)
        // Evidence enough to hold a chain back is not enough to end a run.
        let doubtful = MagnitudeArmWork.Evidence(balance: -0.12, swing: -0.25)
        #expect(steps(gait: 0.3) { t in t < 15 ? Self.walk : doubtful } == 60)
        #expect(steps(gait: 0.3) { _ in doubtful } == 0)
    }

    @Test func theEvidenceIsReadFromMagnitudeOnlyWindows() throws {
        var values = [Double](repeating: 0, count: FeatureWindow.names.count)
        let gait = try #require(FeatureWindow.names.firstIndex(of: "gait_rms_log"))
        let high = try #require(FeatureWindow.names.firstIndex(of: "high_rms_log"))
        let swing = try #require(FeatureWindow.names.firstIndex(of: "peak_swing_log"))
        values[gait] = -0.7
        values[high] = -0.6
        values[swing] = -0.3
        let evidence = try #require(StepGate.WindowCadence(features: values, magnitudeOnly: true)?.armWork)
        #expect(abs(evidence.balance - 0.1) < 1e-12 && evidence.swing == -0.3)
        // Three-axis windows have the vertical share instead, and clear the means.
        #expect(StepGate.WindowCadence(features: values, magnitudeOnly: false)?.armWork == nil)
        var work = MagnitudeArmWork()
        work.observe(evidence)
        #expect(work.holdsBack(stepPeriod: 0.6) && !work.endsRun(stepPeriod: 0.6))
        work.observe(MagnitudeArmWork.Evidence(balance: 0.3, swing: -0.2))
        #expect(work.endsRun(stepPeriod: 0.6) && !work.endsRun(stepPeriod: 0.45))
        work.observe(nil)
        #expect(!work.holdsBack(stepPeriod: 0.6))
    }
}
