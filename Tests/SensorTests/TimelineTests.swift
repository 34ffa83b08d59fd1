import ChipEmulation
import SensorChips
import StepdModel
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

    @Test("the period converges to the chip's within 0.2 % after 30 s", arguments: [-15.0, -5.0, -2.0, 2.0, 5.0, 15.0])
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
            #expect(worst < 0.002, "rate \(rate), error \(errorPercent) %: worst estimate off by \(worst * 100) %")
            #expect(worstPhase < 0.02, "timestamps off by up to \(worstPhase) s")
        }
    }

    /// Feeds `bursts` one-second reads of a chip `errorPercent` fast; returns the timeline.
    static func streamed(errorPercent: Double, bursts: Int, chip: inout Chip, time: inout Double) -> SampleTimeline {
        var line = SampleTimeline(rate: 40)
        for delay in delays(bursts) {
            time += 1 + delay
            let (count, _) = chip.read(at: time)
            _ = line.assign(count: count, readTime: time)
        }
        return line
    }

    @Test("a single late read neither moves the estimate nor re-anchors nor breaks the spacing")
    func singleLateRead() throws {
        for lateness in [0.06, 0.2, 0.4] {
            var chip = Chip(period: 1 / (40 * 1.05))
            var time = 0.0
            var line = Self.streamed(errorPercent: 5, bursts: 40, chip: &chip, time: &time)
            let before = try #require(line.estimatedRate)
            // The samples were counted at `time`, but the clock was read `lateness` later.
            time += 1
            let (count, newest) = chip.read(at: time)
            let late = line.assign(count: count, readTime: time + lateness)
            #expect(!late.reanchored)
            let after = try #require(line.estimatedRate)
            #expect(abs(after / before - 1) < 0.0005, "a read \(lateness) s late moved the rate from \(before) to \(after)")
            // Timestamps stay evenly spaced and near the truth.
            let spacing = zip(late.times.dropFirst(), late.times).map { $0 - $1 }
            #expect(spacing.allSatisfy { abs($0 - chip.period) < chip.period * 0.01 })
            #expect(abs((late.times.last ?? 0) - newest) < 0.02)
            // And the next ordinary reads carry on without a jump.
            for _ in 0..<5 {
                time += 1
                let next = chip.read(at: time)
                let result = line.assign(count: next.count, readTime: time)
                #expect(!result.reanchored)
                #expect(abs((result.times.last ?? 0) - next.newest) < 0.02)
            }
        }
    }

    @Test("reset after real data loss keeps the measured period")
    func resetKeepsPeriod() throws {
        var chip = Chip(period: 1 / (40 * 0.95))
        var time = 0.0
        var line = Self.streamed(errorPercent: -5, bursts: 30, chip: &chip, time: &time)
        let measured = try #require(line.estimatedRate)
        #expect(abs(measured - 38) < 0.05)
        line.reset()
        #expect(line.estimatedRate == measured)
        time += 3
        let (count, newest) = chip.read(at: time)
        let (times, reanchored) = line.assign(count: count, readTime: time)
        #expect(!reanchored)
        #expect(abs((times.last ?? 0) - newest) < 1 / 38.0)
    }

    @Test("supervisor with the chip's clock off: no gap, no re-anchor, the measured rate in status",
          arguments: [ChipModel.mpu6050, .lis3dh], [-5.0, 5.0])
    func supervisorFollowsTheChipClock(model: ChipModel, errorPercent: Double) throws {
        var h = try Harness(model: model, clockErrorPercent: errorPercent)
        h.run(for: 90)
        #expect(h.gapCount == 0)
        #expect(h.supervisor.reanchors == 0)
        #expect(h.supervisor.status.gaps == 0)
        let truth = model.descriptor.sampleRate * (1 + errorPercent / 100)
        let rate = try #require(h.supervisor.status.estimatedRate)
        #expect(abs(rate / truth - 1) < 0.002, "estimated \(rate) Hz, chip at \(truth) Hz")
        // Delivered timestamps rise steadily: nothing steps back at a burst boundary.
        let times = h.samples.map(\.t)
        #expect(zip(times.dropFirst(), times).allSatisfy { $0 > $1 })
    }

    @Test("a real FIFO overflow still marks a gap with the chip's clock off", arguments: [ChipModel.mpu6050, .lis3dh])
    func overflowStillMarksGap(model: ChipModel) throws {
        var h = try Harness(model: model, faults: "overflow@40", clockErrorPercent: 5)
        h.run(for: 80)
        #expect(h.gapCount == 1)
        #expect(h.supervisor.status.overflows == 1)
        #expect(h.supervisor.reanchors == 0)
        // The period survives the gap.
        let rate = try #require(h.supervisor.status.estimatedRate)
        #expect(abs(rate / (model.descriptor.sampleRate * 1.05) - 1) < 0.002)
    }

    @Test("the emulated oscillator: samples at the nominal rate times its error, drift held at the limit")
    func oscillator() {
        let clock = ManualClock(start: 0)
        let sim = SimulatedSensor(model: .mpu6050, samples: [], clock: clock, clockErrorPercent: 5)
        let chip = sim.chip
        let bus = sim.bus
        _ = try? bus.writeRead(address: chip.address, [MPU6050.Register.powerManagement1, 0x00], readCount: 0)
        _ = try? bus.writeRead(address: chip.address, [MPU6050.Register.config, MPU6050.dlpfConfiguration], readCount: 0)
        _ = try? bus.writeRead(address: chip.address, [MPU6050.Register.sampleRateDivider, MPU6050.sampleRateDividerValue], readCount: 0)
        let before = chip.samplesProduced
        clock.advance(to: 100)
        chip.advance(to: 100)
        #expect(abs(Double(chip.samplesProduced - before) - 4200) <= 1)
        let drifting = Oscillator(errorPercent: 2, driftPercentPerMinute: 1, origin: 0)
        #expect(abs(drifting.errorPercent(at: 60) - 3) < 1e-12)
        #expect(drifting.errorPercent(at: 3600) == Oscillator.limitPercent)
    }
}

extension TimelineTests {
    @Test("data-ready edges converge too, also when a sample reaches the FIFO after the edge was read")
    func edges() throws {
        var chip = Chip(period: 1 / (40 * 1.03))
        var line = SampleTimeline(rate: 40)
        var time = 0.0
        for (k, delay) in Self.delays(60).enumerated() {
            time += 1 + delay
            // Every fifth burst the edge was read a fifth of a period before the FIFO count.
            let atEdge = chip.read(at: k % 5 == 3 ? time - chip.period * 0.2 : time)
            let after = chip.read(at: time)
            let result = line.assign(count: atEdge.count + after.count, readTime: time, lastSampleTime: atEdge.newest)
            #expect(!result.reanchored)
            if k >= 30 { #expect(abs((result.times.last ?? 0) - after.newest) < 0.01) }
        }
        let rate = try #require(line.estimatedRate)
        #expect(abs(rate * chip.period - 1) < 0.002, "estimated \(rate) Hz")
    }
}
