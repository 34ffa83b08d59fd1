import Glibc
@testable import MotionCore
import Testing

/// Arm work that circles across gravity (`CirclingArmWork`, gate v2.16-C): a chain waits while the
/// recent movement goes round a loop that lies across gravity (scrubbing circles on a plate), and
/// is credited when it goes back and forth (a swing, a bounce) or loops upright, as walks do.
@Suite struct CirclingArmWorkTests {
    /// What the hand does between and at the peaks: round a circle, or back and forth with a
    /// little sideways sway at twice the rate (a figure eight, as a swinging arm with a step
    /// bounce traces; its two loops turn opposite ways).
    enum Movement { case circle, line }

    /// Gravity in the sensor's frame (a watch worn at a slant) and two directions across it.
    static let gravity = unit(0.3, -0.5, 0.81)
    static let across = unit(0, gravity.z, -gravity.y)
    static let acrossToo = cross(gravity, across)
    /// The movement's plane is tilted 40 degrees off the horizontal, so the acceleration at the |a|
    /// maximum still points up (cosine 0.64 to gravity: `UpwardPeaks` lets it through).
    static let tilt = 40.0 * Double.pi / 180
    static let size = 0.3
    static let interval = 0.6

    private static func unit(_ x: Double, _ y: Double, _ z: Double) -> (x: Double, y: Double, z: Double) {
        let n = (x * x + y * y + z * z).squareRoot()
        return (x / n, y / n, z / n)
    }

    private static func cross(_ a: (x: Double, y: Double, z: Double), _ b: (x: Double, y: Double, z: Double))
        -> (x: Double, y: Double, z: Double) {
        (a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x)
    }

    /// The samples of a hand moving round a circle or back and forth in the tilted plane, once per
    /// peak interval, the |a| maximum a tenth of a second before each peak of a chain from `start`
    /// (the band lags |a|); `rotated` turns the mounting (a cyclic exchange of the axes, two of
    /// them reversed).
    private static func samples(start: Double, rotated: Bool = false, _ movement: @escaping (Double) -> Movement)
        -> (Double) -> (x: Double, y: Double, z: Double) {
        { t in
            let phase = 2 * Double.pi * (t - (start - 0.1)) / interval
            // Up the tilted plane at the |a| maximum, and across it a quarter of a cycle later.
            let up = size * cos(phase)
            let side = movement(t) == .circle ? size * sin(phase) : 0.2 * size * sin(2 * phase)
            let v = (x: cos(tilt) * acrossToo.x + sin(tilt) * gravity.x, y: cos(tilt) * acrossToo.y + sin(tilt) * gravity.y,
                     z: cos(tilt) * acrossToo.z + sin(tilt) * gravity.z)
            let a = (x: gravity.x + up * v.x + side * across.x, y: gravity.y + up * v.y + side * across.y,
                     z: gravity.z + up * v.z + side * across.z)
            return rotated ? (-a.y, -a.z, a.x) : a
        }
    }

    /// Steps credited for `peaks`, with a window every second from 1 s called locomotion whose band
    /// shows the cadence and the gait, whose vertical share is above the floor and whose movement
    /// across gravity is `turning` (`TurningArmWork`'s index; 0.45: 2.8 times the |a| movement,
    /// below that rule's own ceiling); the samples as above from `start`, or none.
    private func steps(_ peaks: [Double], start: Double, turning: Double = 0.45, withSamples: Bool = true, rotated: Bool = false,
                       _ movement: @escaping (Double) -> Movement) -> Int {
        let sample = withSamples ? Self.samples(start: start, rotated: rotated, movement) : nil
        return creditedSteps(peaks, firstWindow: 1, sample: sample) { _ in
            var window = StepGate.WindowCadence(stepCorrelation: 0.8, stepLag: Self.interval, dominantFrequency: 1 / Self.interval)
            window.strideCorrelation = 0.8
            window.verticalShare = 0.4
            window.turning = turning
            return window
        }
    }

    /// `count` peaks a peak interval apart from `start`.
    private func chain(from start: Double, count: Int) -> [Double] {
        MotionTests.chain(from: start, count: count, interval: Self.interval)
    }

    @Test func circlesAcrossGravityAreNoWalk() {
        let peaks = chain(from: 15, count: 60)
        #expect(steps(peaks, start: 15) { _ in .circle } == 0)
        #expect(steps(peaks, start: 15, rotated: true) { _ in .circle } == 0)
        // The same rhythm back and forth is credited, however the watch is worn; so is a circle
        // that |a| sees (an upright loop, as a walk's bounce and fore-aft sway trace), and without
        // samples there is no evidence.
        #expect(steps(peaks, start: 15) { _ in .line } == 60)
        #expect(steps(peaks, start: 15, rotated: true) { _ in .line } == 60)
        #expect(steps(peaks, start: 15, turning: 0) { _ in .circle } == 60)
        #expect(steps(peaks, start: 15, withSamples: false) { _ in .circle } == 60)
    }

    @Test func aWalkAfterCirclingIsCreditedBackOnceTheCirclesStop() {
        // Circles until 25 s, then back and forth: the mean falls below `minRotation` within a few
        // windows and the chain from 15 s is credited whole...
        let movement: (Double) -> Movement = { t in t < 25 ? .circle : .line }
        #expect(steps(chain(from: 15, count: 60), start: 15, movement) == 60)
        // ...and nothing while the circles last (17 peaks, until 24.6 s).
        #expect(steps(chain(from: 15, count: 17), start: 15, movement) == 0)
    }

    @Test func theMeanMustHaveFormed() {
        // A chain in the first seconds of the movement is not judged before ten windows have
        // formed the mean: it confirms at 10.8 s, when the turning index has its ten windows
        // (from 1 s) but the rotation only six (from 5 s, the first full window of samples).
        #expect(steps(chain(from: 7.2, count: 60), start: 7.2) { _ in .circle } == 60)
    }

    @Test func aWalkerWhoJustWalkedIsNotHeldBack() {
        // 100 steps back and forth end at 74.4 s; then circles, and a chain from 100 s: within 90 s
        // of a walk of 80 steps (`StepGate.recentStepPeriod`) it is the walk going on, credited...
        let walk = chain(from: 15, count: 100), later = chain(from: 100, count: 40)
        #expect(steps(walk + later, start: 15) { t in t < 75 ? .line : .circle } == 140)
        // ...while the same chain after the same circles, without the walk, waits.
        #expect(steps(later, start: 15) { _ in .circle } == 0)
    }

    @Test func theRotationIsOneForACircleAndZeroForALine() throws {
        func window(_ movement: Movement, rotated: Bool = false) -> SampleRing {
            let sample = Self.samples(start: 1, rotated: rotated) { _ in movement }
            var samples = SampleRing(capacity: StepGate.recentSampleCapacity)
            for k in 0..<CirclingArmWork.span {
                let a = sample((Double(k) + 0.5) / MotionEngine.internalRate)
                samples.push(x: a.x, y: a.y, z: a.z, magnitude: (a.x * a.x + a.y * a.y + a.z * a.z).squareRoot())
            }
            return samples
        }
        func rotation(_ movement: Movement, rotated: Bool = false) -> Double? {
            let samples = window(movement, rotated: rotated)
            return CirclingArmWork.windowRotation(samples: samples, mean: samples.mean(of: CirclingArmWork.span))
        }
        let circle = try #require(rotation(.circle)), line = try #require(rotation(.line))
        #expect(circle > 0.95)
        #expect(line < 0.1)
        #expect(abs(try #require(rotation(.circle, rotated: true)) - circle) < 1e-9)
        // The mean judges once it and the turning index have formed, and only with the movement
        // across gravity; a magnitude-only window carries no direction and clears it.
        var turning = TurningArmWork()
        var upright = TurningArmWork()
        for _ in 0..<TurningArmWork.minWindows {
            turning.observe(0.45)
            upright.observe(0)
        }
        let circles = window(.circle)
        var circling = CirclingArmWork()
        for _ in 0..<CirclingArmWork.minWindows { circling.observe(threeAxis: true, samples: circles, gravity: circles.mean(of: CirclingArmWork.span)) }
        let heldAcross = circling.holdsBack(turning: turning), heldUpright = circling.holdsBack(turning: upright)
        #expect(heldAcross && !heldUpright)
        circling.observe(threeAxis: false, samples: circles, gravity: circles.mean(of: CirclingArmWork.span))
        let heldWhenCleared = circling.holdsBack(turning: turning)
        #expect(circling.rotation == nil && !heldWhenCleared)
    }
}
