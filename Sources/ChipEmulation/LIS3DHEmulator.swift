import SensorBus
import SensorChips
import StepdModel

/// LIS3DH register file: ODR from CTRL_REG1 (0 = power-down after reset), range and
/// resolution from CTRL_REG4/LPen, left-justified little-endian output, the 32-level FIFO in
/// bypass/FIFO/stream modes with FIFO_SRC_REG, auto-increment only with bit 7 of the register
/// address, and the read pointer wrapping from OUT_Z_H to OUT_X_L while the FIFO is on.
public final class LIS3DHEmulator: RegisterFileChip, EmulatedChip {
    public let wrongIdentity: UInt8 = 0x32  // a LIS331DLH
    private var fifo: [[UInt8]] = []
    /// Set when a sample could not be stored (FIFO mode) or overwrote one (stream mode).
    private var overrun = false

    /// `oscillator`: the chip's own clock error; samples come at the configured rate times its factor.
    public init(address: UInt8 = LIS3DH.descriptor.addresses[0], samples: [AccelSample], clock: any SensorClock,
                oscillator: Oscillator = .nominal) {
        super.init(descriptor: LIS3DH.descriptor, address: address, registerCount: 0x40, resetValues: LIS3DH.resetValues,
                   samples: samples, clock: clock, oscillator: oscillator)
        resetRegisters()
    }

    public var fifoCount: Int { fifo.count }

    public var sampleRate: Double {
        let control1 = registers[Int(LIS3DH.Register.control1)]
        return control1 & LIS3DH.Bits.axesEnable == 0 ? 0 : LIS3DH.outputRate(control1: control1)
    }

    private var fifoMode: LIS3DH.FIFOMode {
        LIS3DH.FIFOMode(rawValue: registers[Int(LIS3DH.Register.fifoControl)] >> 6) ?? .bypass
    }

    private var fifoActive: Bool {
        registers[Int(LIS3DH.Register.control5)] & LIS3DH.Bits.fifoEnable != 0 && fifoMode != .bypass
    }

    public func advance(to time: Double) {
        typealias R = LIS3DH.Register
        let control4 = registers[Int(R.control4)]
        let select = (control4 >> 4) & 3
        let bits = LIS3DH.resolutionBits(highResolution: control4 & LIS3DH.Bits.highResolution != 0,
                                         lowPower: registers[Int(R.control1)] & LIS3DH.Bits.lowPower != 0)
        let countsPerG = 1000 / LIS3DH.milliGPerDigit(rangeSelect: select, resolutionBits: bits)
        let active = fifoActive
        let mode = fifoMode
        producer.run(until: time, rate: sampleRate, keep: descriptor.fifoCapacitySamples) { value, skipped in
            var bytes: [UInt8] = []
            for g in [value.x, value.y, value.z] {
                let counts = saturatedCounts(g, countsPerG: countsPerG, bits: bits)
                let raw = UInt16(bitPattern: Int16(counts << (16 - bits)))
                bytes.append(UInt8(raw & 0xFF))
                bytes.append(UInt8(raw >> 8))
            }
            for (i, b) in bytes.enumerated() { registers[Int(R.outXLow) + i] = b }
            let status = registers[Int(R.status)]
            registers[Int(R.status)] = status | LIS3DH.Bits.dataAvailableXYZ
                | (status & LIS3DH.Bits.dataAvailableXYZ != 0 ? LIS3DH.Bits.overrunXYZ : 0)
            guard active else { return }
            if skipped > 0 { overrun = true }
            if fifo.count >= descriptor.fifoCapacitySamples {
                overrun = true
                if mode == .fifo { return }  // FIFO mode stops collecting when full
                fifo.removeFirst()
            }
            fifo.append(bytes)
        }
    }

    private var fifoSource: UInt8 {
        let watermark = Int(registers[Int(LIS3DH.Register.fifoControl)] & LIS3DH.Bits.fifoLevelMask)
        var value = UInt8(min(fifo.count, 31))
        if fifo.count > watermark { value |= LIS3DH.Bits.fifoWatermark }
        if fifo.count >= descriptor.fifoCapacitySamples || overrun { value |= LIS3DH.Bits.fifoOverrun }
        if fifo.isEmpty { value |= LIS3DH.Bits.fifoEmpty }
        return value
    }

    public func read(pointer: UInt8, count: Int) -> [UInt8] {
        typealias R = LIS3DH.Register
        advance(to: clock.now())
        let increment = pointer & LIS3DH.Bits.autoIncrement != 0
        var reg = pointer & 0x3F
        var out: [UInt8] = []
        out.reserveCapacity(count)
        for _ in 0..<count {
            switch reg {
            case R.outXLow...R.outZHigh where fifoActive && !fifo.isEmpty:
                out.append(fifo[0][Int(reg - R.outXLow)])
                if reg == R.outZHigh {
                    fifo.removeFirst()
                    if fifo.count < descriptor.fifoCapacitySamples { overrun = false }
                }
            case R.whoAmI:
                out.append(identity)
            case R.fifoSource:
                out.append(fifoSource)
            default:
                out.append(registers[Int(reg)])
                if reg == R.outZHigh { registers[Int(R.status)] = 0 }
            }
            if increment {
                reg = (reg == R.outZHigh && fifoActive) ? R.outXLow : (reg + 1) & 0x3F
            }
        }
        return out
    }

    public func write(_ bytes: [UInt8]) {
        typealias R = LIS3DH.Register
        guard let pointer = bytes.first else { return }
        advance(to: clock.now())
        let increment = pointer & LIS3DH.Bits.autoIncrement != 0
        var reg = pointer & 0x3F
        for value in bytes.dropFirst() {
            switch reg {
            case R.control1:
                let previousRate = sampleRate
                registers[Int(reg)] = value
                if sampleRate != previousRate { producer.restart(at: clock.now()) }
            case R.control5:
                registers[Int(reg)] = value & ~LIS3DH.Bits.boot  // BOOT reloads trimming and clears itself
                if !fifoActive { fifo.removeAll(); overrun = false }
            case R.fifoControl:
                registers[Int(reg)] = value
                if fifoMode == .bypass { fifo.removeAll(); overrun = false }
            case R.whoAmI, R.status, R.fifoSource, R.statusAux:
                break  // read-only
            case R.outXLow...R.outZHigh:
                break
            default:
                registers[Int(reg)] = value
            }
            if increment { reg = (reg + 1) & 0x3F }
        }
    }

    public func powerGlitch() {
        resetRegisters()
    }

    public func forceOverflow() {
        advance(to: clock.now())
        guard fifoActive else { return }
        let filler = fifo.last ?? Array(registers[Int(LIS3DH.Register.outXLow)...Int(LIS3DH.Register.outZHigh)])
        while fifo.count < descriptor.fifoCapacitySamples { fifo.append(filler) }
        overrun = true
    }

    private func resetRegisters() {
        resetRegisterFile()
        fifo.removeAll()
        overrun = false
    }
}
