import CStepdShim

/// A bus the chip drivers talk through: a Linux i2c-dev adapter or an emulation.
public protocol I2CBus: AnyObject {
    /// Writes `bytes` then reads `readCount` bytes with a repeated start (I2C_RDWR, or the
    /// SMBus fallback). Register reads are `writeRead(address:, [reg], readCount: n)`.
    func writeRead(address: UInt8, _ bytes: [UInt8], readCount: Int) throws(I2CError) -> [UInt8]
    func write(address: UInt8, _ bytes: [UInt8]) throws(I2CError)
    /// "/dev/i2c-1", "emulated".
    var name: String { get }
    /// The longest read one transaction can carry. SMBus-only adapters stop at 32 bytes, so
    /// drivers split FIFO bursts into whole samples that fit (a split mid-sample would make the
    /// chip repeat or skip bytes).
    var maxReadLength: Int { get }
}

/// Transfer length limits shared by the real adapter and the emulation.
public enum I2CTransferLimit {
    /// I2C_RDWR messages are limited to 8192 bytes by the kernel.
    public static let message = 8192
    /// An SMBus I2C-block transfer carries at most 32 bytes.
    public static let smbusBlock = Int(STEPD_SMBUS_BLOCK_MAX)
}

extension I2CBus {
    public var maxReadLength: Int { I2CTransferLimit.message }

    /// Reads `count` registers starting at `register`.
    public func readRegisters(address: UInt8, _ register: UInt8, count: Int) throws(I2CError) -> [UInt8] {
        try writeRead(address: address, [register], readCount: count)
    }

    public func readRegister(address: UInt8, _ register: UInt8) throws(I2CError) -> UInt8 {
        let bytes = try writeRead(address: address, [register], readCount: 1)
        guard let value = bytes.first else {
            throw I2CError(kind: .other, errno: 0, operation: "read register 0x\(hex(register))", address: address,
                           bus: name, detail: "the bus returned no data")
        }
        return value
    }

    public func writeRegister(address: UInt8, _ register: UInt8, _ value: UInt8) throws(I2CError) {
        try write(address: address, [register, value])
    }
}

/// Two-digit upper-case hex, for register and address messages.
public func hex(_ value: UInt8) -> String {
    let digits = Array("0123456789ABCDEF")
    return String([digits[Int(value >> 4)], digits[Int(value & 0x0F)]])
}
