import Glibc
@testable import MotionCore
import Testing

/// Magnitude-only arm work without impacts (`MagnitudeImpacts`, gate v2.15-B): on magnitude-only
/// input a chain at a step period of 0.5 s or more waits while the recent |a| spreads no further
/// above its median than below it (no heel strikes).
@Suite struct MagnitudeImpactsTests {
    /// A wrist walk's |a| (g) at step period `period`: a heel-strike jolt of 0.7 g (40 ms wide at a
    /// 0.7 s step, scaled with the period, as a time-scaled walk) over the arm's swing at the stride.
    static func walk(period: Double) -> (Double) -> Double {
        { t in
            let phase = t / period - (t / period).rounded()
            return 1.3 + 0.1 * sin(Double.pi * t / period) + 0.7 * exp(-0.5 * pow(phase / 0.057, 2))
        }
    }

    /// Arm work at a sink or a desk: the hand moves back and forth, |a| swings as far down as up.
    static func armWork(period: Double) -> (Double) -> Double {
        { t in 1.3 + 0.25 * sin(2 * Double.pi * t / period) }
    }

    static func still(_: Double) -> Double { 1.3 }

    /// The asymmetry of the window after `seconds` of `signal` at 25 Hz.
    private func asymmetry(_ signal: (Double) -> Double, seconds: Double = 8) -> Double? {
        var impacts = MagnitudeImpacts()
        for i in 0..<Int(seconds * MotionEngine.internalRate) { impacts.push(signal(Double(i) / MotionEngine.internalRate)) }
        return impacts.windowAsymmetry()
    }

    @Test func theAsymmetryReadsImpactsWhateverTheTempo() throws {
        let walk = try #require(asymmetry(Self.walk(period: 0.7)))
        #expect(walk > 0.3)
        // The same walk played 1.6 times faster (a time-scaled tempo row) reads about the same:
        // percentiles do not move with the tempo, unlike the power above 6 Hz.
        let brisk = try #require(asymmetry(Self.walk(period: 0.7 / 1.6)))
        #expect(abs(brisk - walk) < 0.1)
        let arm = try #require(asymmetry(Self.armWork(period: 0.7)))
        #expect(abs(arm) < 0.03)
        // A still wrist gives no reading, nor does a window before the running mean has filled.
        #expect(asymmetry(Self.still) == nil)
        #expect(asymmetry(Self.walk(period: 0.7), seconds: 6) == nil)
    }

    /// `peaks` peaks `interval` s apart from `from` s; every window (each second from 5 s) called
    /// locomotion, showing the cadence and the gait, magnitude-only with the |a| balance `balance`
    /// (below gate v2.12's ceiling, so that rule stays out of it) unless `threeAxis`; |a| samples
    /// from `magnitude`.
    private func steps(interval: Double = 0.7, peaks: Int = 40, from: Double = 16, threeAxis: Bool = false,
                       balance: Double = -0.2, _ magnitude: @escaping (Double) -> Double) -> Int {
        creditedSteps((0..<peaks).map { from + interval * Double($0) }, firstWindow: 5, closingWindow: true,
                      magnitude: magnitude) { _ in
            var window = StepGate.WindowCadence(stepCorrelation: 0.8, stepLag: interval, dominantFrequency: 1 / interval)
            window.strideCorrelation = 0.8
            if !threeAxis { window.armWork = MagnitudeArmWork.Evidence(balance: balance, swing: -0.25) }
            return window
        }
    }

    @Test func aRhythmWithoutImpactsIsNoWalk() {
        #expect(steps(Self.armWork(period: 0.7)) == 0)
        // The same rhythm with heel strikes, or on three-axis input, is a walk; so is a smooth
        // pendulum without impacts (little |a| power above 6 Hz: a phone in the hand, a soft walker).
        #expect(steps(Self.walk(period: 0.7)) == 40)
        #expect(steps(threeAxis: true, Self.armWork(period: 0.7)) == 40)
        #expect(steps(balance: -0.3, Self.armWork(period: 0.7)) == 40)
        // Brisk chains (150 steps/min) are not judged, as for the |a| balance.
        #expect(steps(interval: 0.4, Self.armWork(period: 0.4)) == 40)
    }

    @Test func aWalkAfterArmWorkIsCreditedBackWhole() {
        // Arm work until 26 s, then heel strikes: the chain (peaks 0.7 s apart from 16 s) waits
        // and is credited whole once the mean shows the impacts.
        let armThenWalk: (Double) -> Double = { t in t < 26 ? Self.armWork(period: 0.7)(t) : Self.walk(period: 0.7)(t) }
        #expect(steps(armThenWalk) == 40)
        // Nothing is credited while the arm work lasts (14 peaks, until 25.1 s).
        #expect(steps(peaks: 14, armThenWalk) == 0)
    }

    @Test func aReadingNeedsEightMovingWindows() {
        // A still wrist until 20 s, then a rhythm without impacts: its first chain (10 peaks from
        // 20 s) confirms on 4-5 moving windows, too few for a reading (the first steps of a walk
        // from rest are not yet an impact train); 10 s into the movement a chain waits.
        let stillThenArm: (Double) -> Double = { t in t < 20 ? Self.still(t) : Self.armWork(period: 0.7)(t) }
        #expect(steps(peaks: 10, from: 20, stillThenArm) == 10)
        #expect(steps(peaks: 10, from: 31, stillThenArm) == 0)
    }
}
