import SensorBus
import StepdModel

/// LIS3DH at 50 Hz high-resolution through its FIFO in stream mode (the supervisor resamples to
/// 40 Hz).
public final class LIS3DHDriver: AccelerometerDriver {
    public var descriptor: ChipDescriptor { link.descriptor }
    public var address: UInt8 { link.address }
    public var rangeG: Int { link.fullScale.rangeG }
    private let link: ChipLink
    private var bus: any I2CBus { link.bus }
    private var rangeSelect: UInt8 { link.fullScale.select }
    private let watermarkInterrupt: Bool
    /// Watermark = samples per default burst, so an INT1 edge arrives about every 0.5 s.
    static let watermark: UInt8 = 24

    public init(bus: any I2CBus, address: UInt8, rangeG: Int, watermarkInterrupt: Bool = false) throws(SensorFault) {
        link = try ChipLink(LIS3DH.descriptor, bus: bus, address: address, rangeG: rangeG)
        self.watermarkInterrupt = watermarkInterrupt
    }

    /// CTRL_REG1..CTRL_REG5 as the driver writes them.
    public var controlRegisters: [UInt8] {
        typealias B = LIS3DH.Bits
        return [
            LIS3DH.dataRateCode << 4 | B.axesEnable,                    // 50 Hz, normal power, XYZ on
            0x00,                                                        // no high-pass filter
            watermarkInterrupt ? B.interrupt1Watermark : 0x00,           // INT1 on FIFO watermark
            B.blockDataUpdate | rangeSelect << 4 | B.highResolution,     // BDU, range, 12-bit
            B.fifoEnable,
        ]
    }

    public var fifoControl: UInt8 { LIS3DH.FIFOMode.stream.rawValue << 6 | LIS3DHDriver.watermark }

    public func startReset() throws(I2CError) -> Double {
        // BOOT reloads the trimming; bypass mode empties the FIFO.
        try bus.writeRegister(address: address, LIS3DH.Register.control5, LIS3DH.Bits.boot)
        try bus.writeRegister(address: address, LIS3DH.Register.fifoControl, 0x00)
        return 0.01
    }

    public func configure() throws(SensorFault) {
        typealias R = LIS3DH.Register
        try configurationSequence {
            let controls = controlRegisters
            for (offset, value) in controls.enumerated() {
                try bus.writeRegister(address: address, R.control1 + UInt8(offset), value)
            }
            // Bypass first so the FIFO starts empty, then stream.
            try bus.writeRegister(address: address, R.fifoControl, 0x00)
            try bus.writeRegister(address: address, R.fifoControl, fifoControl)
            let read = try bus.readRegisters(address: address, R.control1 | LIS3DH.Bits.autoIncrement, count: 5)
            for (offset, value) in controls.enumerated() where offset < read.count && read[offset] != value {
                throw SensorFault.configurationRejected(register: R.control1 + UInt8(offset), wrote: value, read: read[offset])
            }
            let fifo = try bus.readRegister(address: address, R.fifoControl)
            if fifo != fifoControl { throw SensorFault.configurationRejected(register: R.fifoControl, wrote: fifoControl, read: fifo) }
        }
    }

    public func readBurst() throws(I2CError) -> BurstResult {
        typealias R = LIS3DH.Register
        typealias B = LIS3DH.Bits
        let controls = try bus.readRegisters(address: address, R.control1 | B.autoIncrement, count: 5)
        let expected = controlRegisters
        if controls.count != 5 || controls[0] != expected[0] || controls[3] != expected[3] || controls[4] & B.fifoEnable == 0 {
            let found = controls.map { "0x" + hex($0) }.joined(separator: " ")
            return .chipReset(reason: "CTRL_REG1..5 read \(found): configuration lost (power glitch or reset)")
        }
        let fifo = try bus.readRegisters(address: address, R.fifoControl | B.autoIncrement, count: 2)
        guard fifo.count == 2 else { return .chipReset(reason: "short read of FIFO_CTRL_REG") }
        if fifo[0] != fifoControl {
            return .chipReset(reason: "FIFO_CTRL_REG reads 0x\(hex(fifo[0])): FIFO mode lost")
        }
        let source = fifo[1]
        // FSS counts 0...31; OVRN means all 32 levels hold unread data and the oldest are being overwritten.
        let overrun = source & B.fifoOverrun != 0
        let count = overrun ? descriptor.fifoCapacitySamples : Int(source & B.fifoLevelMask)
        // With the FIFO on, auto-increment wraps from OUT_Z_H back to OUT_X_L: one read drains many samples.
        let samples = try link.drainFIFO(sampleCount: count, register: R.outXLow | B.autoIncrement, counts: leftJustified)
        return .samples(samples, overflowed: overrun)
    }

    /// 12-bit value, left-justified in a little-endian int16.
    private func leftJustified(_ low: UInt8, _ high: UInt8) -> Double {
        Double(Int16(bitPattern: UInt16(high) << 8 | UInt16(low)) >> 4)
    }
}
