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
