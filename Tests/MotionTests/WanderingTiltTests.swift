import Glibc
@testable import MotionCore
import Testing

/// Arm work that tilts the wrist far from its mean direction while its quick changes turn the
/// acceleration (`WanderingTilt`, gate v2.19-W): a chain waits while both recent means are past
/// their thresholds, and is credited when either stays a walk's.
@Suite struct WanderingTiltTests {
    /// The wrist tilts back and forth by up to `amplitude(t)` degrees about its slanted rest
    /// direction (`SlantedWrist.gravity`) once every 2 s, and jolts up along gravity at each peak
    /// (so the peak-level rules see a walk's footfalls); `rotated` turns the mounting (a cyclic
    /// exchange of the axes, two of them reversed).
    static func samples(_ peaks: [Double], rotated: Bool = false, amplitude: @escaping (Double) -> Double)
        -> (Double) -> SlantedWrist.Vector {
        let g = SlantedWrist.gravity, across = SlantedWrist.across
        let jolts = SlantedWrist.samples(peaks, size: 0.3) { _ in g }
        return { t in
            let angle = amplitude(t) * Double.pi / 180 * sin(Double.pi * t)
            let jolt = jolts(t)
            let a = (x: cos(angle) * g.x + sin(angle) * across.x + jolt.x - g.x,
                     y: cos(angle) * g.y + sin(angle) * across.y + jolt.y - g.y,
                     z: cos(angle) * g.z + sin(angle) * across.z + jolt.z - g.z)
            return rotated ? (-a.y, -a.z, a.x) : a
        }
    }

    static let gesturing = 60.0
    static let walking = 15.0
    /// `TurningJerk` indices: between this rule's `minTurning` and that rule's own ceiling, and a walk's.
    static let turningJerk = 0.40
    static let footfallJerk = 0.20

    /// Steps credited for `peaks`, with a window every second from 1 s called locomotion whose band
    /// shows the cadence and the gait, whose vertical share is above the floor and whose jerk index
    /// is `jerk(t)`; the samples as above, or none.
    private func steps(_ peaks: [Double], withSamples: Bool = true, jerk: @escaping (Double) -> Double = { _ in Self.turningJerk },
                       amplitude: @escaping (Double) -> Double) -> Int {
        let sample = withSamples ? Self.samples(peaks, amplitude: amplitude) : nil
        return creditedSteps(peaks, firstWindow: 1, sample: sample) { end in
            var window = walkingThreeAxisWindow()
            window.turningJerk = jerk(end)
            return window
        }
    }

    @Test func aWristThatWandersAndTurnsIsNoWalk() {
        #expect(steps(chain(from: 15, count: 60)) { _ in Self.gesturing } == 0)
        // The same rhythm on a wrist that swings little, or whose quick changes are footfalls, or
        // without samples, is a walk.
        #expect(steps(chain(from: 15, count: 60)) { _ in Self.walking } == 60)
        #expect(steps(chain(from: 15, count: 60), jerk: { _ in Self.footfallJerk }) { _ in Self.gesturing } == 60)
        #expect(steps(chain(from: 15, count: 60), withSamples: false) { _ in Self.gesturing } == 60)
    }

    @Test func aWalkAfterGesturingIsCreditedBackOnceTheWristSteadies() {
        // Gesturing until 25 s, then a walk: the wander's mean falls below the ceiling within a
        // few windows and the chain (peaks 0.6 s apart from 15 s) is credited whole...
        #expect(steps(chain(from: 15, count: 60)) { t in t < 25 ? Self.gesturing : Self.walking } == 60)
        // ...and nothing while the gesturing lasts (17 peaks, until 24.6 s).
        #expect(steps(chain(from: 15, count: 17)) { t in t < 25 ? Self.gesturing : Self.walking } == 0)
    }

    @Test func aWalkerWhoJustWalkedIsNotHeldBack() {
        // 100 steps of a walk end at 74.4 s; from 75 s the wrist wanders and a chain starts at
        // 95 s: within 90 s of a walk of 80 steps or more it is the walk going on, and credited...
        let walk = chain(from: 15, count: 100), later = chain(from: 95, count: 40)
        let amplitude: (Double) -> Double = { t in t < 75 ? Self.walking : Self.gesturing }
        #expect(steps(walk + later, amplitude: amplitude) == 140)
        // ...while the same chain without the walk before it waits.
        #expect(steps(later, amplitude: amplitude) == 0)
    }

    /// The wander (degrees) of the last 5 s of the samples above, and the window's gravity.
    private func wander(amplitude: Double, rotated: Bool = false) throws -> Double {
        let sample = Self.samples([], rotated: rotated) { _ in amplitude }
        let ring = peakWindow(sample, peaks: [], span: WanderingTilt.span).samples
        let value = try #require(WanderingTilt.windowWander(samples: ring, gravity: ring.mean(of: WanderingTilt.span)))
        return value * 180 / Double.pi
    }

    @Test func theArcCosineIsLibmsWithinItsBound() {
        for step in -1000...1000 {
            let x = Double(step) / 1000
            #expect(abs(WanderingTilt.arcCosine(x) - acos(x)) < 3e-8, "acos(\(x))")
        }
        #expect(WanderingTilt.arcCosine(1.5) == 0 && abs(WanderingTilt.arcCosine(-1.5) - Double.pi) < 3e-8)
    }

    @Test func theWanderIsTheAngleToTheMeanDirection() throws {
        // A still wrist does not wander; tilting +-60 degrees it wanders about 2 / pi of that
        // (beyond the ceiling), +-15 degrees far below; however the watch is worn.
        #expect(try wander(amplitude: 0) < 0.5)
        #expect(try wander(amplitude: 60) > WanderingTilt.ceiling * 180 / Double.pi + 5)
        #expect(try wander(amplitude: 15) < WanderingTilt.ceiling * 180 / Double.pi - 15)
        #expect(abs(try wander(amplitude: 60) - wander(amplitude: 60, rotated: true)) < 1e-9)
    }

    @Test func aMagnitudeOnlyWindowClearsTheMeanAndAWindowWithoutCandidatesLeavesIt() {
        let sample = Self.samples([]) { _ in Self.gesturing }
        let ring = peakWindow(sample, peaks: [], span: WanderingTilt.span).samples
        let gravity = ring.mean(of: WanderingTilt.span)
        var rule = WanderingTilt()
        rule.observe(threeAxis: true, withCandidates: true, samples: ring, gravity: gravity)
        let value = rule.wander
        #expect(value != nil)
        rule.observe(threeAxis: true, withCandidates: false, samples: ring, gravity: gravity)
        #expect(rule.wander == value && rule.mean.windows == 1)
        rule.observe(threeAxis: false, withCandidates: true, samples: ring, gravity: nil)
        #expect(rule.wander == nil)
    }
}
