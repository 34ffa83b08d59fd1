import Glibc
@testable import MotionCore
import Testing

/// Three-axis arm work whose quick changes turn the acceleration (`TurningJerk`): a chain waits
/// while the recent windows with step candidates have a three-axis jerk well above the |a| jerk.
@Suite struct TurningJerkTests {
    /// Peaks at `times`; a window every second from 1 s, called locomotion, with the band showing
    /// the cadence and the gait, a vertical share above the floor, a turning index below
    /// `TurningArmWork.ceiling`, and `jerk(t)` (nil: a magnitude-only window) at `rate(t)` step
    /// candidates a second.
    private func steps(_ times: [Double], interval: Double = 0.6, rate: @escaping (Double) -> Double = { _ in 1.7 },
                       _ jerk: @escaping (Double) -> Double?) -> Int {
        creditedSteps(times, firstWindow: 1) { end in
            var window = StepGate.WindowCadence(stepCorrelation: 0.8, stepLag: interval, dominantFrequency: 1 / interval)
            window.strideCorrelation = 0.8
            window.verticalShare = 0.4
            window.turning = 0.1
            if let index = jerk(end) {
                window.turningJerk = rate(end) >= TurningJerk.minCandidateRate ? index : nil
            } else {
                window.verticalShare = nil
            }
            return window
        }
    }

    static let armWork = 0.6
    static let walk = 0.2

    @Test func quickTurnsAreNoWalk() {
        #expect(steps(chain(from: 15, count: 60)) { _ in Self.armWork } == 0)
        // The same rhythm whose quick changes are along the acceleration, or seen by a
        // magnitude-only watch, is a walk.
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

    @Test func restBetweenBoutsLeavesTheMean() {
        // Gesturing from 1 s, the wrist resting (no candidates, the sensor's noise alone: an index
        // like a walk's) from 12 s, then gesturing again from 30 s: the rest does not dilute the
        // mean of the arm work, so the chain waits...
        let jerk: (Double) -> Double? = { t in t < 12 || t >= 30 ? Self.armWork : Self.walk }
        let rate: (Double) -> Double = { t in t < 12 || t >= 30 ? 1.7 : 0 }
        #expect(steps(chain(from: 30, count: 10), rate: rate, jerk) == 0)
        // ...while the same rest, counted, would have let it through.
        #expect(steps(chain(from: 30, count: 10), rate: { _ in 1.7 }, jerk) == 10)
    }

    @Test func theMeanMustHaveFormed() {
        // A chain from the first seconds (the walk out of a car at the start of a recording) is
        // not judged before ten windows with candidates have formed the mean.
        #expect(steps(chain(from: 1, count: 60)) { _ in Self.armWork } == 60)
    }

    @Test func aWalkerWhoJustWalkedIsNotHeldBack() {
        // 100 steps of a walk end at 74.4 s; from 75 s the quick changes turn and a chain starts
        // 12 s later: within 90 s of a walk of 80 steps or more (`recentStepPeriod`) it is the walk
        // going on, and it is credited...
        let walk = chain(from: 15, count: 100), later = chain(from: 87, count: 40)
        let jerk: (Double) -> Double? = { t in t < 75 ? Self.walk : Self.armWork }
        #expect(steps(walk + later, jerk) == 140)
        // ...while the same chain without the walk before it waits.
        #expect(steps(later, jerk) == 0)
    }

    /// The last window's features of 6 s of 25 Hz samples from `sample(t)`.
    private func features(_ sample: (Double) -> (Double, Double, Double)) -> WindowFeatures {
        windowFeatures(seconds: 6, sample)
    }

    private func index(_ features: WindowFeatures) throws -> Double {
        let names = FeatureWindow.names
        let jerk3 = try #require(names.firstIndex(of: "jerk3_log")), jerk = try #require(names.firstIndex(of: "jerk_log"))
        return features.values[jerk3] - features.values[jerk]
    }

    @Test func aRollingWristTurnsAndABounceDoesNot() throws {
        // A forearm rolling 40 degrees back and forth at 1 Hz: gravity sweeps through the axes at
        // constant length, the quick changes are across it.
        let roll = try index(features { t in
            let angle = 0.7 * sin(2 * .pi * t)
            return (sin(angle), 0, cos(angle))
        })
        #expect(roll > TurningJerk.ceiling + 0.5)
        // A bounce along gravity at 2 Hz, with a small sideways sway: the quick changes are along it.
        let bounce = try index(features { t in (0.05 * sin(.pi * t), 0, 1 + 0.3 * sin(4 * .pi * t)) })
        #expect(bounce < 0.1)
        // However the watch is worn: the index is a ratio of lengths.
        let tilted = try index(features { t in
            let (x, z) = (0.05 * sin(.pi * t), 1 + 0.3 * sin(4 * .pi * t))
            return (cos(1.1) * x + sin(1.1) * z, 0, cos(1.1) * z - sin(1.1) * x)
        })
        #expect(abs(tilted - bounce) < 1e-9)
    }

    @Test func theEvidenceIsReadFromThreeAxisWindowsWithCandidates() throws {
        var values = [Double](repeating: 0, count: FeatureWindow.names.count)
        let jerk3 = try #require(FeatureWindow.names.firstIndex(of: "jerk3_log"))
        let jerk = try #require(FeatureWindow.names.firstIndex(of: "jerk_log"))
        let rate = try #require(FeatureWindow.names.firstIndex(of: "peak_rate"))
        values[jerk3] = 0.2
        values[jerk] = -0.4
        values[rate] = 1.5
        let index = try #require(StepGate.WindowCadence(features: values, magnitudeOnly: false)?.turningJerk)
        #expect(abs(index - 0.6) < 1e-12)
        // A window without enough candidates gives no evidence...
        values[rate] = 0.4
        #expect(StepGate.WindowCadence(features: values, magnitudeOnly: false)?.turningJerk == nil)
        // ...and neither does a magnitude-only one.
        values[rate] = 1.5
        #expect(StepGate.WindowCadence(features: values, magnitudeOnly: true)?.turningJerk == nil)
        var arm = TurningJerk()
        for _ in 0..<TurningJerk.minWindows { arm.observe(threeAxis: true, evidence: Self.armWork) }
        #expect(arm.holdsBack)
        // A three-axis window without candidates leaves the mean; a magnitude-only one clears it.
        arm.observe(threeAxis: true, evidence: nil)
        #expect(arm.holdsBack)
        arm.observe(threeAxis: false, evidence: nil)
        #expect(!arm.holdsBack && arm.turning == nil)
    }
}
