import Glibc
import StepdModel
import Testing
import ToolSupport

/// The bouts, tempo and hole inputs of `stepbench accuracy` (`GaitSegments`) come from the
/// recording and its true count alone, and keep the recording's kind (|a| stays |a|).
@Suite struct GaitSegmentsTests {
    /// A walk whose |a| has a step component at `cadence` steps/min and a weaker stride component
    /// (left and right steps differ), `still` seconds of rest inserted at `pauseAt`.
    static func walk(cadence: (Double) -> Double, seconds: Double, rate: Double = 25, pauseAt: Double? = nil, pause: Double = 0,
                     magnitudeOnly: Bool = false) -> [AccelSample] {
        var samples: [AccelSample] = []
        var phase = 0.0, t = 0.0, walked = 0.0
        while walked < seconds {
            let resting = pauseAt.map { walked >= $0 && t - walked < pause } ?? false
            var m = 1.0
            if resting {
                m += 0.002 * sin(37 * t)
            } else {
                phase += 2 * Double.pi * cadence(walked) / 60 / rate
                m += 0.25 * sin(phase) + 0.08 * sin(phase / 2)
                walked += 1 / rate
            }
            samples.append(magnitudeOnly ? AccelSample(t: t, x: m, y: 0, z: 0) : AccelSample(t: t, x: 0.6 * m, y: 0.64 * m, z: 0.48 * m))
            t += 1 / rate
        }
        return samples
    }

    @Test("the native cadence is the true count over the moving seconds: a long pause does not slow it")
    func nativeCadenceSkipsPauses() throws {
        let steady = Self.walk(cadence: { _ in 100 }, seconds: 120)
        let paused = Self.walk(cadence: { _ in 100 }, seconds: 120, pauseAt: 60, pause: 90)
        let a = try #require(GaitSegments.nativeCadence(steady, truth: 200))
        let b = try #require(GaitSegments.nativeCadence(paused, truth: 200))
        #expect(abs(a - 100) < 2, "\(a)")
        #expect(abs(b - 100) < 2, "\(b)")
        #expect(abs(GaitSegments.movement(paused).seconds - 120) <= 2)
    }

    /// Standard deviation and mean of |a|.
    static func deviation(_ samples: [AccelSample]) -> (std: Double, mean: Double) {
        let m = samples.map(\.magnitude)
        let mean = m.reduce(0, +) / Double(m.count)
        return ((m.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(m.count)).squareRoot(), mean)
    }

    @Test("a tempo copy slowed down is the walk with its timestamps x scale and its movement x 1 / scale around gravity, the same on every call")
    func tempoCopyIsAFunctionOfTheWalk() throws {
        let samples = Self.walk(cadence: { _ in 100 }, seconds: 60)
        let copy = try #require(GaitSegments.tempoCopy(samples, truth: 100, target: 80))
        let again = try #require(GaitSegments.tempoCopy(samples, truth: 100, target: 80))
        #expect(copy.samples == again.samples && copy.scale == again.scale)
        #expect(abs(copy.scale - 100.0 / 80) < 0.03)
        // Slowed down, the copy is sparser than the device: every sample is kept at its scaled time.
        #expect(copy.samples.count == samples.count)
        for (s, c) in zip(samples, copy.samples) { #expect(c.t == s.t * copy.scale) }
        let before = Self.deviation(samples), after = Self.deviation(copy.samples)
        #expect(abs(after.std / before.std - 1 / copy.scale) < 0.04, "\(after.std / before.std)")
        #expect(abs(after.mean - before.mean) < 0.01)
    }

    @Test("a walk sped up 3x moves 3x as much, keeps gravity and |a| input, and comes at its device's own rate at each phase")
    func spedUpCopyMovesLikeABriskWalkAtTheDeviceRate() throws {
        // A slow 12.5 Hz |a| walk (50 steps/min) taken to 150: timestamps alone would give a 37.5 Hz
        // stream moving as little as the stroll.
        let slow = Self.walk(cadence: { _ in 50 }, seconds: 120, rate: 12.5, magnitudeOnly: true)
        let copies = try GaitSegments.tempoPhases.map { try #require(GaitSegments.tempoCopy(slow, truth: 100, target: 150, phase: $0)) }
        let native = Self.deviation(slow)
        for copy in copies {
            #expect(abs(copy.scale - 1.0 / 3) < 0.01)
            let duration = try #require(copy.samples.last?.t) - (copy.samples.first?.t ?? 0)
            let rate = Double(copy.samples.count - 1) / duration
            #expect(abs(rate - 12.5) < 0.3, "\(rate) samples/s")
            #expect(copy.samples.allSatisfy { $0.y == 0 && $0.z == 0 })
            let moved = Self.deviation(copy.samples)
            // 3x the movement, less the device's averaging over its 80 ms period (about 6 % at 2.5 Hz).
            #expect(moved.std / native.std > 2.5 && moved.std / native.std < 3.2, "\(moved.std / native.std)")
            #expect(abs(moved.mean - native.mean) < 0.02)
        }
        // The phases sample the same copy at different instants.
        #expect(copies[0].samples.first?.t != copies[2].samples.first?.t)
        #expect(copies[0].samples.map(\.x) != copies[2].samples.map(\.x))
    }

    @Test("|a| input stays |a| (y = z = 0) in every bout, tempo copy and hole; three-axis padding is noisy on every axis")
    func magnitudeOnlyStaysMagnitudeOnly() throws {
        let magnitude = Self.walk(cadence: { _ in 100 }, seconds: 120, rate: 12.5, magnitudeOnly: true)
        for size in [10, 20] {
            let bouts = GaitSegments.bouts(magnitude, truth: 200, size: size)
            #expect(bouts.count == 4)
            for bout in bouts {
                #expect(bout.allSatisfy { $0.y == 0 && $0.z == 0 })
                // The still padding holds |a| near 1 g with noise, not a constant.
                let padding = bout.prefix(100)
                #expect(Set(padding.map(\.x)).count > 50 && padding.allSatisfy { abs($0.x - 1) < 0.02 })
            }
        }
        let copy = try #require(GaitSegments.tempoCopy(magnitude, truth: 200, target: 80))
        #expect(copy.samples.allSatisfy { $0.y == 0 && $0.z == 0 })
        let hole = try #require(GaitSegments.hole(magnitude, truth: 200))
        #expect((hole.whole + hole.holed).allSatisfy { $0.y == 0 && $0.z == 0 })

        let threeAxis = Self.walk(cadence: { _ in 100 }, seconds: 120)
        let padding = try #require(GaitSegments.bouts(threeAxis, truth: 200, size: 10).first).prefix(300)
        #expect(Set(padding.map(\.x)).count > 100 && Set(padding.map(\.y)).count > 100 && Set(padding.map(\.z)).count > 100)
    }

    @Test("a bout spans its size in local step periods: a walk faster in the middle than at its ends gets shorter middle bouts")
    func boutsFollowTheLocalCadence() throws {
        // 90 steps/min for the first and last 20 s, 120 in between: the native cadence (true count
        // over the moving time) is about 109, the middle's step period 0.5 s.
        let cadence: (Double) -> Double = { $0 < 20 || $0 >= 100 ? 90 : 120 }
        let samples = Self.walk(cadence: cadence, seconds: 120)
        let truth = Int((40.0 * 90 + 80 * 120) / 60)
        let native = try #require(GaitSegments.nativeCadence(samples, truth: truth))
        let period = try #require(GaitSegments.localStepPeriod(samples, around: 60, nativePeriod: 60 / native, steps: 10))
        #expect(abs(period - 0.5) < 0.01, "\(period)")
        let bouts = GaitSegments.bouts(samples, truth: truth, size: 10)
        #expect(bouts.count == 4)
        for bout in bouts {
            let walking = bout.filter { abs($0.x / 0.6 - 1) > 0.02 }
            let span = (walking.last?.t ?? 0) - (walking.first?.t ?? 0)
            #expect(abs(span - 5) < 0.2, "\(span)")
        }
    }

    @Test("a bout with a pause inside is not cut; the hole lies in the middle of the moving time")
    func pausesAndHoles() throws {
        let samples = Self.walk(cadence: { _ in 100 }, seconds: 100, pauseAt: 60, pause: 30)
        // 1/5 .. 4/5 of 100 moving seconds: 20, 40, 60 (the pause begins there), 80 (+30 s).
        let bouts = GaitSegments.bouts(samples, truth: 167, size: 10)
        #expect(bouts.count == 3)
        let hole = try #require(GaitSegments.hole(samples, truth: 167))
        #expect(abs(hole.holeStart - 50.5) < 1)
        #expect(!hole.holed.contains { $0.t >= hole.holeStart && $0.t < hole.holeStart + 2 })
        #expect(abs(hole.whole.count - hole.holed.count - 50) <= 1)
    }
}
