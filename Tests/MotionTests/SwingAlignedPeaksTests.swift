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

    /// The swing's size (g) across gravity, once per 1.2 s.
    static let sway = 0.1

    /// The samples of a slanted wrist's arm swinging across gravity, with a jolt at each of `peaks`
    /// along the swing or up along gravity as `kind(t)` says (`SlantedWrist.samples`).
    private static func samples(_ peaks: [Double], rotated: Bool = false, _ kind: @escaping (Double) -> Peak)
        -> (Double) -> (x: Double, y: Double, z: Double) {
        SlantedWrist.samples(peaks, sway: sway, rotated: rotated) { kind($0) == .up ? SlantedWrist.gravity : SlantedWrist.across }
    }

    /// Steps credited for `peaks`, with a window every second from 1 s called locomotion whose band
    /// shows the cadence and the gait and whose vertical share is above the floor (the other rules
    /// pass); the samples as `samples` above, or none.
    private func steps(_ peaks: [Double], withSamples: Bool = true, rotated: Bool = false,
                       _ kind: @escaping (Double) -> Peak) -> Int {
        creditedSteps(peaks, firstWindow: 1, sample: withSamples ? Self.samples(peaks, rotated: rotated, kind) : nil) { _ in walkingThreeAxisWindow() }
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
            return peakWindow(Self.samples(peaks, rotated: rotated) { _ in kind }, peaks: peaks, span: SwingAlignedPeaks.span)
        }
        func alignment(_ kind: Peak, rotated: Bool = false) -> Double? {
            let w = window(kind, rotated: rotated)
            return SwingAlignedPeaks.windowAlignment(samples: w.samples, gravity: w.samples.mean(of: SwingAlignedPeaks.span),
                                                     peaks: w.upward, newest: w.newest)
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
            armWork.observe(threeAxis: true, samples: clapWindow.samples, gravity: clapWindow.samples.mean(of: SwingAlignedPeaks.span), peaks: clapWindow.upward, newest: clapWindow.newest)
        }
        let heldWhileFormed = armWork.holdsBack
        #expect(heldWhileFormed)
        armWork.observe(threeAxis: false, samples: clapWindow.samples, gravity: clapWindow.samples.mean(of: SwingAlignedPeaks.span), peaks: clapWindow.upward, newest: clapWindow.newest)
        let heldWhenCleared = armWork.holdsBack
        #expect(armWork.alignment == nil && !heldWhenCleared)
    }
}
