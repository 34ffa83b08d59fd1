import SensorBus
import SensorChips
import StepdModel

/// MPU-6050 register file: rate from CONFIG/SMPLRT_DIV, range from ACCEL_CONFIG, SLEEP after
/// power-up and DEVICE_RESET, the 1024-byte FIFO with its count, overflow flag and reset,
/// INT_STATUS cleared on read, FIFO_R_W reads that do not advance the register pointer.
public final class MPU6050Emulator: RegisterFileChip, EmulatedChip {
    public let wrongIdentity: UInt8 = 0x70  // an MPU-6500
    private var fifo: [UInt8] = []

    /// `oscillator`: the chip's own clock error; samples come at the configured rate times its factor.
    public init(address: UInt8 = MPU6050.descriptor.addresses[0], samples: [AccelSample], clock: any SensorClock,
                oscillator: Oscillator = .nominal) {
        super.init(descriptor: MPU6050.descriptor, address: address, registerCount: 128, resetValues: MPU6050.resetValues,
                   samples: samples, clock: clock, oscillator: oscillator)
        resetRegisters()
    }

    public var fifoCount: Int { fifo.count }

    /// Current nominal sample rate (from the registers): 0 while sleeping.
    public var sampleRate: Double {
        typealias R = MPU6050.Register
        if registers[Int(R.powerManagement1)] & MPU6050.Bits.sleep != 0 { return 0 }
        return MPU6050.outputRate(config: registers[Int(R.config)], divider: registers[Int(R.sampleRateDivider)])
    }

    public func advance(to time: Double) {
        typealias R = MPU6050.Register
        let fifoOn = registers[Int(R.userControl)] & MPU6050.Bits.userFIFOEnable != 0
            && registers[Int(R.fifoEnable)] & MPU6050.Bits.accelFIFOEnable != 0
        let select = (registers[Int(R.accelConfig)] >> 3) & 3
        let lsb = MPU6050.lsbPerG(rangeSelect: select)
        let keep = descriptor.fifoCapacityBytes / descriptor.bytesPerSample + 1
        producer.run(until: time, rate: sampleRate, keep: keep) { value, skipped in
            let counts = [value.x, value.y, value.z].map { saturatedCounts($0, countsPerG: lsb, bits: 16) }
            var bytes: [UInt8] = []
            for c in counts {
                let raw = UInt16(bitPattern: Int16(c))
                bytes.append(UInt8(raw >> 8))
                bytes.append(UInt8(raw & 0xFF))
            }
            for (i, b) in bytes.enumerated() { registers[Int(R.accelXHigh) + i] = b }
            registers[Int(R.interruptStatus)] |= MPU6050.Bits.dataReadyInterrupt
            guard fifoOn else { return }
            if skipped > 0 { setOverflow() }
            fifo += bytes
            if fifo.count > descriptor.fifoCapacityBytes {
                // The chip overwrites its oldest bytes: the count stays at 1024, alignment is lost.
                fifo.removeFirst(fifo.count - descriptor.fifoCapacityBytes)
                setOverflow()
            }
        }
    }

    public func read(pointer: UInt8, count: Int) -> [UInt8] {
        typealias R = MPU6050.Register
        advance(to: clock.now())
        var out: [UInt8] = []
        out.reserveCapacity(count)
        var reg = pointer & 0x7F
        for _ in 0..<count {
            switch reg {
            case R.fifoData:
                out.append(fifo.isEmpty ? 0 : fifo.removeFirst())
                continue  // FIFO_R_W bursts stay on the FIFO
            case R.fifoCountHigh:
                out.append(UInt8((fifo.count >> 8) & 0xFF))
            case R.fifoCountHigh + 1:
                out.append(UInt8(fifo.count & 0xFF))
            case R.whoAmI:
                out.append(identity)
            case R.interruptStatus:
                out.append(registers[Int(reg)])
                registers[Int(reg)] = 0
            default:
                out.append(registers[Int(reg)])
            }
            reg = (reg + 1) & 0x7F
        }
        return out
    }

    public func write(_ bytes: [UInt8]) {
        typealias R = MPU6050.Register
        guard var reg = bytes.first.map({ $0 & 0x7F }) else { return }
        advance(to: clock.now())
        for value in bytes.dropFirst() {
            switch reg {
            case R.powerManagement1:
                if value & MPU6050.Bits.deviceReset != 0 {
                    resetRegisters()
                } else {
                    let wasAsleep = sampleRate == 0
                    registers[Int(reg)] = value
                    if wasAsleep { producer.restart(at: clock.now()) }
                }
            case R.userControl:
                if value & MPU6050.Bits.userFIFOReset != 0 { fifo.removeAll() }
                registers[Int(reg)] = value & ~(MPU6050.Bits.userFIFOReset | 0x03)
            case R.config, R.sampleRateDivider:
                registers[Int(reg)] = value
                producer.restart(at: clock.now())
            case R.fifoData:
                break  // host writes into the FIFO are not used by stepd
            case R.whoAmI, R.interruptStatus, R.fifoCountHigh, R.fifoCountHigh + 1:
                break  // read-only
            default:
                if reg >= R.accelXHigh && reg < R.accelXHigh + 6 { break }
                registers[Int(reg)] = value
            }
            if reg != R.fifoData { reg = (reg + 1) & 0x7F }
        }
    }

    public func powerGlitch() {
        resetRegisters()
    }

    public func forceOverflow() {
        advance(to: clock.now())
        while fifo.count <= descriptor.fifoCapacityBytes { fifo.append(UInt8(truncatingIfNeeded: fifo.count)) }
        fifo.removeFirst(fifo.count - descriptor.fifoCapacityBytes)
        setOverflow()
    }

    private func setOverflow() {
        registers[Int(MPU6050.Register.interruptStatus)] |= MPU6050.Bits.fifoOverflowInterrupt
    }

    private func resetRegisters() {
        resetRegisterFile()
        fifo.removeAll()
    }
}
