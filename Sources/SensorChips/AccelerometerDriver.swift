import SensorBus
import StepdModel

/// One acceleration vector in g on the chip's own axes.
public struct ChipVector: Sendable, Equatable {
    public var x: Double
    public var y: Double
    public var z: Double
    public init(x: Double, y: Double, z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }
}

/// What one FIFO burst found.
public enum BurstResult: Sendable, Equatable {
    /// Samples in FIFO order; `overflowed` when the FIFO filled up since the last burst, so
    /// samples were lost before these.
    case samples([ChipVector], overflowed: Bool)
    /// The chip's configuration is gone (power glitch, brown-out): it must be set up again.
    case chipReset(reason: String)
}

/// Why the sensor path is not delivering: bus errors plus what only the driver can tell.
public enum SensorFault: Error, Sendable, Equatable, CustomStringConvertible {
    case bus(I2CError)
    /// Something answered at the address, but with the wrong WHO_AM_I.
    case wrongIdentity(model: ChipModel, address: UInt8, found: UInt8, expected: UInt8)
    /// No chip acknowledged at any address tried.
    case notFound(tried: String, bus: String)
    /// A configuration register did not read back what was written.
    case configurationRejected(register: UInt8, wrote: UInt8, read: UInt8)
    /// The settings ask for something the chip cannot do.
    case invalidSettings(String)

    public var description: String {
        switch self {
        case .bus(let error):
            return error.description
        case .wrongIdentity(let model, let address, let found, let expected):
            return "WHO_AM_I at 0x\(hex(address)) reads 0x\(hex(found)), a \(model.displayName) reads 0x\(hex(expected)): check the board's chip and address (i2cdetect, i2cget)."
        case .notFound(let tried, let bus):
            return "no accelerometer answered on \(bus) (tried \(tried)): check power, wiring and the address jumper (AD0/SA0)."
        case .configurationRejected(let register, let wrote, let read):
            return "register 0x\(hex(register)) reads 0x\(hex(read)) after writing 0x\(hex(wrote)): the chip is not accepting writes (power, a second master, or a different part)."
        case .invalidSettings(let text):
            return text
        }
    }

    /// Worth retrying the same step right away rather than re-probing.
    public var isTransient: Bool {
        if case .bus(let error) = self { return error.isTransient }
        return false
    }
}

extension ChipModel {
    public var displayName: String {
        switch self {
        case .mpu6050: return MPU6050.displayName
        case .lis3dh: return LIS3DH.displayName
        }
    }

    /// The usual addresses, in probe order.
    public var usualAddresses: [UInt8] {
        switch self {
        case .mpu6050: return MPU6050.addresses
        case .lis3dh: return LIS3DH.addresses
        }
    }

    public var whoAmIRegister: UInt8 {
        switch self {
        case .mpu6050: return MPU6050.Register.whoAmI
        case .lis3dh: return LIS3DH.Register.whoAmI
        }
    }

    public var whoAmIValue: UInt8 {
        switch self {
        case .mpu6050: return MPU6050.whoAmIValue
        case .lis3dh: return LIS3DH.whoAmIValue
        }
    }

    /// The rate the chip produces (the agent always receives 40 Hz).
    public var chipSampleRate: Double {
        switch self {
        case .mpu6050: return MPU6050.sampleRate
        case .lis3dh: return LIS3DH.sampleRate
        }
    }

    public var defaultBurstInterval: Double {
        switch self {
        case .mpu6050: return MPU6050.defaultBurstInterval
        case .lis3dh: return LIS3DH.defaultBurstInterval
        }
    }

    /// The longest interval before the FIFO could overflow, with margin.
    public var maxBurstInterval: Double {
        switch self {
        case .mpu6050: return MPU6050.maxBurstInterval
        case .lis3dh: return LIS3DH.maxBurstInterval
        }
    }
}

/// A chip driver: reset, configure, read FIFO bursts. Stateless about health; the supervisor
/// decides what errors mean.
public protocol AccelerometerDriver: AnyObject {
    var model: ChipModel { get }
    var address: UInt8 { get }
    var rangeG: Int { get }
    /// Samples per second the chip produces.
    var sampleRate: Double { get }
    /// Starts a reset; returns the seconds to wait before `configure()`.
    func startReset() throws(I2CError) -> Double
    /// Writes the configuration and reads it back.
    func configure() throws(SensorFault)
    /// Reads what the FIFO holds, after checking the chip still holds its configuration.
    func readBurst() throws(I2CError) -> BurstResult
}

/// Splits `byteCount` FIFO bytes into reads of whole samples no longer than the bus allows.
func fifoReadLengths(byteCount: Int, bytesPerSample: Int, maxReadLength: Int) -> [Int] {
    let perRead = max(bytesPerSample, (maxReadLength / bytesPerSample) * bytesPerSample)
    var lengths: [Int] = []
    var remaining = byteCount
    while remaining > 0 {
        let n = min(perRead, remaining)
        lengths.append(n)
        remaining -= n
    }
    return lengths
}

/// Appends the whole samples in FIFO `bytes` (X, Y, Z, two bytes each, decoded by `axis`)
/// to `samples`. Reads are split on sample boundaries, so there is no partial sample to carry.
func appendSamples(from bytes: [UInt8], to samples: inout [ChipVector], axis: (UInt8, UInt8) -> Double) {
    var i = 0
    while i + 6 <= bytes.count {
        samples.append(ChipVector(x: axis(bytes[i], bytes[i + 1]), y: axis(bytes[i + 2], bytes[i + 3]),
                                  z: axis(bytes[i + 4], bytes[i + 5])))
        i += 6
    }
}

/// Reads the WHO_AM_I of `model` at `address`.
public func readIdentity(bus: any I2CBus, model: ChipModel, address: UInt8) throws(I2CError) -> UInt8 {
    try bus.readRegister(address: address, model.whoAmIRegister)
}

/// Makes the driver for a chip found at `address`.
public func makeDriver(model: ChipModel, bus: any I2CBus, address: UInt8, rangeG: Int,
                       interruptOnDataReady: Bool) throws(SensorFault) -> any AccelerometerDriver {
    switch model {
    case .mpu6050:
        return try MPU6050Driver(bus: bus, address: address, rangeG: rangeG, dataReadyInterrupt: interruptOnDataReady)
    case .lis3dh:
        return try LIS3DHDriver(bus: bus, address: address, rangeG: rangeG, watermarkInterrupt: interruptOnDataReady)
    }
}

/// Runs a driver's register writes and read-backs, reporting bus failures as `SensorFault.bus`
/// so the supervisor sees one error type for everything that can go wrong while configuring.
func configurationSequence(_ body: () throws -> Void) throws(SensorFault) {
    do {
        try body()
    } catch let fault as SensorFault {
        throw fault
    } catch let error as I2CError {
        throw .bus(error)
    } catch {
        throw .invalidSettings("unexpected error \(error)")
    }
}
