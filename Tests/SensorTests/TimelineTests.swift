import SensorChips
import Testing

/// The timeline against a chip whose clock is off: sample times are known exactly here, so the
/// estimate and the timestamps are checked against the truth. Deterministic: no wall clock.
@Suite struct TimelineTests {
    /// A chip taking sample i at `start + i × period`, read on a schedule.
    struct Chip {
        var period: Double
        var start = 0.3
        var taken = 0
        /// Samples taken up to `time` since the last read; the true time of the newest.
        mutating func read(at time: Double) -> (count: Int, newest: Double) {
            let upTo = Int(((time - start) / period).rounded(.down))
            let count = max(0, upTo + 1 - taken)
            taken += count
            return (count, start + Double(taken - 1) * period)
        }
    }

    /// Read delays: 0 to 4 ms, one read in 25 up to 40 ms late (deterministic).
    static func delays(_ n: Int) -> [Double] {
        var state: UInt64 = 0x9E37_79B9
        return (0..<n).map { k in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let u = Double(state >> 11) / Double(1 << 53)
            return k % 25 == 7 ? 0.010 + 0.030 * u : 0.004 * u
        }
    }

    @Test("the period converges to the chip's within 0.2 % after 30 s", arguments: [-5.0, -2.0, 2.0, 5.0])
    func convergence(errorPercent: Double) {
        for (rate, interval) in [(40.0, 1.0), (50.0, 0.5)] {
            var chip = Chip(period: 1 / (rate * (1 + errorPercent / 100)))
            var line = SampleTimeline(rate: rate)
            var time = 0.0
            var worst = 0.0
            var worstPhase = 0.0
            for (k, delay) in Self.delays(Int(120 / interval)).enumerated() {
                time += interval + delay
                let (count, newest) = chip.read(at: time)
                let (times, reanchored) = line.assign(count: count, readTime: time)
                #expect(!reanchored)
                if Double(k) * interval >= 30, let estimate = line.estimatedRate, let last = times.last {
                    worst = max(worst, abs(estimate * chip.period - 1))
                    worstPhase = max(worstPhase, abs(last - newest))
                }
            }
            print("DEBUGT rate \(rate) err \(errorPercent) worst \(worst * 100) phase \(worstPhase)")
            #expect(worst < 0.002, "rate \(rate), error \(errorPercent) %: worst estimate off by \(worst * 100) %")
            #expect(worstPhase < 0.02, "timestamps off by up to \(worstPhase) s")
        }
    }
}
