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

/// A chip driver: reset, configure, read FIFO bursts. Stateless about health; the supervisor
/// decides what errors mean. What is the same for every part (the table, the full scale, FIFO
/// draining) is in `ChipLink`; a driver holds only its part's register sequences.
public protocol AccelerometerDriver: AnyObject {
    var descriptor: ChipDescriptor { get }
    var address: UInt8 { get }
    var rangeG: Int { get }
    /// Starts a reset; returns the seconds to wait before `configure()`.
    func startReset() throws(I2CError) -> Double
    /// Writes the configuration and reads it back.
    func configure() throws(SensorFault)
    /// Reads what the FIFO holds, after checking the chip still holds its configuration.
    func readBurst() throws(I2CError) -> BurstResult
}

extension AccelerometerDriver {
    public var model: ChipModel { descriptor.model }
    /// Samples per second the chip produces.
    public var sampleRate: Double { descriptor.sampleRate }
}

/// A part at an address on a bus with a full scale chosen from its table.
struct ChipLink {
    let descriptor: ChipDescriptor
    let bus: any I2CBus
    let address: UInt8
    let fullScale: ChipDescriptor.FullScale

    init(_ descriptor: ChipDescriptor, bus: any I2CBus, address: UInt8, rangeG: Int) throws(SensorFault) {
        guard let scale = descriptor.fullScale(rangeG: rangeG) else {
            throw .invalidSettings("range \(rangeG) g is not supported by the \(descriptor.displayName): use \(ChipDescriptor.allowedList(descriptor.rangesG))")
        }
        self.descriptor = descriptor
        self.bus = bus
        self.address = address
        fullScale = scale
    }

    /// Reads `sampleCount` samples (X, Y, Z, two bytes each, decoded into counts by `counts`)
    /// from `register`, split on sample boundaries so there is no partial sample to carry.
    func drainFIFO(sampleCount: Int, register: UInt8, counts: (UInt8, UInt8) -> Double) throws(I2CError) -> [ChipVector] {
        let size = descriptor.bytesPerSample
        let scale = fullScale.gPerCount
        var samples: [ChipVector] = []
        samples.reserveCapacity(sampleCount)
        for length in fifoReadLengths(byteCount: sampleCount * size, bytesPerSample: size, maxReadLength: bus.maxReadLength) {
            let bytes = try bus.readRegisters(address: address, register, count: length)
            var i = 0
            while i + 6 <= bytes.count {
                samples.append(ChipVector(x: counts(bytes[i], bytes[i + 1]) * scale, y: counts(bytes[i + 2], bytes[i + 3]) * scale,
                                          z: counts(bytes[i + 4], bytes[i + 5]) * scale))
                i += 6
            }
        }
        return samples
    }
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

/// Reads the WHO_AM_I of `model` at `address`.
public func readIdentity(bus: any I2CBus, model: ChipModel, address: UInt8) throws(I2CError) -> UInt8 {
    try bus.readRegister(address: address, model.descriptor.whoAmIRegister)
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
