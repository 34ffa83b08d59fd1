import Boards
import ChipEmulation
import SensorBus
import SensorChips
import StepdModel
import Testing

/// The per-part tables against the datasheet facts in ../shared/docs/hardware.md, and the
/// readers of the tables (board validation, supervisor, drivers, emulators) against the tables.
@Suite("Chip tables")
struct ChipTableTests {
    @Test("each table holds its part's datasheet facts")
    func datasheetFacts() {
        let mpu = ChipModel.mpu6050.descriptor
        #expect(mpu.displayName == "MPU-6050")
        #expect(mpu.addresses == [0x68, 0x69])
        #expect(mpu.whoAmIRegister == 0x75 && mpu.whoAmIValue == 0x68)
        #expect(mpu.fullScales.map(\.rangeG) == [2, 4, 8, 16])
        #expect(mpu.fullScales.map(\.select) == [0, 1, 2, 3])
        #expect(mpu.fullScales.map { 1 / $0.gPerCount } == [16384, 8192, 4096, 2048])
        #expect(mpu.sampleRate == 40)
        #expect(mpu.fifoCapacityBytes == 1024 && mpu.fifoCapacitySamples == 170)
        #expect(mpu.dataReadySignal == .everySample)

        let lis = ChipModel.lis3dh.descriptor
        #expect(lis.displayName == "LIS3DH")
        #expect(lis.addresses == [0x18, 0x19])
        #expect(lis.whoAmIRegister == 0x0F && lis.whoAmIValue == 0x33)
        #expect(lis.fullScales.map(\.rangeG) == [2, 4, 8, 16])
        #expect(lis.fullScales.map { ($0.gPerCount * 1000).rounded() } == [1, 2, 4, 12])  // mg per digit, HR mode
        #expect(lis.sampleRate == 50)
        #expect(lis.fifoCapacitySamples == 32)
        #expect(abs(lis.fifoSpan - 0.64) < 1e-12)
        #expect(lis.dataReadySignal == .fifoWatermark)

        for model in ChipModel.allCases {
            let chip = model.descriptor
            #expect(chip.model == model)
            // The burst rule: a burst interval the table allows never lets the FIFO fill.
            #expect(chip.maxBurstInterval < chip.fifoSpan)
            #expect(chip.burstIntervals.contains(chip.defaultBurstInterval))
        }
    }

    @Test("a board's range_g is checked against its own chip's table", arguments: ChipModel.allCases)
    func rangePerChip(model: ChipModel) throws {
        let chip = model.descriptor
        for range in chip.rangesG {
            let board = try BoardParser.parse(text: "name = \"x\"\nbus = \"/dev/i2c-1\"\nchip = \"\(model.rawValue)\"\nrange_g = \(range)",
                                              fileName: "f.toml")
            #expect(board.rangeG == range)
            #expect(board.chip == model)
        }
        for range in [0, 1, 3, 6, 12, 24, 32] {
            #expect {
                _ = try BoardParser.parse(text: "name = \"x\"\nbus = \"/dev/i2c-1\"\nchip = \"\(model.rawValue)\"\nrange_g = \(range)",
                                          fileName: "f.toml")
            } throws: { error in
                "\(error)" == "f.toml:4: range_g: \(range) is not allowed for the \(chip.displayName); use 2, 4, 8 or 16"
            }
        }
    }

    @Test("with chip unset only the full scales every part offers are allowed")
    func rangeWithChipUnset() throws {
        #expect(ChipModel.rangesGForAnyChip == [2, 4, 8, 16])
        #expect(try BoardParser.parse(text: "name = \"x\"\nbus = \"/dev/i2c-1\"\nrange_g = 16", fileName: "f.toml").rangeG == 16)
        #expect {
            _ = try BoardParser.parse(text: "name = \"x\"\nbus = \"/dev/i2c-1\"\nrange_g = 32", fileName: "f.toml")
        } throws: { error in
            "\(error)" == "f.toml:3: range_g: 32 is not allowed; use 2, 4, 8 or 16"
        }
    }

    @Test("the burst-interval rule comes from the table: board, supervisor and agent agree", arguments: ChipModel.allCases)
    func burstRule(model: ChipModel) throws {
        let chip = model.descriptor
        let text = "name = \"x\"\nbus = \"/dev/i2c-1\"\nchip = \"\(model.rawValue)\"\nburst_interval_s = "
        #expect(try BoardParser.parse(text: text + "\(chip.maxBurstInterval)", fileName: "f.toml").burstInterval == chip.maxBurstInterval)
        #expect(try BoardParser.parse(text: text + "0.05", fileName: "f.toml").burstInterval == 0.05)
        let tooLong = chip.maxBurstInterval + 0.1
        let span = model == .mpu6050 ? "4.25 s" : "0.64 s"
        #expect {
            _ = try BoardParser.parse(text: text + "\(tooLong)", fileName: "f.toml")
        } throws: { error in
            "\(error)" == "f.toml:4: burst_interval_s: \(tooLong) is not allowed; use 0.05 to \(chip.maxBurstInterval) (the \(chip.displayName) FIFO holds \(span))"
        }
        #expect(throws: BoardError.self) { _ = try BoardParser.parse(text: text + "0.04", fileName: "f.toml") }

        let refused = try Harness(model: model, settings: SensorSettings(chip: model, burstInterval: tooLong))
        #expect(refused.supervisor.status.health == .lost)
        #expect(refused.supervisor.status.lastError
                    == "burst interval \(tooLong) s is out of range: use 0.05 to \(chip.maxBurstInterval) s (the FIFO must not fill between bursts)")
        var longest = try Harness(model: model, settings: SensorSettings(chip: model, burstInterval: chip.maxBurstInterval))
        longest.run(for: 20)
        #expect(longest.supervisor.status.health == .ok)
        #expect(longest.supervisor.status.overflows == 0)
    }

    @Test("with chip unset a burst interval up to the longest any part allows is accepted, then shortened to the part found")
    func burstRuleWithChipUnset() throws {
        let longest = ChipModel.allCases.map(\.descriptor.maxBurstInterval).max() ?? 0
        #expect(ChipModel.burstIntervalsForAnyChip == 0.05...longest)
        let board = try BoardParser.parse(text: "name = \"x\"\nbus = \"/dev/i2c-1\"\nburst_interval_s = \(longest)", fileName: "f.toml")
        #expect(board.burstInterval == longest)
        #expect {
            _ = try BoardParser.parse(text: "name = \"x\"\nbus = \"/dev/i2c-1\"\nburst_interval_s = 4", fileName: "f.toml")
        } throws: { error in
            "\(error)" == "f.toml:3: burst_interval_s: 4.0 is not allowed; use 0.05 to 3.5 (with chip unset any of these may be found: the LIS3DH FIFO holds 0.64 s, the MPU-6050 FIFO holds 4.25 s)"
        }
        // A LIS3DH found by probing is read often enough for its own FIFO.
        var h = try Harness(model: .lis3dh, settings: SensorSettings(chip: nil, burstInterval: longest))
        h.run(for: 20)
        #expect(h.supervisor.status.model == .lis3dh)
        #expect(h.supervisor.status.overflows == 0)
    }

    @Test("drivers and emulators run at the table's rate and fill the table's FIFO", arguments: ChipModel.allCases)
    func driversAndEmulatorsReadTheTable(model: ChipModel) throws {
        let chip = model.descriptor
        let clock = FakeClock()
        let sim = SimulatedSensor(model: model, samples: walkingLike(), clock: clock)
        #expect(sim.address == chip.addresses[0])
        #expect(try sim.bus.readRegister(address: sim.address, chip.whoAmIRegister) == chip.whoAmIValue)
        let driver = try makeDriver(model: model, bus: sim.bus, address: sim.address, rangeG: 4, interruptOnDataReady: false)
        #expect(driver.descriptor.model == model && driver.sampleRate == chip.sampleRate)
        clock.time += try driver.startReset()
        try driver.configure()
        let wait = chip.fifoSpan * 0.75
        clock.time += wait
        guard case .samples(let samples, let overflowed) = try driver.readBurst() else {
            Issue.record("no samples")
            return
        }
        #expect(!overflowed)
        #expect(abs(Double(samples.count) - wait * chip.sampleRate) <= 1)
        clock.time += chip.fifoSpan + 1
        guard case .samples(_, let full) = try driver.readBurst() else {
            Issue.record("no samples")
            return
        }
        #expect(full)
        #expect(throws: SensorFault.invalidSettings("range 3 g is not supported by the \(chip.displayName): use 2, 4, 8 or 16")) {
            _ = try makeDriver(model: model, bus: sim.bus, address: sim.address, rangeG: 3, interruptOnDataReady: false)
        }
    }
}
