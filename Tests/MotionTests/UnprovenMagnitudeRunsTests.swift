@testable import MotionCore
import Testing

/// Magnitude-only runs that have not shown a gait (`UnprovenMagnitudeRuns`, gate v2.16-B): a loose
/// rhythm with jerky, impact-free |a| ends after 15 s instead of 35 s, and a run ends once the
/// impacts reading (`MagnitudeImpacts`) would hold a chain back.
@Suite struct UnprovenMagnitudeRunsTests {
    /// `peaks` peaks `interval` s apart from `from` s, every window (each second from 5 s) called
    /// locomotion. A window shows the run's rhythm (band repeat and dominant frequency at the
    /// interval) when `keepsRhythm(end)`, else a rhythm at 0.3 s that fits neither one interval nor
    /// two; its band repeats at a stride lag by `gait`; it is magnitude-only with the |a| balance
    /// `balance` and a weak swing (below gate v2.12's floors, so that rule stays out of it) unless
    /// `threeAxis`. The gate reads the |a| samples from `magnitude`.
    private func steps(interval: Double, peaks: Int, from: Double = 6, gait: Double = 0.3, balance: Double,
                       threeAxis: Bool = false, keepsRhythm: @escaping (Double) -> Bool,
                       _ magnitude: @escaping (Double) -> Double) -> Int {
        creditedSteps((0..<peaks).map { from + interval * Double($0) }, firstWindow: 5, closingWindow: true,
                      magnitude: magnitude) { end in
            let lag = keepsRhythm(end) ? interval : 0.3
            var window = StepGate.WindowCadence(stepCorrelation: 0.8, stepLag: lag, dominantFrequency: 1 / lag)
            window.strideCorrelation = gait
            if !threeAxis { window.armWork = MagnitudeArmWork.Evidence(balance: balance, swing: -0.6) }
            return window
        }
    }

    /// One window in three keeps the rhythm: a loose one (tying laces).
    static func loose(_ end: Double) -> Bool { Int(end) % 3 == 0 }
    static func steady(_: Double) -> Bool { true }

    @Test func aLooseJerkyRhythmWithoutImpactsEndsEarly() {
        // Brisk (0.45 s, as the held-out shoe laces), so the impacts reading alone holds nothing:
        // 70 peaks (31 s, inside the 35 s allowance) at a jerky balance without heel strikes end
        // once the run is 15 s old, and the rest waits for a gait window.
        let arm = MagnitudeImpactsTests.armWork(period: 0.45)
        let ended = steps(interval: 0.45, peaks: 70, balance: 0.05, keepsRhythm: Self.loose, arm)
        #expect(ended >= 30 && ended <= 45)
        // A run keeping its rhythm, a smooth |a| (a walk's balance), heel strikes, a window showing
        // the gait, or three-axis input: the run goes on.
        #expect(steps(interval: 0.45, peaks: 70, balance: 0.05, keepsRhythm: Self.steady, arm) == 70)
        #expect(steps(interval: 0.45, peaks: 70, balance: -0.3, keepsRhythm: Self.loose, arm) == 70)
        #expect(steps(interval: 0.45, peaks: 70, balance: 0.05, keepsRhythm: Self.loose, MagnitudeImpactsTests.walk(period: 0.45)) == 70)
        #expect(steps(interval: 0.45, peaks: 70, gait: 0.8, balance: 0.05, keepsRhythm: Self.loose, arm) == 70)
        #expect(steps(interval: 0.45, peaks: 70, balance: 0.05, threeAxis: true, keepsRhythm: Self.loose, arm) == 70)
    }

    @Test func aRunWithoutImpactsEndsOnceTheReadingHoldsAChain() {
        // A still wrist until 6 s, then a rhythm without impacts at 0.7 s: the chain confirms on
        // the movement's first windows, before the impacts reading has its 8 (a walk from rest),
        // and the run ends once the reading holds; chains then wait for a gait window.
        let stillThenArm: (Double) -> Double = { t in t < 6 ? MagnitudeImpactsTests.still(t) : MagnitudeImpactsTests.armWork(period: 0.7)(t) }
        let ended = steps(interval: 0.7, peaks: 40, from: 7, balance: -0.2, keepsRhythm: Self.steady, stillThenArm)
        #expect(ended >= 7 && ended <= 20)
        // With heel strikes, a smooth pendulum's balance, a gait window, or brisk, the run goes on.
        let stillThenWalk: (Double) -> Double = { t in t < 6 ? MagnitudeImpactsTests.still(t) : MagnitudeImpactsTests.walk(period: 0.7)(t) }
        #expect(steps(interval: 0.7, peaks: 40, from: 7, balance: -0.2, keepsRhythm: Self.steady, stillThenWalk) == 40)
        #expect(steps(interval: 0.7, peaks: 40, from: 7, balance: -0.3, keepsRhythm: Self.steady, stillThenArm) == 40)
        #expect(steps(interval: 0.7, peaks: 40, from: 7, gait: 0.8, balance: -0.2, keepsRhythm: Self.steady, stillThenArm) == 40)
        let stillThenBrisk: (Double) -> Double = { t in t < 6 ? MagnitudeImpactsTests.still(t) : MagnitudeImpactsTests.armWork(period: 0.45)(t) }
        #expect(steps(interval: 0.45, peaks: 60, from: 7, balance: -0.2, keepsRhythm: Self.steady, stillThenBrisk) == 60)
    }

    @Test func theLooseReadingNeedsMagnitudeOnlyEvidence() {
        #expect(UnprovenMagnitudeRuns.rhythmIsLoose(seconds: 16, rhythmWindows: 5, runWindows: 14, magnitudeOnly: true,
                                                    balance: 0.05, asymmetry: 0.12))
        // Not before 15 s, not on a three-axis window, not without both readings.
        #expect(!UnprovenMagnitudeRuns.rhythmIsLoose(seconds: 14, rhythmWindows: 5, runWindows: 14, magnitudeOnly: true,
                                                     balance: 0.05, asymmetry: 0.12))
        #expect(!UnprovenMagnitudeRuns.rhythmIsLoose(seconds: 16, rhythmWindows: 5, runWindows: 14, magnitudeOnly: false,
                                                     balance: 0.05, asymmetry: 0.12))
        #expect(!UnprovenMagnitudeRuns.rhythmIsLoose(seconds: 16, rhythmWindows: 5, runWindows: 14, magnitudeOnly: true,
                                                     balance: nil, asymmetry: 0.12))
        #expect(!UnprovenMagnitudeRuns.rhythmIsLoose(seconds: 16, rhythmWindows: 5, runWindows: 14, magnitudeOnly: true,
                                                     balance: 0.05, asymmetry: nil))
        // Half the windows keeping the rhythm is not loose.
        #expect(!UnprovenMagnitudeRuns.rhythmIsLoose(seconds: 16, rhythmWindows: 7, runWindows: 14, magnitudeOnly: true,
                                                     balance: 0.05, asymmetry: 0.12))
    }
}
