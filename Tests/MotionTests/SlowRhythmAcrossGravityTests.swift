import Glibc
@testable import MotionCore
import Testing

/// Arm work in a slow rhythm that pushes the hand across gravity (`SlowRhythmAcrossGravity`, gate
/// v2.21-S): a chain whose candidates come at least 0.78 s apart waits while the movement across
/// gravity over its span is above the ceiling, and is credited when it is a walk's.
@Suite struct SlowRhythmAcrossGravityTests {
    /// A slanted wrist that jolts up along gravity at each peak (0.6 g, so the peak-level rules see a
    /// walk's footfalls) and is pushed across gravity once per 1.2 s by `push(t)` g.
    static func samples(_ peaks: [Double], rotated: Bool = false, push: @escaping (Double) -> Double)
        -> (Double) -> SlantedWrist.Vector {
        let jolts = SlantedWrist.samples(peaks, size: 0.6, rotated: rotated) { _ in SlantedWrist.gravity }
        let across = SlantedWrist.across
        return { t in
            let s = push(t) * sin(2 * Double.pi * t / 1.2)
            let a = jolts(t)
            let side = rotated ? (x: -across.y, y: -across.z, z: across.x) : across
            return (a.x + s * side.x, a.y + s * side.y, a.z + s * side.z)
        }
    }

    /// Pushes: gesturing (its RMS across gravity about 0.58 g, above the ceiling) and a walk's (0.17 g).
    static let gesturing = 1.0
    static let walking = 0.3

    /// Steps credited for `peaks` with windows every second from 1 s that show a walk (every
    /// window-level rule passes) and the samples above, or none.
    private func steps(_ peaks: [Double], withSamples: Bool = true, push: @escaping (Double) -> Double) -> Int {
        creditedSteps(peaks, firstWindow: 1, sample: withSamples ? Self.samples(peaks, push: push) : nil) { _ in
            walkingThreeAxisWindow()
        }
    }

    @Test func aSlowRhythmPushedAcrossGravityIsNoWalk() {
        let slow = chain(from: 15, count: 40, interval: 0.9)
        #expect(steps(slow) { _ in Self.gesturing } == 0)
        // The same slow rhythm with a walk's movement, or without samples, is a walk...
        let walked = steps(slow) { _ in Self.walking }
        #expect(walked >= 40)
        #expect(steps(slow, withSamples: false) { _ in Self.gesturing } == walked)
        // ...and so is the same push under a quicker rhythm (a walk at 100 steps/min): the rule reads
        // slow chains only.
        #expect(steps(chain(from: 15, count: 40, interval: 0.6)) { _ in Self.gesturing } == 40)
    }

    @Test func aWalkAfterGesturingIsCreditedBackOnceTheHandCalms() {
        // Gesturing until 20 s, then the same slow rhythm calm: the chain from 15 s is credited whole
        // once the pushes leave the span it reads...
        let slow = chain(from: 15, count: 40, interval: 0.9)
        let walked = steps(slow) { _ in Self.walking }
        #expect(steps(slow) { t in t < 20 ? Self.gesturing : Self.walking } == walked)
        // ...and nothing while the gesturing lasts (6 s of it).
        #expect(steps(chain(from: 15, count: 12, interval: 0.9)) { t in t < 30 ? Self.gesturing : Self.walking } == 0)
    }

    @Test func aWalkerWhoJustWalkedIsNotHeldBack() {
        // 100 steps of a walk end at 74.4 s; a slow pushed chain from 95 s is within 90 s of it: the
        // walk going on, credited; alone it waits.
        let walk = chain(from: 15, count: 100), later = chain(from: 95, count: 30, interval: 0.9)
        let push: (Double) -> Double = { t in t < 75 ? Self.walking : Self.gesturing }
        #expect(steps(walk + later, push: push) >= 130)
        #expect(steps(later, push: push) == 0)
    }

    /// The reading over the newest `span` samples of a wrist pushed by `push` g.
    private func reading(push: Double, rotated: Bool = false, span: Int = 150) throws -> Double {
        let sample = Self.samples([], rotated: rotated) { _ in push }
        let ring = peakWindow(sample, peaks: [], span: StepGate.recentSampleCapacity).samples
        return try #require(SlowRhythmAcrossGravity.acrossGravityRMS(samples: ring, span: span))
    }

    @Test func theReadingIsTheMovementAcrossGravity() throws {
        // A still wrist reads nothing; a push of 1 g once per 1.2 s reads about its RMS less what the
        // 1 s mean keeps of it (1.0 x 0.71 x 0.81 = 0.58), beyond the ceiling; 0.3 g far below;
        // however the watch is worn.
        #expect(try reading(push: 0) < 1e-9)
        #expect(try reading(push: Self.gesturing) > SlowRhythmAcrossGravity.ceiling + 0.05)
        #expect(try reading(push: Self.walking) < SlowRhythmAcrossGravity.ceiling - 0.2)
        #expect(abs(try reading(push: Self.gesturing) - reading(push: Self.gesturing, rotated: true)) < 1e-9)
        // A bounce along gravity is not movement across it.
        let bounce: (Double) -> SlantedWrist.Vector = { t in
            let b = 1 + 0.5 * sin(2 * Double.pi * t / 0.9)
            return (b * SlantedWrist.gravity.x, b * SlantedWrist.gravity.y, b * SlantedWrist.gravity.z)
        }
        let ring = peakWindow(bounce, peaks: [], span: StepGate.recentSampleCapacity).samples
        #expect(try #require(SlowRhythmAcrossGravity.acrossGravityRMS(samples: ring, span: 150)) < 1e-6)
        // Fewer than 2 s of samples are not judged.
        #expect(SlowRhythmAcrossGravity.acrossGravityRMS(samples: ring, span: 40) == nil)
    }

    @Test func onlySlowChainsAreRead() {
        let sample = Self.samples([]) { _ in Self.gesturing }
        let ring = peakWindow(sample, peaks: [], span: StepGate.recentSampleCapacity)
        #expect(SlowRhythmAcrossGravity.holdsBack(meanInterval: 0.9, chainStart: ring.newest - 6, samples: ring.samples,
                                                  newest: ring.newest))
        #expect(!SlowRhythmAcrossGravity.holdsBack(meanInterval: 0.7, chainStart: ring.newest - 6, samples: ring.samples,
                                                   newest: ring.newest))
    }
}
