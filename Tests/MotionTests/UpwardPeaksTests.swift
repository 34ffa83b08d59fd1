@testable import MotionCore
import Testing

/// Arm work whose |a| peaks do not push up (`UpwardPeaks`, gate v2.15-A): a chain waits while the
/// recent peaks' acceleration beyond gravity points across it (a clap, a comb's return), and is
/// credited when it points up along gravity (a step's bounce and heel strike).
@Suite struct UpwardPeaksTests {
    /// Where a peak's acceleration points: up along gravity (a step), across it (arm work).
    enum Push { case up, across }

    /// The samples of a slanted wrist at rest under gravity, pushed at each of `peaks` as `push(t)`
    /// says (`SlantedWrist.samples`).
    private static func samples(_ peaks: [Double], rotated: Bool = false, _ push: @escaping (Double) -> Push)
        -> (Double) -> (x: Double, y: Double, z: Double) {
        SlantedWrist.samples(peaks, rotated: rotated) { push($0) == .up ? SlantedWrist.gravity : SlantedWrist.across }
    }

    /// Steps credited for `peaks`, with a window every second from 1 s called locomotion whose band
    /// shows the cadence and the gait and whose vertical share is above the floor (the other rules
    /// pass); the samples as `samples` above, or none.
    private func steps(_ peaks: [Double], withSamples: Bool = true, rotated: Bool = false,
                       _ push: @escaping (Double) -> Push) -> Int {
        creditedSteps(peaks, firstWindow: 1, sample: withSamples ? Self.samples(peaks, rotated: rotated, push) : nil) { _ in walkingThreeAxisWindow() }
    }

    @Test func peaksAcrossGravityAreNoWalk() {
        let peaks = prelude(from: 1, seconds: 12) + chain(from: 15, count: 60)
        #expect(steps(peaks) { _ in .across } == 0)
        #expect(steps(peaks, rotated: true) { _ in .across } == 0)
        // The same rhythm pushing up along gravity is a walk, however the watch is worn, and
        // without samples there is no evidence.
        #expect(steps(peaks) { _ in .up } == 60)
        #expect(steps(peaks, rotated: true) { _ in .up } == 60)
        #expect(steps(peaks, withSamples: false) { _ in .across } == 60)
    }

    @Test func aWalkAfterArmWorkIsCreditedBackOnceThePeaksPushUp() {
        // Arm work until 25 s, then the peaks push up: the mean rises above the floor within a few
        // windows and the chain from 15 s is credited whole...
        let push: (Double) -> Push = { t in t < 25 ? .across : .up }
        #expect(steps(prelude(from: 1, seconds: 12) + chain(from: 15, count: 60), push) == 60)
        // ...and nothing while the arm work lasts (17 peaks, until 24.6 s).
        #expect(steps(prelude(from: 1, seconds: 12) + chain(from: 15, count: 17), push) == 0)
    }

    @Test func theMeanMustHaveFormed() {
        // A chain in the first seconds of the movement is not judged before ten windows with
        // peaks have formed the mean (it confirms at 9.6 s, on the third).
        #expect(steps(chain(from: 6, count: 60)) { _ in .across } == 60)
    }

    @Test func aWalkerWhoJustWalkedIsNotHeldBack() {
        // 100 steps of a walk end at 74.4 s; then 21 s of peaks across gravity (the mean falls
        // below the floor), and a chain from 100 s: within 90 s of a walk of 80 steps
        // (`StepGate.recentStepPeriod`) it is the walk going on, credited...
        let walk = chain(from: 15, count: 100), armWork = prelude(from: 77, seconds: 21), later = chain(from: 100, count: 40)
        #expect(steps(walk + armWork + later) { t in t < 75 ? .up : .across } == 140)
        // ...while the same chain after the same arm work, without the walk, waits.
        #expect(steps(armWork + later) { _ in .across } == 0)
    }

    @Test func theLiftIsTheCosineToGravityAtThePeaks() throws {
        func window(_ push: Push, rotated: Bool = false) -> (upward: UpwardPeaks, samples: SampleRing, newest: Double) {
            let peaks = chain(from: 0.5, count: 8)
            return peakWindow(Self.samples(peaks, rotated: rotated) { _ in push }, peaks: peaks, span: UpwardPeaks.span)
        }
        func lift(_ push: Push, rotated: Bool = false) -> Double? {
            let w = window(push, rotated: rotated)
            return w.upward.windowLift(samples: w.samples, gravity: w.samples.mean(of: UpwardPeaks.span), newest: w.newest)
        }
        let up = try #require(lift(.up)), across = try #require(lift(.across))
        #expect(up > 0.95)
        #expect(abs(across) < 0.1)
        #expect(abs(try #require(lift(.up, rotated: true)) - up) < 1e-9)
        // The mean judges once it has formed; a magnitude-only window carries no direction and
        // clears it.
        let acrossWindow = window(.across)
        var armWork = acrossWindow.upward
        for _ in 0..<UpwardPeaks.minWindows {
            armWork.observe(threeAxis: true, samples: acrossWindow.samples, gravity: acrossWindow.samples.mean(of: UpwardPeaks.span), newest: acrossWindow.newest)
        }
        let heldWhileFormed = armWork.holdsBack
        #expect(heldWhileFormed)
        armWork.observe(threeAxis: false, samples: acrossWindow.samples, gravity: acrossWindow.samples.mean(of: UpwardPeaks.span), newest: acrossWindow.newest)
        let heldWhenCleared = armWork.holdsBack
        #expect(armWork.lift == nil && !heldWhenCleared)
    }
}
