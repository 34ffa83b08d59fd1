@testable import MotionCore
import Testing

/// A new run that turns out to be three-axis arm work ends (`ArmWorkInNewRuns`, gate v2.22-N): a run
/// of fewer than `StepGate.recentMinSteps` steps ends at a three-axis window in which an arm-work wait
/// that could judge at its confirmation holds, unless a walk ended within `StepGate.recentSeconds`.
/// Driven through `TurningJerk`, the window-level wait (the hook reads `StepGate.armWorkHolding`, the
/// same evidence `confirm` reads).
@Suite struct ArmWorkInNewRunsTests {
    /// Peaks at `times`; a window every second from 1 s, called locomotion, with the band showing
    /// the cadence and the gait, a vertical share above the floor, a turning index below
    /// `TurningArmWork.ceiling`, and the `TurningJerk` index `jerk(t)` (nil: a magnitude-only window).
    private func steps(_ times: [Double], _ jerk: @escaping (Double) -> Double?) -> Int {
        creditedSteps(times, firstWindow: 1) { end in
            var window = StepGate.WindowCadence(stepCorrelation: 0.8, stepLag: 0.6, dominantFrequency: 1 / 0.6)
            window.strideCorrelation = 0.8
            window.verticalShare = 0.4
            window.turning = 0.1
            if let index = jerk(end) {
                window.turningJerk = index
            } else {
                window.verticalShare = nil
            }
            return window
        }
    }

    static let armWork = 0.6
    static let walk = 0.2

    @Test func aRunThatTurnsIntoArmWorkEnds() {
        // 60 peaks 0.6 s apart from 15 s (to 50.4 s): a walk's index until 25 s, so the chain is
        // credited at 18.6 s; then the quick changes turn, and once the ~10 s mean passes the ceiling
        // (about 10 windows later) the run ends and the peaks after it wait: none of them is credited.
        let jerk: (Double) -> Double? = { t in t < 25 ? Self.walk : Self.armWork }
        let counted = steps(chain(from: 15, count: 60), jerk)
        #expect(counted < 40)
        // What it credited before stays credited: at least the peaks up to 25 s (17).
        #expect(counted >= 17)
        // The same run whose index stays a walk's goes on.
        #expect(steps(chain(from: 15, count: 60)) { _ in Self.walk } == 60)
        // Seen by a magnitude-only watch (no direction, the waits read nothing) it goes on too.
        #expect(steps(chain(from: 15, count: 60)) { t in t < 25 ? Self.walk : nil } == 60)
    }

    @Test func aWalkAfterTheArmWorkIsCreditedBackWhole() {
        // The run ends as above; the arm work stops at 45 s and a walk follows without a pause (peaks
        // 0.6 s apart to 80.4 s): the chain waits while the mean is above the ceiling and is credited
        // back whole once it falls, so only the steps of the arm work before the run ended are lost
        // to it, none of the walk's.
        let jerk: (Double) -> Double? = { t in t < 25 || t >= 45 ? Self.walk : Self.armWork }
        let whole = steps(chain(from: 15, count: 110), jerk)
        let armOnly = steps(chain(from: 15, count: 50), jerk)
        #expect(whole == 110)
        #expect(armOnly < 40)
    }

    @Test func aRunOfAWalksLengthIsLeftAlone() {
        // 130 peaks from 15 s (to 92.4 s): the quick changes turn only from 70 s, when the run has
        // counted more than `recentMinSteps` (a walk): it goes on.
        #expect(StepGate.recentMinSteps <= 90)
        #expect(steps(chain(from: 15, count: 130)) { t in t < 70 ? Self.walk : Self.armWork } == 130)
    }

    @Test func aRunRightAfterAWalkIsLeftAlone() {
        // A walk of 100 steps ends at 74.4 s; a new chain from 80 s (40 peaks, to 103.4 s) is credited,
        // and from 90 s the quick changes turn: within 90 s of the walk the run is the walk going on...
        let walk = chain(from: 15, count: 100), later = chain(from: 80, count: 40)
        let jerk: (Double) -> Double? = { t in t < 90 ? Self.walk : Self.armWork }
        #expect(steps(walk + later, jerk) == 140)
        // ...while the same run without the walk before it ends.
        #expect(steps(later, jerk) < 40)
    }

    @Test func aWaitThatCouldNotJudgeAtTheConfirmationDoesNotEndTheRun() {
        // A chain from the first seconds (a walk out of a car at the start of a recording) is credited
        // before `TurningJerk` has its ten windows; the mean that forms later does not end the run it
        // started, even at an arm-work index throughout...
        #expect(steps(chain(from: 1, count: 60)) { _ in Self.armWork } == 60)
        // ...while the same run confirmed after the mean had formed (a walk's index until 25 s) ends.
        #expect(steps(chain(from: 15, count: 60)) { t in t < 25 ? Self.walk : Self.armWork } < 40)
    }

    @Test func theDecision() {
        let all: ArmWorkWaits = [.turningArmWork, .turningJerk, .upwardPeaks, .swingAligned, .circling, .wanderingTilt]
        #expect(ArmWorkInNewRuns.endsRun(threeAxis: true, runSteps: 10, afterWalk: false, holding: .circling, judgedBy: all))
        #expect(!ArmWorkInNewRuns.endsRun(threeAxis: false, runSteps: 10, afterWalk: false, holding: .circling, judgedBy: all))
        #expect(!ArmWorkInNewRuns.endsRun(threeAxis: true, runSteps: StepGate.recentMinSteps, afterWalk: false, holding: .circling, judgedBy: all))
        #expect(!ArmWorkInNewRuns.endsRun(threeAxis: true, runSteps: 10, afterWalk: true, holding: .circling, judgedBy: all))
        #expect(!ArmWorkInNewRuns.endsRun(threeAxis: true, runSteps: 10, afterWalk: false, holding: [], judgedBy: all))
        // Only a wait that could judge at the confirmation ends the run.
        #expect(!ArmWorkInNewRuns.endsRun(threeAxis: true, runSteps: 10, afterWalk: false, holding: .circling,
                                          judgedBy: [.turningJerk, .upwardPeaks]))
        #expect(ArmWorkInNewRuns.endsRun(threeAxis: true, runSteps: 10, afterWalk: false, holding: [.circling, .upwardPeaks],
                                         judgedBy: [.turningJerk, .upwardPeaks]))
    }
}
