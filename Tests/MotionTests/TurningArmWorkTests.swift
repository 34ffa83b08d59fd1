@testable import MotionCore
import Testing

/// Three-axis arm work that |a| does not see (`TurningArmWork`): a chain waits while the recent
/// three-axis windows move across gravity 3.5 times as much as |a| moves.
@Suite struct TurningArmWorkTests {
    /// Peaks at `times`; a window every second from 1 s, called locomotion, with the band showing
    /// the cadence and the gait, a vertical share above the floor, and `turning(t)` (nil: a
    /// magnitude-only window).
    private func steps(_ times: [Double], interval: Double = 0.6, _ turning: (Double) -> Double?) -> Int {
        creditedSteps(times, firstWindow: 1) { end in
            var window = StepGate.WindowCadence(stepCorrelation: 0.8, stepLag: interval, dominantFrequency: 1 / interval)
            window.strideCorrelation = 0.8
            window.verticalShare = 0.4
            window.turning = turning(end)
            return window
        }
    }

    static let armWork = 0.8
    static let walk = 0.1

    @Test func aRhythmHiddenFromMagnitudeIsNoWalk() {
        #expect(steps(chain(from: 15, count: 60)) { _ in Self.armWork } == 0)
        // The same rhythm whose movement |a| shows, or seen by a magnitude-only watch, is a walk.
        #expect(steps(chain(from: 15, count: 60)) { _ in Self.walk } == 60)
        #expect(steps(chain(from: 15, count: 60)) { _ in nil } == 60)
    }

    @Test func aWalkAfterArmWorkIsCreditedBackOnceTheMeanFalls() {
        // Arm work until 25 s, then a walk: the mean falls below the ceiling within a few windows
        // and the chain (peaks 0.6 s apart from 15 s) is credited whole...
        #expect(steps(chain(from: 15, count: 60)) { t in t < 25 ? Self.armWork : Self.walk } == 60)
        // ...and nothing while the arm work lasts (17 peaks, until 24.6 s).
        #expect(steps(chain(from: 15, count: 17)) { t in t < 25 ? Self.armWork : Self.walk } == 0)
    }

    @Test func theMeanMustHaveFormed() {
        // A chain from the first seconds (the walk out of a car at the start of a recording) is
        // not judged before ten three-axis windows have formed the mean.
        #expect(steps(chain(from: 1, count: 60)) { _ in Self.armWork } == 60)
    }

    @Test func aWalkerWhoJustWalkedIsNotHeldBack() {
        // 100 steps of a walk end at 74.4 s; from 75 s the movement is hidden from |a| and a chain
        // starts 12 s later: within 90 s of a walk of 80 steps or more (`recentStepPeriod`) it
        // is the walk going on (a wrist turned while walking), and it is credited...
        let walk = chain(from: 15, count: 100), later = chain(from: 87, count: 40)
        let turning: (Double) -> Double? = { t in t < 75 ? Self.walk : Self.armWork }
        #expect(steps(walk + later, turning) == 140)
        // ...while the same chain without the walk before it waits.
        #expect(steps(later, turning) == 0)
    }

    @Test func theEvidenceIsReadFromThreeAxisWindows() throws {
        var values = [Double](repeating: 0, count: FeatureWindow.names.count)
        let horizontal = try #require(FeatureWindow.names.firstIndex(of: "horizontal_rms_log"))
        let magnitude = try #require(FeatureWindow.names.firstIndex(of: "magnitude_std_log"))
        values[horizontal] = -0.4
        values[magnitude] = -0.9
        let turning = try #require(StepGate.WindowCadence(features: values, magnitudeOnly: false)?.turning)
        #expect(abs(turning - 0.5) < 1e-12)
        // Magnitude-only windows carry no direction: no evidence, and they clear the mean.
        #expect(StepGate.WindowCadence(features: values, magnitudeOnly: true)?.turning == nil)
        var arm = TurningArmWork()
        for _ in 0..<TurningArmWork.minWindows { arm.observe(Self.armWork) }
        #expect(arm.holdsBack)
        arm.observe(nil)
        #expect(!arm.holdsBack && arm.hidden == nil)
    }
}
