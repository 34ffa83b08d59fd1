import CStepdShim
import Glibc
import POSIXLayer

/// An i2c-dev adapter. Uses I2C_RDWR (write, repeated start, read in one ioctl) when the adapter
/// supports plain I2C, and SMBus I2C-block reads plus byte writes when it is SMBus-only
/// (i2c-stub and some SoC adapters).
public final class LinuxI2CBus: I2CBus {
    public enum TransferMode: String, Sendable { case i2c, smbus }

    public let name: String
    public let mode: TransferMode
    /// The adapter's I2C_FUNCS mask.
    public let functionality: UInt
    private let descriptor: FileDescriptor
    private var fd: Int32 { descriptor.rawValue }
    /// SMBus calls go to the address last set with I2C_SLAVE.
    private var selectedAddress: UInt8?

    public init(path: String) throws(I2CError) {
        // Owned from here: every throw below closes it.
        let descriptor: FileDescriptor
        do throws(Errno) {
            descriptor = try FileDescriptor.open(path, O_RDWR)
        } catch {
            throw I2CError(errno: error.rawValue, operation: "open", address: nil, bus: path)
        }
        var funcs: UInt = 0
        let queried = stepd_i2c_functionality(descriptor.rawValue, &funcs)
        guard queried >= 0 else {
            throw I2CError(kind: .unsupported, errno: -queried, operation: "I2C_FUNCS", address: nil, bus: path,
                           detail: "\(path) is not an i2c-dev adapter")
        }
        if funcs & UInt(STEPD_I2C_FUNC_I2C) != 0 {
            mode = .i2c
        } else if funcs & UInt(STEPD_I2C_FUNC_SMBUS_READ_I2C_BLOCK) != 0
            && funcs & UInt(STEPD_I2C_FUNC_SMBUS_WRITE_BYTE_DATA) != 0 {
            mode = .smbus
        } else {
            throw I2CError(kind: .unsupported, errno: 0, operation: "I2C_FUNCS", address: nil, bus: path,
                           detail: "the adapter supports neither I2C_RDWR nor SMBus I2C-block reads (functionality 0x\(String(funcs, radix: 16)))")
        }
        self.descriptor = descriptor
        functionality = funcs
        name = path
    }

    public var maxReadLength: Int { mode == .i2c ? I2CTransferLimit.message : I2CTransferLimit.smbusBlock }

    public func writeRead(address: UInt8, _ bytes: [UInt8], readCount: Int) throws(I2CError) -> [UInt8] {
        let operation = bytes.first.map { "read register 0x\(hex($0))" } ?? "read"
        try checkLengths(write: bytes.count, read: readCount, operation: operation, address: address)
        switch mode {
        case .i2c:
            var buffer = [UInt8](repeating: 0, count: readCount)
            let result = bytes.withUnsafeBufferPointer { out in
                buffer.withUnsafeMutableBufferPointer { into in
                    stepd_i2c_write_read(fd, UInt16(address), out.baseAddress, UInt16(out.count),
                                         into.baseAddress, UInt16(into.count))
                }
            }
            guard result >= 0 else { throw I2CError(errno: -result, operation: operation, address: address, bus: name) }
            return buffer
        case .smbus:
            guard bytes.count == 1, let command = bytes.first else {
                throw I2CError(kind: .unsupported, errno: EOPNOTSUPP, operation: operation, address: address, bus: name,
                               detail: "an SMBus-only adapter reads after exactly one command byte, got \(bytes.count)")
            }
            try select(address, operation: operation)
            // Longer reads repeat the same command: that is how FIFO registers are drained, and
            // drivers never read more than 32 consecutive plain registers.
            var result: [UInt8] = []
            result.reserveCapacity(readCount)
            while result.count < readCount {
                let chunk = min(I2CTransferLimit.smbusBlock, readCount - result.count)
                var buffer = [UInt8](repeating: 0, count: chunk)
                let got = buffer.withUnsafeMutableBufferPointer { into in
                    stepd_smbus_read_block(fd, command, UInt8(chunk), into.baseAddress)
                }
                guard got >= 0 else { throw I2CError(errno: -got, operation: operation, address: address, bus: name) }
                guard Int(got) == chunk else {
                    throw I2CError(kind: .other, errno: EIO, operation: operation, address: address, bus: name,
                                   detail: "SMBus block read returned \(got) of \(chunk) bytes")
                }
                result += buffer
            }
            return result
        }
    }

    public func write(address: UInt8, _ bytes: [UInt8]) throws(I2CError) {
        let operation = bytes.first.map { "write register 0x\(hex($0))" } ?? "write"
        switch mode {
        case .i2c:
            try checkLengths(write: bytes.count, read: 0, operation: operation, address: address)
            let result = bytes.withUnsafeBufferPointer { out in
                stepd_i2c_write_read(fd, UInt16(address), out.baseAddress, UInt16(out.count), nil, 0)
            }
            guard result >= 0 else { throw I2CError(errno: -result, operation: operation, address: address, bus: name) }
        case .smbus:
            try select(address, operation: operation)
            let result: Int32
            switch bytes.count {
            case 1:
                result = stepd_smbus_write_byte(fd, bytes[0])
            case 2:
                result = stepd_smbus_write_byte_data(fd, bytes[0], bytes[1])
            case 3...(I2CTransferLimit.smbusBlock + 1):
                let values = Array(bytes.dropFirst())
                result = values.withUnsafeBufferPointer { out in
                    stepd_smbus_write_block(fd, bytes[0], UInt8(values.count), out.baseAddress)
                }
            default:
                throw I2CError(kind: .unsupported, errno: EOPNOTSUPP, operation: operation, address: address, bus: name,
                               detail: "an SMBus-only adapter writes 1 to 33 bytes, got \(bytes.count)")
            }
            guard result >= 0 else { throw I2CError(errno: -result, operation: operation, address: address, bus: name) }
        }
    }

    /// The C shim takes 16-bit lengths; the kernel refuses longer messages anyway.
    private func checkLengths(write: Int, read: Int, operation: String, address: UInt8) throws(I2CError) {
        guard read >= 0, read <= I2CTransferLimit.message, write <= I2CTransferLimit.message else {
            throw I2CError(kind: .unsupported, errno: EINVAL, operation: operation, address: address, bus: name,
                           detail: "transfers are limited to \(I2CTransferLimit.message) bytes")
        }
    }

    private func select(_ address: UInt8, operation: String) throws(I2CError) {
        guard selectedAddress != address else { return }
        let result = stepd_i2c_set_address(fd, UInt16(address))
        guard result >= 0 else {
            throw I2CError(errno: -result, operation: "I2C_SLAVE for \(operation)", address: address, bus: name)
        }
        selectedAddress = address
    }
}
