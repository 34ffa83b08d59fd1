import ChipEmulation
import Glibc
import SensorBus
import SensorChips
import StepdModel
import Testing

@Suite("Drivers against the emulated chips")
struct DriverTests {
    @Test("MPU-6050: probe finds the chip and the registers hold the datasheet configuration", arguments: [false, true])
    func mpuConfiguration(smbusOnly: Bool) throws {
        var h = try Harness(model: .mpu6050, settings: SensorSettings(), smbusOnly: smbusOnly)
        h.run(for: 2)
        let status = h.supervisor.status
        #expect(status.model == .mpu6050)
        #expect(status.address == 0x68)
        #expect(status.bus == "emulated")
        let chip = h.sim.chip
        #expect(chip.register(MPU6050.Register.sampleRateDivider) == 24)
        #expect(chip.register(MPU6050.Register.config) & 0x07 == 3)
        #expect(chip.register(MPU6050.Register.accelConfig) == 1 << 3)  // ±4 g
        #expect(chip.register(MPU6050.Register.powerManagement1) & MPU6050.Bits.sleep == 0)
        #expect(chip.register(MPU6050.Register.powerManagement2) & 0x07 == 0x07)  // gyros in standby
        #expect(chip.register(MPU6050.Register.fifoEnable) == MPU6050.Bits.accelFIFOEnable)
        #expect(chip.register(MPU6050.Register.userControl) & MPU6050.Bits.userFIFOEnable != 0)
        #expect(MPU6050.outputRate(config: 3, divider: 24) == 40)
        #expect(h.samples.count > 0)
    }

    @Test("LIS3DH: probe finds the chip and the registers hold 50 Hz HR, ±4 g, FIFO stream", arguments: [false, true])
    func lisConfiguration(smbusOnly: Bool) throws {
        var h = try Harness(model: .lis3dh, settings: SensorSettings(), smbusOnly: smbusOnly)
        h.run(for: 2)
        #expect(h.supervisor.status.model == .lis3dh)
        #expect(h.supervisor.status.address == 0x18)
        let chip = h.sim.chip
        #expect(chip.register(LIS3DH.Register.control1) == 0x47)
        #expect(chip.register(LIS3DH.Register.control4) == 0x80 | 0x10 | 0x08)  // BDU, ±4 g, HR
        #expect(chip.register(LIS3DH.Register.control5) & LIS3DH.Bits.fifoEnable != 0)
        #expect(chip.register(LIS3DH.Register.fifoControl) >> 6 == LIS3DH.FIFOMode.stream.rawValue)
        #expect(h.samples.count > 0)
    }

    @Test("MPU-6050 delivers exactly the samples the chip produced, at 40 Hz, over 60 s", arguments: [false, true])
    func mpuExactCount(smbusOnly: Bool) throws {
        var h = try Harness(model: .mpu6050, smbusOnly: smbusOnly)
        h.run(for: 61)
        guard let emulator = h.sim.chip as? MPU6050Emulator else { Issue.record("not an MPU-6050 emulator"); return }
        #expect(h.samples.count == emulator.samplesProduced - emulator.fifoCount / 6)
        #expect(abs(Double(h.samples.count) - 60.9 * 40) <= 41)
        let rate = try #require(h.supervisor.status.effectiveRate)
        #expect(abs(rate - 40) < 0.5)
        // Timestamps are exactly a period apart (no gaps in a clean run) and increase.
        let times = h.samples.map(\.t)
        let steps = zip(times.dropFirst(), times).map { $0 - $1 }
        #expect(steps.allSatisfy { abs($0 - 0.025) < 0.025 * 0.26 })
        #expect(h.gapCount == 0)
        #expect(h.supervisor.status.health == .ok)
        #expect(h.supervisor.status.readErrors == 0)
    }

    @Test("LIS3DH is delivered at 40 Hz after resampling", arguments: [false, true])
    func lisRate(smbusOnly: Bool) throws {
        var h = try Harness(model: .lis3dh, smbusOnly: smbusOnly)
        h.run(for: 30)
        let samples = h.samples
        let span = try #require(samples.last).t - (try #require(samples.first)).t
        #expect(abs(Double(samples.count - 1) / span - 40) < 0.2)
        let rate = try #require(h.supervisor.status.effectiveRate)
        #expect(abs(rate - 40) < 1)
        #expect(h.gapCount == 0)
        guard let emulator = h.sim.chip as? LIS3DHEmulator else { Issue.record("not a LIS3DH emulator"); return }
        // 50 Hz in, 40 Hz out: every produced sample not still in the FIFO went through.
        let consumed = emulator.samplesProduced - emulator.fifoCount
        #expect(abs(Double(samples.count) - Double(consumed) * 0.8) <= 2)
    }

    @Test("range scaling and saturation", arguments: [ChipModel.mpu6050, .lis3dh])
    func rangeAndSaturation(model: ChipModel) throws {
        var wide = try Harness(model: model, samples: constant(x: 0.5, y: -1.0, z: 3.0), settings: SensorSettings(chip: model, rangeG: 4))
        wide.run(for: 3)
        let w = try #require(wide.samples.last)
        let step = model == .mpu6050 ? 1.0 / 8192 : 0.002
        #expect(abs(w.x - 0.5) <= step && abs(w.y + 1.0) <= step && abs(w.z - 3.0) <= step)

        var narrow = try Harness(model: model, samples: constant(x: 0.5, y: -2.5, z: 3.0), settings: SensorSettings(chip: model, rangeG: 2))
        narrow.run(for: 3)
        let n = try #require(narrow.samples.last)
        let top = model == .mpu6050 ? 32767.0 / 16384 : 2.047
        #expect(abs(n.z - top) < 1e-9)
        #expect(abs(n.y - (model == .mpu6050 ? -2.0 : -2.048)) < 1e-9)
        #expect(abs(n.x - 0.5) <= (model == .mpu6050 ? 1.0 / 16384 : 0.001))
        #expect(narrow.sim.chip.register(model == .mpu6050 ? MPU6050.Register.accelConfig : LIS3DH.Register.control4)
                & (model == .mpu6050 ? 0x18 : 0x30) == 0)
    }

    @Test("axis remap turns chip axes into board axes", arguments: [ChipModel.mpu6050, .lis3dh])
    func axisRemap(model: ChipModel) throws {
        let remap = try #require(AxisRemap(["y", "-x", "z"]))
        var h = try Harness(model: model, samples: constant(x: 0.25, y: 0.5, z: 1.0),
                            settings: SensorSettings(chip: model, axisRemap: remap))
        h.run(for: 3)
        let s = try #require(h.samples.last)
        #expect(abs(s.x - 0.5) < 0.003)
        #expect(abs(s.y + 0.25) < 0.003)
        #expect(abs(s.z - 1.0) < 0.003)
    }

    @Test("LIS3DH 50 -> 40 Hz keeps a sine's frequency and amplitude")
    func lisSine() throws {
        let f = 2.3
        let recording = (0..<2000).map { i -> AccelSample in
            let t = Double(i) / 200
            return AccelSample(t: t, x: 0.8 * sin(2 * .pi * f * t), y: 0, z: 1)
        }
        var h = try Harness(model: .lis3dh, samples: recording)
        h.run(for: 20)
        let samples = Array(h.samples.dropFirst(40))
        var crossings: [Double] = []
        for (a, b) in zip(samples, samples.dropFirst()) where a.x < 0 && b.x >= 0 {
            crossings.append(a.t + (b.t - a.t) * (-a.x) / (b.x - a.x))
        }
        let first = try #require(crossings.first), last = try #require(crossings.last)
        let measured = Double(crossings.count - 1) / (last - first)
        #expect(abs(measured - f) < 0.01)
        let peak = samples.map { abs($0.x) }.max() ?? 0
        #expect(peak > 0.8 * 0.95 && peak <= 0.8 + 0.002)
    }

    @Test("probing without a chip setting finds whichever chip is there")
    func probeBoth() throws {
        var h = try Harness(model: .lis3dh, settings: SensorSettings(chip: nil, address: nil))
        h.run(for: 2)
        #expect(h.supervisor.status.model == .lis3dh)
        var m = try Harness(model: .mpu6050, settings: SensorSettings(chip: nil, address: nil))
        m.run(for: 2)
        #expect(m.supervisor.status.model == .mpu6050)
    }

    @Test("an empty bus is reported as not found and keeps retrying")
    func emptyBus() throws {
        let clock = FakeClock()
        let bus = EmulatedI2CBus(clock: clock)
        let supervisor = SensorSupervisor(bus: bus, settings: SensorSettings(), clock: clock, dataReady: nil, logger: .silent)
        var tries = 0
        while clock.time < 130 {
            clock.time = supervisor.nextServiceTime
            _ = supervisor.service()
            tries += 1
        }
        let status = supervisor.status
        #expect(status.health == .lost)
        #expect(status.lastError?.contains("no accelerometer answered on emulated (tried MPU-6050 at 0x68, MPU-6050 at 0x69, LIS3DH at 0x18, LIS3DH at 0x19)") == true)
        // Backoff 0.25, 0.5, ... 8: about 8 tries to reach 8 s, then every 8 s.
        #expect(tries >= 8 && tries <= 12)
    }

    @Test("invalid range is refused with a message, not a crash")
    func invalidRange() throws {
        let h = try Harness(model: .mpu6050, settings: SensorSettings(chip: .mpu6050, rangeG: 3))
        #expect(h.supervisor.status.health == .lost)
        #expect(h.supervisor.status.lastError == "range_g 3 is not supported: use 2, 4, 8 or 16")
        #expect(h.supervisor.nextServiceTime == .infinity)
    }
}

@Suite("Pure pieces")
struct PureTests {
    @Test("Resampler: 50 inputs a second become 40, interpolated linearly")
    func resampler() {
        var r = Resampler(outputRate: 40)
        let input = (0...50).map { AccelSample(t: Double($0) / 50, x: Double($0) / 50, y: 0, z: 1) }
        let out = r.process(Array(input[0..<20])) + r.process(Array(input[20...]))
        #expect(out.count == 41)
        for (i, s) in out.enumerated() {
            #expect(abs(s.t - Double(i) / 40) < 1e-9)
            #expect(abs(s.x - s.t) < 1e-9)  // x = t in the input: linear interpolation is exact
        }
        r.reset()
        #expect(r.process([AccelSample(t: 5, x: 1, y: 1, z: 1)]).count == 1)
    }

    @Test("SampleTimeline: read jitter does not accumulate; two far-off reads in a row re-anchor")
    func timeline() {
        var line = SampleTimeline(rate: 40)
        var last = 0.0
        var all: [Double] = []
        var jitter: UInt64 = 12345
        for k in 1...200 {
            jitter = jitter &* 6364136223846793005 &+ 1442695040888963407
            let noise = Double(jitter >> 40) / Double(1 << 24) * 0.02  // 0..20 ms of read delay
            let read = Double(k) + noise
            let (times, reanchored) = line.assign(count: 40, readTime: read)
            #expect(!reanchored || k == 1)
            all += times
            last = times.last ?? last
        }
        let steps = zip(all.dropFirst(), all).map { $0 - $1 }
        #expect(steps.allSatisfy { $0 > 0.025 * 0.74 && $0 < 0.025 * 1.26 })
        // After 200 s the newest sample is still within a few ms of where it was taken.
        #expect(abs(last - (200 - 0.0125)) < 0.02)
        // One far-off read is carried on the timeline; a second in a row re-anchors.
        #expect(!line.assign(count: 40, readTime: 205).reanchored)
        #expect(line.assign(count: 40, readTime: 206).reanchored)
    }
}
