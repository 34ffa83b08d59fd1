import Glibc
import StepdModel
import Testing
import ToolSupport

/// The transformations `stepbench robustness` applies do what their names say.
@Suite struct SensorImperfectionTests {
    /// 20 s at 100 Hz of a wrist-like movement: gravity along a tilted axis plus a 1.8 Hz swing.
    static let threeAxis: [AccelSample] = (0..<2000).map { i in
        let t = Double(i) / 100
        let swing = 0.3 * sin(2 * Double.pi * 1.8 * t)
        return AccelSample(t: t, x: 0.5 + swing, y: -0.5 + 0.5 * swing, z: 0.84 - 0.2 * swing)
    }
    /// The same movement as a magnitude-only watch logs it (x = |a|, y = z = 0), at 25 Hz.
    static let magnitudeOnly: [AccelSample] = threeAxis.enumerated().compactMap { i, s in
        i % 4 == 0 ? AccelSample(t: s.t, x: s.magnitude, y: 0, z: 0) : nil
    }

    static let all: [SensorImperfection] = [
        .none, .whiteNoise(sigma: 0.03), .resample(rate: 12.5, jitter: 0.1), .resample(rate: 50, jitter: 0.1),
        .clockDrift(percent: 3), .quantise(bits: 8, range: 4), .zeroGOffset(minimum: 0.05, maximum: 0.15),
        .gainError(fraction: 0.03), .rotation, .magnitudeWatch(),
    ]

    @Test("clock drift stretches time by the factor and leaves the values")
    func drift() {
        for percent in [-3.0, 1.0] {
            let out = SensorImperfection.clockDrift(percent: percent).apply(to: Self.threeAxis, seed: 1)
            let span = (out.last?.t ?? 0) - (out.first?.t ?? 0)
            let original = (Self.threeAxis.last?.t ?? 0) - (Self.threeAxis.first?.t ?? 0)
            #expect(abs(span / original - (1 + percent / 100)) < 1e-12)
            #expect(out.map(\.x) == Self.threeAxis.map(\.x))
        }
    }

    @Test("quantisation yields at most 2^bits levels per axis, on the converter's grid, clipped at full scale")
    func quantisation() {
        for (bits, range) in [(8, 4.0), (10, 4.0), (12, 16.0)] {
            // Noise first, so the input takes many values; then spikes past full scale.
            var input = SensorImperfection.whiteNoise(sigma: 0.5).apply(to: Self.threeAxis, seed: 7)
            input[5].x = range + 2
            input[6].x = -range - 2
            let out = SensorImperfection.quantise(bits: bits, range: range).apply(to: input, seed: 1)
            let step = 2 * range / Double(1 << bits)
            for axis in [\AccelSample.x, \AccelSample.y, \AccelSample.z] {
                let values = out.map { $0[keyPath: axis] }
                #expect(Set(values).count <= 1 << bits)
                #expect(Set(values).count > 8)
                #expect(values.allSatisfy { abs($0 / step - ($0 / step).rounded()) < 1e-9 && $0 >= -range && $0 < range })
            }
            #expect(out[6].x == -range)
            #expect(out[5].x == range - step)
        }
    }

    @Test("white noise has the standard deviation it names")
    func noise() {
        let out = SensorImperfection.whiteNoise(sigma: 0.03).apply(to: Self.threeAxis, seed: 3)
        let differences = zip(out, Self.threeAxis).flatMap { [$0.x - $1.x, $0.y - $1.y, $0.z - $1.z] }
        let mean = differences.reduce(0, +) / Double(differences.count)
        let sd = (differences.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(differences.count)).squareRoot()
        #expect(abs(sd - 0.03) < 0.002)
        #expect(abs(mean) < 0.002)
    }

    @Test("resampling gives the named rate with jittered, ordered stamps, and keeps the movement")
    func resampling() {
        for rate in [12.5, 25, 50] {
            let out = SensorImperfection.resample(rate: rate, jitter: 0.1).apply(to: Self.threeAxis, seed: 5)
            let span = (Self.threeAxis.last?.t ?? 0) - (Self.threeAxis.first?.t ?? 0)
            #expect(abs(Double(out.count) - (span * rate + 1)) <= 1)
            let intervals = zip(out.dropFirst(), out).map { $0.t - $1.t }
            #expect(intervals.allSatisfy { $0 > 0 })
            let mean = intervals.reduce(0, +) / Double(intervals.count)
            let sd = (intervals.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(intervals.count)).squareRoot()
            #expect(abs(mean * rate - 1) < 0.01)
            #expect(sd * rate > 0.08 && sd * rate < 0.2)  // 0.1 period of stamp jitter: interval CV about 0.14
            // The swing survives (1.8 Hz is below every Nyquist rate here): x still spans most of its 0.6 g.
            let xs = out.map(\.x)
            #expect((xs.max() ?? 0) - (xs.min() ?? 0) > 0.5)
        }
    }

    @Test("a sensor hole stays a hole after resampling")
    func holes() {
        let holed = Self.threeAxis.filter { $0.t < 5 || $0.t >= 8 }
        for rate in [12.5, 200] {
            let out = SensorImperfection.resample(rate: rate, jitter: 0.1).apply(to: holed, seed: 2)
            #expect(zip(out.dropFirst(), out).contains { $0.t - $1.t > 2.5 })
        }
    }

    @Test("offsets and gains are per axis and within their limits")
    func offsetsAndGains() {
        let offset = SensorImperfection.zeroGOffset(minimum: 0.05, maximum: 0.15).apply(to: Self.threeAxis, seed: 11)
        let gain = SensorImperfection.gainError(fraction: 0.03).apply(to: Self.threeAxis, seed: 11)
        for axis in [\AccelSample.x, \AccelSample.y, \AccelSample.z] {
            let shifts = zip(offset, Self.threeAxis).map { $0[keyPath: axis] - $1[keyPath: axis] }
            let first = shifts.first ?? 0
            #expect(abs(first) >= 0.05 && abs(first) <= 0.15)
            #expect(shifts.allSatisfy { abs($0 - first) < 1e-12 })
            let ratios = zip(gain, Self.threeAxis).map { $0[keyPath: axis] / $1[keyPath: axis] }
            #expect(ratios.allSatisfy { abs(abs($0 - 1) - 0.03) < 1e-9 })
        }
    }

    @Test("a rotation keeps |a| and turns the axes")
    func rotation() {
        let out = SensorImperfection.rotation.apply(to: Self.threeAxis, seed: 13)
        #expect(zip(out, Self.threeAxis).allSatisfy { abs($0.magnitude - $1.magnitude) < 1e-9 })
        #expect(zip(out, Self.threeAxis).contains { abs($0.x - $1.x) > 0.1 })
    }

    @Test("magnitude-only input stays magnitude-only under every transformation")
    func magnitudeOnlyStays() {
        #expect(SensorImperfection.isMagnitudeOnly(Self.magnitudeOnly))
        for transformation in Self.all {
            let out = transformation.apply(to: Self.magnitudeOnly, seed: 17)
            #expect(!out.isEmpty, "\(transformation.label)")
            #expect(SensorImperfection.isMagnitudeOnly(out), "\(transformation.label)")
            #expect(out.allSatisfy { $0.x >= 0 }, "\(transformation.label)")
        }
        // Noise on |a| is about the per-axis noise (the component along the vector).
        let noisy = SensorImperfection.whiteNoise(sigma: 0.03).apply(to: Self.magnitudeOnly, seed: 19)
        let differences = zip(noisy, Self.magnitudeOnly).map { $0.x - $1.x }
        let sd = (differences.map { $0 * $0 }.reduce(0, +) / Double(differences.count)).squareRoot()
        #expect(sd > 0.025 && sd < 0.035)
    }

    @Test("the |a| watch logs the norm of the three axes times its gain, at its rate, as daily-life --magnitude-only draws it")
    func magnitudeWatch() {
        var l1 = false, l2 = false
        for seed in UInt64(1)...40 {
            let watch = SensorImperfection.drawnMagnitudeWatch(seed: seed)
            let out = SensorImperfection.magnitudeWatch().apply(to: Self.threeAxis, seed: seed)
            #expect(SensorImperfection.isMagnitudeOnly(out))
            // 100 Hz in, the watch's 12.5 or 25 Hz out.
            let span = (out.last?.t ?? 0) - (out.first?.t ?? 0)
            #expect(abs(Double(out.count - 1) / span - watch.rate) < 0.5, "\(watch.label)")
            #expect(watch.gain >= 1.2 && watch.gain <= 1.4 && [12.5, 25].contains(watch.rate))
            // The norm of the (resampled) movement times the gain: the mean matches the input's norm.
            let mean = out.map(\.x).reduce(0, +) / Double(out.count)
            func meanNorm(_ norm: (AccelSample) -> Double) -> Double { Self.threeAxis.map(norm).reduce(0, +) / Double(Self.threeAxis.count) }
            switch watch.magnitude {
            case .l2?:
                l2 = true
                #expect(abs(mean / (watch.gain * meanNorm(\.magnitude)) - 1) < 0.02, "\(watch.label): \(mean)")
            case .l1?:
                l1 = true
                #expect(abs(mean / (watch.gain * meanNorm { abs($0.x) + abs($0.y) + abs($0.z) }) - 1) < 0.02, "\(watch.label): \(mean)")
            case nil:
                Issue.record("a three-axis watch drawn")
            }
        }
        #expect(l1 && l2)
        // A 12.5 Hz recording is not resampled up to a 25 Hz watch: its stamps stay.
        let slow = Self.threeAxis.enumerated().compactMap { i, s in i % 8 == 0 ? s : nil }
        for seed in UInt64(1)...10 {
            #expect(SensorImperfection.magnitudeWatch().apply(to: slow, seed: seed).map(\.t) == slow.map(\.t))
        }
    }

    @Test("the same seed gives the same draw, another seed another")
    func seeded() {
        let a = SensorImperfection.whiteNoise(sigma: 0.01).apply(to: Self.threeAxis, seed: SensorImperfection.seed(for: "walk.csv", salt: 1))
        let b = SensorImperfection.whiteNoise(sigma: 0.01).apply(to: Self.threeAxis, seed: SensorImperfection.seed(for: "walk.csv", salt: 1))
        let c = SensorImperfection.whiteNoise(sigma: 0.01).apply(to: Self.threeAxis, seed: SensorImperfection.seed(for: "walk.csv", salt: 2))
        #expect(a == b)
        #expect(a != c)
    }
}
