@testable import MotionCore
import StepdModel
import Testing

/// A run the activity state called running does not teach the walk memory (gate v2.21-J,
/// `JoggedRun`): peaks 0.56 s apart after it are a walk's steps, not strides.
@Suite struct JoggedRunRule {
    /// A window whose band repeats at `lag` with |a| dominant there (three-axis).
    private func window(correlation: Double, lag: Double) -> StepGate.WindowCadence {
        var window = StepGate.WindowCadence(stepCorrelation: correlation, stepLag: lag, dominantFrequency: 1 / lag)
        window.verticalShare = 0.4
        return window
    }

    /// 100 steps 0.29 s apart (to 29.2 s), 3 s without a peak, then 60 peaks 0.56 s apart whose
    /// windows repeat only loosely at the interval (a walk at 107 steps/min, one peak per step).
    private let jogThenWalk: [Double] = {
        let jog = (0..<100).map { 0.5 + 0.29 * Double($0) }
        let start = (jog.last ?? 0) + 3
        return jog + (0..<60).map { start + 0.56 * Double($0) }
    }()

    private func steps(activity: @escaping (Double) -> ActivityKind) -> Int {
        creditedSteps(jogThenWalk, firstWindow: 1, closingWindow: true, activity: activity) { t in
            t < 30.5 ? window(correlation: 0.8, lag: 0.29) : window(correlation: 0.4, lag: 0.56)
        }
    }

    @Test func aWalkAfterAJogIsNotReadAsStrides() {
        // The first run called running: the walk after it counts a step per peak.
        #expect(steps { t in t < 30.5 ? .running : .walking } == 160)
        // The same run called walking is a brisk walk: its memory reads the 0.56 s peaks as strides
        // (gate v2.20-R), 100 + 119.
        #expect(steps { _ in .walking } >= 216)
        // A moment's call of running (2 windows) is not a jog.
        #expect(steps { t in t >= 10 && t < 12 ? .running : .walking } >= 216)
    }

    @Test func aJogNeedsItsWindows() {
        var jogged = JoggedRun()
        for _ in 1..<JoggedRun.minRunningWindows { jogged.observe(.running) }
        jogged.observe(.walking)
        #expect(jogged.teachesWalkMemory)
        jogged.observe(.running)
        #expect(!jogged.teachesWalkMemory)
        jogged.reset()
        #expect(jogged.teachesWalkMemory)
    }
}
