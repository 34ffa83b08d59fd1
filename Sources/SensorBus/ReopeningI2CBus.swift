/// An i2c-dev bus that opens its device node when first used and closes it after a failed
/// transfer, so the next attempt opens it again. A sensor path must survive its adapter going
/// away and coming back (`rmmod i2c-stub`, a USB-I2C bridge replugged, a device node that
/// appears after the agent started): an fd opened before that keeps failing with ENODEV forever.
/// The supervisor's backoff bounds how often the node is reopened.
public final class ReopeningI2CBus: I2CBus {
    public let name: String
    private var open: LinuxI2CBus?

    public init(path: String) {
        name = path
    }

    public var maxReadLength: Int {
        // Before the node could be opened, assume the SMBus limit: a driver that splits its
        // bursts for SMBus also works on a full I2C adapter.
        (try? adapter())?.maxReadLength ?? I2CTransferLimit.smbusBlock
    }

    public func writeRead(address: UInt8, _ bytes: [UInt8], readCount: Int) throws(I2CError) -> [UInt8] {
        let bus = try adapter()
        do {
            return try bus.writeRead(address: address, bytes, readCount: readCount)
        } catch {
            dropAfter(error)
            throw error
        }
    }

    public func write(address: UInt8, _ bytes: [UInt8]) throws(I2CError) {
        let bus = try adapter()
        do {
            try bus.write(address: address, bytes)
        } catch {
            dropAfter(error)
            throw error
        }
    }

    /// Closes the device node until the next transfer. An open i2c-dev fd pins the adapter (and
    /// its kernel module: `rmmod` fails with EAGAIN), so a bus whose chip is lost should not hold
    /// it between re-probes.
    public func release() {
        open = nil
    }

    private func adapter() throws(I2CError) -> LinuxI2CBus {
        if let open { return open }
        let bus = try LinuxI2CBus(path: name)
        open = bus
        return bus
    }

    /// A missing acknowledge or lost arbitration says nothing about the adapter; anything else
    /// (ENODEV after the adapter vanished, EIO, timeouts) is worth a fresh open next time.
    private func dropAfter(_ error: I2CError) {
        switch error.kind {
        case .noAcknowledge, .arbitrationLost, .busy: return
        default: open = nil
        }
    }
}
