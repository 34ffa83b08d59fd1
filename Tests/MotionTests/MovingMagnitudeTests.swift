import Glibc
@testable import MotionCore
import Testing

/// The |a| means of the magnitude-only arm-work rules count moving windows only (`MovingMagnitude`,
/// gate v2.19-G): a still wrist's noise reads as jerky arm work (balance about +0.3) and must not
/// judge the walk that follows it.
@Suite struct MovingMagnitudeTests {
    /// A still wrist's window as the features read it (the rieck still pads and the bouts' 15 s of rest):
    /// white noise, as much power above 6 Hz as in the gait band, no peak swinging.
    static let still = MagnitudeArmWork.Evidence(balance: 0.3, swing: -4, moving: false)
    /// The same window, were it counted (the means before v2.19-G).
    static let stillCounted = MagnitudeArmWork.Evidence(balance: 0.3, swing: -4, moving: true)
    /// A smooth walk's window: its |a| power in the gait band.
    static let walk = MagnitudeArmWork.Evidence(balance: -0.3, swing: -0.25)
    static let armWork = MagnitudeArmWork.Evidence(balance: 0.0, swing: -0.25)

    @Test func aWindowMovesFromTheSpreadOfItsMagnitude() throws {
        var values = [Double](repeating: 0, count: FeatureWindow.names.count)
        let spread = try #require(FeatureWindow.names.firstIndex(of: "magnitude_std_log"))
        values[spread] = log10(0.005 + 1e-4)
        #expect(!MovingMagnitude.isMoving(values))
        #expect(StepGate.WindowCadence(features: values, magnitudeOnly: true)?.armWork?.moving == false)
        values[spread] = log10(0.05 + 1e-4)
        #expect(MovingMagnitude.isMoving(values))
        #expect(StepGate.WindowCadence(features: values, magnitudeOnly: true)?.armWork?.moving == true)
    }

    @Test func stillWindowsLeaveTheMeansAsTheyAre() throws {
        var work = MagnitudeArmWork()
        for _ in 0..<15 { work.observe(Self.still) }
        // Rest alone forms no reading...
        #expect(work.balance == nil && work.swing == nil)
        // ...so the walk that follows is read from its first moving window.
        work.observe(Self.walk)
        #expect(try abs(#require(work.balance) + 0.3) < 1e-12)
        // Counted, the rest would read as jerky movement for about ten seconds into the walk.
        var counted = MagnitudeArmWork()
        for _ in 0..<15 { counted.observe(Self.stillCounted) }
        for _ in 0..<8 { counted.observe(Self.walk) }
        #expect(try #require(counted.balance) > UnprovenMagnitudeRuns.jerkyBalance)
        // A pause inside arm work keeps the arm work's reading: the chain after it still waits.
        var paused = MagnitudeArmWork()
        for _ in 0..<10 { paused.observe(Self.armWork) }
        for _ in 0..<10 { paused.observe(Self.still) }
        #expect(paused.holdsBack(stepPeriod: 0.6))
    }

    /// `peaks` peaks 0.7 s apart from 16 s after a still wrist until 15 s; the windows (each second
    /// from 5 s) called locomotion from 31 s (on the rieck bouts after rest the classifier takes
    /// 10-20 s), showing the cadence and the gait, magnitude-only, `rest` before 16 s and a smooth
    /// walk's evidence after; |a| samples from `magnitude`.
    private func steps(peaks: Int = 30, rest: MagnitudeArmWork.Evidence, _ magnitude: @escaping (Double) -> Double) -> Int {
        creditedSteps((0..<peaks).map { 16 + 0.7 * Double($0) }, firstWindow: 5, closingWindow: true, locomotion: { $0 > 31 },
                      confirms: { $0 >= 31 },
                      magnitude: magnitude) { end in
            var window = StepGate.WindowCadence(stepCorrelation: 0.8, stepLag: 0.7, dominantFrequency: 1 / 0.7)
            window.strideCorrelation = 0.8
            window.armWork = end < 16 ? rest : Self.walk
            return window
        }
    }

    @Test func aSmoothBoutAfterRestIsJudgedByItsOwnMovement() {
        // A smooth pendulum without heel strikes (a phone in the hand, a soft walker): its impacts
        // reading alone would hold it, its smooth balance exempts it (`MagnitudeImpacts.smoothBalance`).
        let pendulum: (Double) -> Double = { t in t < 15 ? 1.3 : MagnitudeImpactsTests.armWork(period: 0.7)(t) }
        #expect(steps(rest: Self.still, pendulum) == 30)
        // With the rest counted its noise still reads jerky (balance -0.19) when the classifier
        // calls the walk and the impacts reading has fallen (the movement's onset reads as an
        // impact for its first windows), and the 21 s bout waits until it ends.
        #expect(steps(rest: Self.stillCounted, pendulum) == 0)
    }
}
