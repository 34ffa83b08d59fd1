import Glibc
@testable import MotionCore
import Testing

/// Arm work whose |a| peaks lie along the arm's own swing (`SwingAlignedPeaks`, gate v2.18-W): a
/// chain waits while the recent peaks' acceleration points along the way the hand moves across
/// gravity (claps, strokes stopped and reversed), and is credited when the peaks are jolts along
/// gravity whatever the arm's swing does (a step).
@Suite struct SwingAlignedPeaksTests {
    /// Where a peak's acceleration points: along the swing (a clap), up along gravity (a step).
    enum Peak { case alongSwing, up }

    /// Gravity in the sensor's frame (a watch worn at a slant) and the swing's direction across it.
    static let gravity = unit(0.3, -0.5, 0.81)
    static let swing = unit(0, gravity.z, -gravity.y)
    /// The peak's size (g), centred a tenth of a second before the band's peak time (the band lags
    /// |a|), 60 ms to either side; the swing's size (g), once per 1.2 s.
    static let size = 0.3
    static let sway = 0.1

    private static func unit(_ x: Double, _ y: Double, _ z: Double) -> (x: Double, y: Double, z: Double) {
        let n = (x * x + y * y + z * z).squareRoot()
        return (x / n, y / n, z / n)
    }

    /// The samples of an arm swinging across gravity, with a jolt at each of `peaks` as `kind(t)`
    /// says; `rotated` turns the mounting (a cyclic exchange of the axes, two of them reversed).
    private static func samples(_ peaks: [Double], rotated: Bool = false, _ kind: @escaping (Double) -> Peak)
        -> (Double) -> (x: Double, y: Double, z: Double) {
        { t in
            var bump = 0.0
            var direction = gravity
            for peak in peaks where abs(t - (peak - 0.1)) < 0.06 {
                let u = (t - (peak - 0.1)) / 0.06
                bump += size * (1 - u * u)
                direction = kind(peak) == .up ? gravity : swing
            }
            let s = sway * sin(2 * Double.pi * t / 1.2)
            let a = (x: gravity.x + bump * direction.x + s * swing.x, y: gravity.y + bump * direction.y + s * swing.y,
                     z: gravity.z + bump * direction.z + s * swing.z)
            return rotated ? (-a.y, -a.z, a.x) : a
        }
    }

    /// Steps credited for `peaks`, with a window every second from 1 s called locomotion whose band
    /// shows the cadence and the gait and whose vertical share is above the floor (the other rules
    /// pass); the samples as `samples` above, or none.
    private func steps(_ peaks: [Double], withSamples: Bool = true, rotated: Bool = false,
                       _ kind: @escaping (Double) -> Peak) -> Int {
        creditedSteps(peaks, firstWindow: 1, sample: withSamples ? Self.samples(peaks, rotated: rotated, kind) : nil) { _ in
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

    @Test func peaksAlongTheSwingAreNoWalk() {
        // Six seconds of movement, then a chain that confirms at 11.6 s: the mean has formed over
        // three windows with peaks (the rule's minimum), before `UpwardPeaks` judges (ten).
        let peaks = prelude(from: 1, seconds: 6) + chain(from: 8, count: 60)
        #expect(steps(peaks) { _ in .alongSwing } == 0)
        #expect(steps(peaks, rotated: true) { _ in .alongSwing } == 0)
        // The same rhythm jolting up along gravity under the same swing is a walk, however the
        // watch is worn, and without samples there is no evidence.
        #expect(steps(peaks) { _ in .up } == 60)
        #expect(steps(peaks, rotated: true) { _ in .up } == 60)
        #expect(steps(peaks, withSamples: false) { _ in .alongSwing } == 60)
    }

    @Test func aWalkAfterArmWorkIsCreditedBackOnceThePeaksTurnUp() {
        // Claps until 13 s, then jolts along gravity: the mean falls below the ceiling at once and
        // the chain from 8 s is credited whole...
        let kind: (Double) -> Peak = { t in t < 13 ? .alongSwing : .up }
        #expect(steps(prelude(from: 1, seconds: 6) + chain(from: 8, count: 60), kind) == 60)
        // ...and nothing while the claps last (9 peaks, until 12.8 s).
        #expect(steps(prelude(from: 1, seconds: 6) + chain(from: 8, count: 9), kind) == 0)
    }

    @Test func theMeanMustHaveFormed() {
        // A chain whose seventh candidate comes after the first window with a full span of samples
        // (6 s) but before the third: the mean is not judged yet.
        #expect(steps(chain(from: 3, count: 60)) { _ in .alongSwing } == 60)
    }

    @Test func theAlignmentIsTheSwingCosineLessTheLift() throws {
        func window(_ kind: Peak, rotated: Bool = false) -> (upward: UpwardPeaks, samples: SampleRing, newest: Double) {
            let peaks = chain(from: 0.5, count: 8)
            let sample = Self.samples(peaks, rotated: rotated) { _ in kind }
            var upward = UpwardPeaks()
            var samples = SampleRing(capacity: StepGate.recentSampleCapacity)
            var newest = 0.0
            var noted = 0
            for k in 0..<SwingAlignedPeaks.span {
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
        func alignment(_ kind: Peak, rotated: Bool = false) -> Double? {
            let w = window(kind, rotated: rotated)
            return SwingAlignedPeaks.windowAlignment(samples: w.samples, peaks: w.upward, newest: w.newest)
        }
        let claps = try #require(alignment(.alongSwing)), steps = try #require(alignment(.up))
        #expect(claps > 0.95)
        #expect(steps < -0.5)
        #expect(abs(try #require(alignment(.alongSwing, rotated: true)) - claps) < 1e-9)
        #expect(abs(try #require(alignment(.up, rotated: true)) - steps) < 1e-9)
        // The mean judges once it has formed; a magnitude-only window carries no direction and
        // clears it.
        let clapWindow = window(.alongSwing)
        var armWork = SwingAlignedPeaks()
        for _ in 0..<SwingAlignedPeaks.minWindows {
            armWork.observe(threeAxis: true, samples: clapWindow.samples, peaks: clapWindow.upward, newest: clapWindow.newest)
        }
        let heldWhileFormed = armWork.holdsBack
        #expect(heldWhileFormed)
        armWork.observe(threeAxis: false, samples: clapWindow.samples, peaks: clapWindow.upward, newest: clapWindow.newest)
        let heldWhenCleared = armWork.holdsBack
        #expect(armWork.alignment == nil && !heldWhenCleared)
    }
}
