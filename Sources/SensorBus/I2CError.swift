import Glibc
import POSIXLayer

/// A failed bus transaction. Keeps errno so nothing is lost; `kind` says what it means for the
/// driver (retry, re-probe, give up) and `description` says what a person should check.
public struct I2CError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable, Equatable {
        /// ENXIO / EREMOTEIO: nobody acknowledged the address.
        case noAcknowledge
        /// ETIMEDOUT: the adapter gave up (SCL held low, clock stretching too long).
        case timedOut
        /// EBUSY: a kernel driver has bound the address.
        case busy
        /// EAGAIN: arbitration lost on a multi-master bus; retrying is right.
        case arbitrationLost
        /// ENOENT / ENODEV: no such i2c-dev node.
        case deviceMissing
        /// EACCES / EPERM on the device node.
        case permissionDenied
        /// The adapter cannot do the transfer asked for (EOPNOTSUPP, or too long for SMBus).
        case unsupported
        /// Anything else, EIO included.
        case other
    }

    public var kind: Kind
    public var errno: Int32
    /// What was attempted: "open", "read register 0x75", "write 0x6B"...
    public var operation: String
    public var address: UInt8?
    public var bus: String
    /// Extra detail from the caller when errno alone does not say it.
    public var detail: String?

    public init(kind: Kind, errno: Int32, operation: String, address: UInt8?, bus: String, detail: String? = nil) {
        self.kind = kind
        self.errno = errno
        self.operation = operation
        self.address = address
        self.bus = bus
        self.detail = detail
    }

    /// Classifies an errno the way a sensor driver needs it.
    public init(errno code: Int32, operation: String, address: UInt8?, bus: String) {
        self.init(kind: I2CError.kind(forErrno: code), errno: code, operation: operation, address: address, bus: bus)
    }

    public static func kind(forErrno code: Int32) -> Kind {
        switch code {
        case ENXIO, EREMOTEIO: return .noAcknowledge
        case ETIMEDOUT: return .timedOut
        case EBUSY: return .busy
        case EAGAIN: return .arbitrationLost
        case ENOENT, ENODEV: return .deviceMissing
        case EACCES, EPERM: return .permissionDenied
        case EOPNOTSUPP: return .unsupported
        default: return .other
        }
    }

    /// Errors worth an immediate retry of the same transaction.
    public var isTransient: Bool {
        switch kind {
        case .noAcknowledge, .timedOut, .arbitrationLost, .other: return true
        case .busy, .deviceMissing, .permissionDenied, .unsupported: return false
        }
    }

    public var description: String {
        let at = address.map { " at 0x\(hex($0))" } ?? ""
        var text = "\(bus): \(operation)\(at) failed"
        if errno != 0 { text += " (errno \(errno) \(I2CError.errnoName(errno)))" }
        if let detail { text += ": \(detail)" }
        text += ". " + advice
        return text
    }

    /// What to check, per kind.
    public var advice: String {
        switch kind {
        case .noAcknowledge:
            return "No device acknowledged: check the sensor's power, SDA/SCL wiring, pull-ups and the address (i2cdetect -y N)."
        case .timedOut:
            return "The bus timed out: check for a device holding SCL low, the wiring length and the bus speed."
        case .busy:
            return "A kernel driver owns this address (inv_mpu6050 or st_accel): unbind it, e.g. echo <dev> > /sys/bus/i2c/drivers/<driver>/unbind, or remove the overlay."
        case .arbitrationLost:
            return "Arbitration was lost to another bus master; the transfer is retried."
        case .deviceMissing:
            return "The i2c-dev node does not exist: enable I2C (dtparam=i2c_arm=on on a Raspberry Pi) and load i2c-dev (modprobe i2c-dev)."
        case .permissionDenied:
            return "Permission denied on the device node: add the user to group i2c (usermod -aG i2c USER) and log in again."
        case .unsupported:
            return "The adapter cannot do this transfer; check I2C_FUNCS (i2cdetect -F N)."
        case .other:
            return "Check the wiring and the kernel log (dmesg)."
        }
    }

    static func errnoName(_ code: Int32) -> String {
        let error = Errno(code)
        return error.name ?? error.description
    }
}
