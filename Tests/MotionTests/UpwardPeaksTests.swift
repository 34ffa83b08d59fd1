@testable import MotionCore
import Testing

/// Arm work whose |a| peaks do not push up (`UpwardPeaks`, gate v2.15-A): a chain waits while the
/// recent peaks' acceleration beyond gravity points across it (a clap, a comb's return), and is
/// credited when it points up along gravity (a step's bounce and heel strike).
@Suite struct UpwardPeaksTests {
    /// Where a peak's acceleration points: up along gravity (a step), across it (arm work).
    enum Push { case up, across }

    /// Gravity in the sensor's frame (a watch worn at a slant) and a direction across it.
    static let gravity = unit(0.3, -0.5, 0.81)
    static let across = unit(0, gravity.z, -gravity.y)
    /// The peak's acceleration (g), centred a tenth of a second before the band's peak time (the
    /// band lags |a|), 60 ms to either side.
    static let size = 0.3

    private static func unit(_ x: Double, _ y: Double, _ z: Double) -> (x: Double, y: Double, z: Double) {
        let n = (x * x + y * y + z * z).squareRoot()
        return (x / n, y / n, z / n)
    }

    /// The samples of a wrist at rest under gravity, pushed at each of `peaks` as `push(t)` says;
    /// `rotated` turns the mounting (a cyclic exchange of the axes, two of them reversed).
    private static func samples(_ peaks: [Double], rotated: Bool = false, _ push: @escaping (Double) -> Push)
        -> (Double) -> (x: Double, y: Double, z: Double) {
        { t in
            var bump = 0.0
            var direction = gravity
            for peak in peaks where abs(t - (peak - 0.1)) < 0.06 {
                let u = (t - (peak - 0.1)) / 0.06
                bump += size * (1 - u * u)
                direction = push(peak) == .up ? gravity : across
            }
            let a = (x: gravity.x + bump * direction.x, y: gravity.y + bump * direction.y, z: gravity.z + bump * direction.z)
            return rotated ? (-a.y, -a.z, a.x) : a
        }
    }

    /// Steps credited for `peaks`, with a window every second from 1 s called locomotion whose band
    /// shows the cadence and the gait and whose vertical share is above the floor (the other rules
    /// pass); the samples as `samples` above, or none.
    private func steps(_ peaks: [Double], withSamples: Bool = true, rotated: Bool = false,
                       _ push: @escaping (Double) -> Push) -> Int {
        creditedSteps(peaks, firstWindow: 1, sample: withSamples ? Self.samples(peaks, rotated: rotated, push) : nil) { _ in
            var window = StepGate.WindowCadence(stepCorrelation: 0.8, stepLag: 0.6, dominantFrequency: 1 / 0.6)
            window.strideCorrelation = 0.8
            window.verticalShare = 0.4
            return window
        }
    }

    /// Irregular peaks (0.4, 0.4, 1.2 s apart: never a regular chain) from `start` for about
    /// `seconds`: the movement that forms the mean before a chain starts.
    private func prelude(from start: Double, seconds: Double) -> [Double] {
        var times: [Double] = []
        var t = start
        let gaps = [0.4, 0.4, 1.2]
        while t < start + seconds {
            times.append(t)
            t += gaps[times.count % 3]
        }
        return times
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
            let sample = Self.samples(peaks, rotated: rotated) { _ in push }
            var upward = UpwardPeaks()
            var samples = SampleRing(capacity: StepGate.recentSampleCapacity)
            var newest = 0.0
            var noted = 0
            for k in 0..<UpwardPeaks.span {
                let t = (Double(k) + 0.5) / MotionEngine.internalRate
                let a = sample(t)
                samples.push(x: a.x, y: a.y, z: a.z, magnitude: (a.x * a.x + a.y * a.y + a.z * a.z).squareRoot())
                newest = t
                while noted < peaks.count && peaks[noted] <= t {
                    upward.notePeak(at: peaks[noted])
                    noted += 1
                }
            }
            return (upward, samples, newest)
        }
        func lift(_ push: Push, rotated: Bool = false) -> Double? {
            let w = window(push, rotated: rotated)
            return w.upward.windowLift(samples: w.samples, newest: w.newest)
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
            armWork.observe(threeAxis: true, samples: acrossWindow.samples, newest: acrossWindow.newest)
        }
        let heldWhileFormed = armWork.holdsBack
        #expect(heldWhileFormed)
        armWork.observe(threeAxis: false, samples: acrossWindow.samples, newest: acrossWindow.newest)
        let heldWhenCleared = armWork.holdsBack
        #expect(armWork.lift == nil && !heldWhenCleared)
    }
}
