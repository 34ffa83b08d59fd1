import Glibc
@testable import MotionCore
import Testing

/// A slow, smooth, impact-free |a| rhythm is a wrist at a steering wheel, not a walk
/// (`SlowSmoothMagnitude`, gate v2.19-V): from a step period of 0.8 s on, a smooth |a| balance no
/// longer exempts a chain or a run from the impact reading once that reading holds 20 moving windows.
@Suite struct SlowSmoothMagnitudeTests {
    /// The wheel's |a| as an L1-norm watch logs it: the hand turns the wheel back and forth, |a|
    /// swings as far down as up (no heel strikes).
    static func wheel(period: Double) -> (Double) -> Double { MagnitudeImpactsTests.armWork(period: period) }

    /// `peaks` peaks `interval` s apart from `from` s; every window (each second from 5 s) called
    /// locomotion and showing the cadence, magnitude-only with a smooth |a| balance (`balance`, below
    /// `MagnitudeImpacts.smoothBalance`: a watch at 12.5 Hz sees nothing above 6 Hz); the window's step
    /// lag is `stepLag` (the interval unless given: half of it makes the chain strides) and its stride
    /// correlation `strideCorrelation` (0.8 shows the gait, which spares a run the run-time readings).
    private func steps(interval: Double = 1.0, peaks: Int = 40, from: Double = 30, balance: Double = -0.5,
                       stepLag: Double? = nil, strideCorrelation: Double = 0.8, _ magnitude: @escaping (Double) -> Double) -> Int {
        creditedSteps((0..<peaks).map { from + interval * Double($0) }, firstWindow: 5, closingWindow: true,
                      magnitude: magnitude) { _ in
            let lag = stepLag ?? interval
            var window = StepGate.WindowCadence(stepCorrelation: 0.8, stepLag: lag, dominantFrequency: 1 / lag)
            window.strideCorrelation = strideCorrelation
            window.armWork = MagnitudeArmWork.Evidence(balance: balance, swing: -0.25)
            return window
        }
    }

    @Test func aSlowSmoothRhythmWithoutImpactsIsNoWalk() {
        // The wheel turning at 1 s, 25 s into the movement: the chain waits (before gate v2.19-V the
        // smooth balance exempted it and all 40 peaks were credited).
        #expect(steps(Self.wheel(period: 1.0)) == 0)
        #expect(steps(interval: 0.85, Self.wheel(period: 0.85)) == 0)
        // The same smoothness at a walking pace is a smooth pendulum walk (a phone in the hand, a soft
        // wrist walker, 0.5-0.75 s a step), and a slow walk that lands its heels is a walk.
        #expect(steps(interval: 0.7, Self.wheel(period: 0.7)) == 40)
        #expect(steps(MagnitudeImpactsTests.walk(period: 1.0)) == 40)
        // A jerky balance was judged before (gate v2.15-B), whatever the reading's length.
        #expect(steps(balance: -0.2, Self.wheel(period: 1.0)) == 0)
    }

    @Test func aSlowBoutFromRestIsNotJudgedOnItsFirstWindows() {
        // A still wrist until 20 s, then the slow impact-free rhythm: a chain of 12 peaks from 28 s
        // confirms on 12-14 moving windows, a reading the impact rule itself would judge (8) but short
        // of 20 (a slow bout from rest whose impacts are still entering the mean): it is credited.
        // The same rhythm 20 s later is judged and waits.
        let stillThenWheel: (Double) -> Double = { t in t < 20 ? MagnitudeImpactsTests.still(t) : Self.wheel(period: 1.0)(t) }
        #expect(steps(peaks: 12, from: 28, stillThenWheel) == 12)
        #expect(steps(peaks: 12, from: 48, stillThenWheel) == 0)
    }

    @Test func aStrideChainIsJudgedAtItsStepPeriod() {
        // Peaks 1 s apart whose window repeats every 0.5 s are strides of a 0.5 s step: a smooth walk's
        // pace, not judged; every interval's middle step is credited too.
        #expect(steps(stepLag: 0.5, Self.wheel(period: 1.0)) == 79)
    }

    @Test func aSlowSmoothRunWithoutImpactsEnds() {
        // Heel strikes at 1 s until 50 s, then the wheel's rhythm at the same period; the run never
        // shows the gait (stride correlation 0.5), so the run-time reading judges it: the run ends once
        // the impact-free reading forms (`UnprovenMagnitudeRuns.lacksImpacts`) and the wheel's peaks
        // are not credited (before gate v2.19-V all 70 were).
        let walkThenWheel: (Double) -> Double = { t in t < 50 ? MagnitudeImpactsTests.walk(period: 1.0)(t) : Self.wheel(period: 1.0)(t) }
        let credited = steps(peaks: 70, strideCorrelation: 0.5, walkThenWheel)
        #expect(credited >= 20 && credited < 60)
    }
}
