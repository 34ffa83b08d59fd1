import SensorBus
import StepdModel

/// MPU-6050 at 40 Hz, accelerometer only, through its FIFO.
public final class MPU6050Driver: AccelerometerDriver {
    public var descriptor: ChipDescriptor { link.descriptor }
    public var address: UInt8 { link.address }
    public var rangeG: Int { link.fullScale.rangeG }
    private let link: ChipLink
    private var bus: any I2CBus { link.bus }
    private var rangeSelect: UInt8 { link.fullScale.select }
    private let dataReadyInterrupt: Bool

    public init(bus: any I2CBus, address: UInt8, rangeG: Int, dataReadyInterrupt: Bool = false) throws(SensorFault) {
        link = try ChipLink(MPU6050.descriptor, bus: bus, address: address, rangeG: rangeG)
        self.dataReadyInterrupt = dataReadyInterrupt
    }

    /// The configuration as (register, value), in write order. SLEEP is cleared first because a
    /// sleeping MPU-6050 ignores nothing but does not sample; CLKSEL 0 (internal oscillator)
    /// because the gyros, whose PLL would otherwise clock the chip, go to standby.
    public var configuration: [(register: UInt8, value: UInt8)] {
        typealias R = MPU6050.Register
        typealias B = MPU6050.Bits
        return [
            (R.powerManagement1, 0x00),
            (R.powerManagement2, B.gyroStandby),
            (R.config, MPU6050.dlpfConfiguration),
            (R.sampleRateDivider, MPU6050.sampleRateDividerValue),
            (R.accelConfig, rangeSelect << 3),
            (R.fifoEnable, B.accelFIFOEnable),
            (R.interruptPinConfig, 0x00),
            (R.interruptEnable, B.fifoOverflowInterrupt | (dataReadyInterrupt ? B.dataReadyInterrupt : 0)),
            (R.userControl, B.userFIFOEnable),
        ]
    }

    public func startReset() throws(I2CError) -> Double {
        try bus.writeRegister(address: address, MPU6050.Register.powerManagement1, MPU6050.Bits.deviceReset)
        return MPU6050.resetSettleTime
    }

    public func configure() throws(SensorFault) {
        try configurationSequence {
            for (register, value) in configuration {
                try bus.writeRegister(address: address, register, value)
            }
            for (register, value) in configuration {
                let read = try bus.readRegister(address: address, register)
                if read != value { throw SensorFault.configurationRejected(register: register, wrote: value, read: read) }
            }
            // Start from an empty FIFO, aligned on a sample.
            try bus.writeRegister(address: address, MPU6050.Register.userControl,
                                  MPU6050.Bits.userFIFOEnable | MPU6050.Bits.userFIFOReset)
            _ = try bus.readRegister(address: address, MPU6050.Register.interruptStatus)
        }
    }

    public func readBurst() throws(I2CError) -> BurstResult {
        typealias R = MPU6050.Register
        typealias B = MPU6050.Bits
        let power = try bus.readRegisters(address: address, R.userControl, count: 3)
        guard power.count == 3 else { return .chipReset(reason: "short read of USER_CTRL..PWR_MGMT_2") }
        if power[1] & B.sleep != 0 {
            return .chipReset(reason: "PWR_MGMT_1 is 0x\(hex(power[1])): the chip is back in SLEEP (power glitch or reset)")
        }
        if power[0] & B.userFIFOEnable == 0 || power[2] & B.gyroStandby != B.gyroStandby {
            return .chipReset(reason: "USER_CTRL 0x\(hex(power[0])) / PWR_MGMT_2 0x\(hex(power[2])) lost their configuration")
        }
        let rates = try bus.readRegisters(address: address, R.sampleRateDivider, count: 4)
        if rates.count != 4 || rates[0] != MPU6050.sampleRateDividerValue || rates[1] != MPU6050.dlpfConfiguration
            || rates[3] != rangeSelect << 3 {
            return .chipReset(reason: "SMPLRT_DIV/CONFIG/ACCEL_CONFIG read \(rates.map { "0x" + hex($0) }.joined(separator: " ")): configuration lost")
        }
        let status = try bus.readRegister(address: address, R.interruptStatus)
        let countBytes = try bus.readRegisters(address: address, R.fifoCountHigh, count: 2)
        let count = countBytes.count == 2 ? Int(countBytes[0]) << 8 | Int(countBytes[1]) : 0
        if status & B.fifoOverflowInterrupt != 0 || count >= descriptor.fifoCapacityBytes {
            // The FIFO overwrote its oldest bytes, so sample boundaries are lost: start it over.
            try bus.writeRegister(address: address, R.userControl, B.userFIFOEnable | B.userFIFOReset)
            return .samples([], overflowed: true)
        }
        let samples = try link.drainFIFO(sampleCount: count / descriptor.bytesPerSample, register: R.fifoData, counts: bigEndian)
        return .samples(samples, overflowed: false)
    }

    private func bigEndian(_ high: UInt8, _ low: UInt8) -> Double {
        Double(Int16(bitPattern: UInt16(high) << 8 | UInt16(low)))
    }
}
