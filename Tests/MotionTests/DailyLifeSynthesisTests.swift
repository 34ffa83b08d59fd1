import Glibc
import StepdModel
import Testing
import ToolSupport

/// The synthetic wrist daily life of `stepbench daily-life` is physical and reproducible.
@Suite struct DailyLifeSynthesisTests {
    static func mean(_ samples: [AccelSample]) -> (Double, Double, Double) {
        let n = Double(max(samples.count, 1))
        return (samples.reduce(0) { $0 + $1.x } / n, samples.reduce(0) { $0 + $1.y } / n, samples.reduce(0) { $0 + $1.z } / n)
    }

    @Test("a still wrist reads 1 g of gravity, and every activity's mean reading is gravity-sized", arguments: DailyActivity.allCases)
    func gravityNorm(_ activity: DailyActivity) {
        let sensor = WristSensor(rate: 50, bits: 16, range: 8, noise: 0, jitter: 0)
        let synthetic = DailyLifeSynthesis.instance(activity, seed: 42, seconds: 60, sensor: sensor)
        #expect(abs(Double(synthetic.samples.count) - 60 * 50) <= 2)
        // Over a whole minute the hand's acceleration averages out: the mean reading is gravity
        // seen through a forearm whose orientation changes (so its norm is at most 1 g).
        let m = Self.mean(synthetic.samples)
        let norm = (m.0 * m.0 + m.1 * m.1 + m.2 * m.2).squareRoot()
        #expect(norm > 0.3 && norm < 1.03, "\(activity.rawValue): mean norm \(norm)")
        if activity == .still {
            // At rest (tremor of a few mg) nearly every sample is 1 g within the tremor; a posture
            // shift (the forearm turning over a second or two) adds a few tens of mg.
            let calm = synthetic.samples.filter { abs($0.magnitude - 1) < 0.012 }.count
            #expect(Double(calm) >= 0.95 * Double(synthetic.samples.count))
            for s in synthetic.samples { #expect(abs(s.magnitude - 1) < 0.1) }
        }
        for s in synthetic.samples { #expect(s.x.isFinite && s.y.isFinite && s.z.isFinite) }
    }

    @Test("the same seed gives the same recording; another seed another one")
    func seedsReproduce() {
        for activity in [DailyActivity.brushingTeeth, .typing, .walking] {
            let a = DailyLifeSynthesis.instance(activity, seed: 7, seconds: 30)
            let b = DailyLifeSynthesis.instance(activity, seed: 7, seconds: 30)
            let c = DailyLifeSynthesis.instance(activity, seed: 8, seconds: 30)
            #expect(a.samples == b.samples && a.sensor == b.sensor)
            #expect(a.samples != c.samples)
        }
    }

    @Test("the coarse watch samples at 32 Hz on a 6-bit grid clipped at +-1.5 g")
    func coarseWatch() {
        let synthetic = DailyLifeSynthesis.instance(.clapping, seed: 3, seconds: 60, sensor: .coarseWatch)
        let step = 3.0 / 64
        #expect(abs(Double(synthetic.samples.count) - 60 * 32) <= 2)
        for s in synthetic.samples {
            for v in [s.x, s.y, s.z] {
                #expect(abs(v / step - (v / step).rounded()) < 1e-9)
                #expect(v >= -1.5 && v <= 1.5 - step + 1e-9)
            }
        }
    }

    @Test("a magnitude-only watch logs the norm of the same three converted axes, times its gain, in x", arguments: [MagnitudeNorm.l2, .l1])
    func magnitudeOnlyWatch(_ norm: MagnitudeNorm) {
        for rate in [12.5, 25] {
            let axes = WristSensor(rate: rate, bits: 14, range: 4, noise: 0, jitter: 0)
            var watch = axes
            watch.magnitude = norm
            watch.gain = 1.3
            for activity in [DailyActivity.washingDishes, .still] {
                let three = DailyLifeSynthesis.instance(activity, seed: 5, seconds: 60, sensor: axes)
                let magnitude = DailyLifeSynthesis.instance(activity, seed: 5, seconds: 60, sensor: watch)
                #expect(abs(Double(magnitude.samples.count) - 60 * rate) <= 2)
                #expect(magnitude.samples.count == three.samples.count)
                for (m, a) in zip(magnitude.samples, three.samples) {
                    let expected = norm == .l2 ? (a.x * a.x + a.y * a.y + a.z * a.z).squareRoot() : abs(a.x) + abs(a.y) + abs(a.z)
                    #expect(m.t == a.t && m.y == 0 && m.z == 0)
                    #expect(abs(m.x - 1.3 * expected) < 1e-12)
                }
                if activity == .still {
                    // At rest the L2 norm is the gain (1 g), the L1 norm 1-1.73 g times it, by posture.
                    let level = magnitude.samples.map(\.x).reduce(0, +) / Double(magnitude.samples.count)
                    if norm == .l2 { #expect(abs(level - 1.3) < 0.02) } else { #expect(level > 1.28 && level < 1.3 * 1.74) }
                }
            }
        }
        // The bench's draw: 12.5 or 25 Hz, magnitude only, a gain of 1.2-1.4.
        var random = SplitMix64(seed: 9)
        for _ in 0..<20 {
            let drawn = WristSensor.magnitudeWatch(&random)
            #expect(drawn.magnitude != nil && (drawn.rate == 12.5 || drawn.rate == 25) && drawn.gain >= 1.2 && drawn.gain <= 1.4)
        }
    }

    @Test("the control walk's true steps follow its cadence, and its wrist bounces and swings")
    func controlWalk() {
        let sensor = WristSensor(rate: 100, bits: 16, range: 8, noise: 0, jitter: 0)
        let walk = DailyLifeSynthesis.instance(.walking, seed: 11, seconds: 120, sensor: sensor)
        // 90-125 steps/min for two minutes.
        #expect(walk.trueSteps >= 170 && walk.trueSteps <= 255)
        let magnitudes = walk.samples.map(\.magnitude)
        let average = magnitudes.reduce(0, +) / Double(magnitudes.count)
        let deviation = (magnitudes.map { ($0 - average) * ($0 - average) }.reduce(0, +) / Double(magnitudes.count)).squareRoot()
        #expect(abs(average - 1) < 0.1)
        #expect(deviation > 0.05 && deviation < 0.6)
        #expect(DailyLifeSynthesis.instance(.eating, seed: 11, seconds: 60).trueSteps == 0)
    }
}
