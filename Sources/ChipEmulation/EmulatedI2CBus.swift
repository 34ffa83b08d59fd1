import Glibc
import SensorBus
import StepdModel

/// An I2C bus with emulated chips behind it, answering like /dev/i2c-N: NACK (ENXIO) for empty
/// addresses, optional SMBus-only limits (one command byte, reads of at most 32 bytes, writes of
/// at most 2 bytes) so the drivers' fallback path runs, fault injection, and counters.
public final class EmulatedI2CBus: I2CBus {
    public let name: String
    public let clock: any SensorClock
    public let smbusOnly: Bool
    private var chips: [UInt8: any EmulatedChip] = [:]

    // Counters for measurements.
    public private(set) var transactions = 0
    public private(set) var failedTransactions = 0
    public private(set) var bytesTransferred = 0

    // Fault state.
    private var nackRemaining = 0
    private var ioErrorRemaining = 0
    private var vanished: [UInt8: Double] = [:]          // address -> back at (sensor time), .infinity = until reappear()
    private var identityRestore: [(address: UInt8, at: Double)] = []
    private var schedule: [FaultSchedule.Entry] = []
    private var scheduleOrigin = 0.0
    /// Faults applied so far, with their (absolute) sensor times: for recovery measurements.
    public private(set) var appliedFaults: [(time: Double, fault: FaultSchedule.Fault)] = []

    public init(clock: any SensorClock, smbusOnly: Bool = false, name: String = "emulated") {
        self.clock = clock
        self.smbusOnly = smbusOnly
        self.name = name
    }

    public var maxReadLength: Int { smbusOnly ? I2CTransferLimit.smbusBlock : I2CTransferLimit.message }

    public func attach(_ chip: any EmulatedChip) {
        chips[chip.address] = chip
    }

    public func chip(at address: UInt8) -> (any EmulatedChip)? { chips[address] }

    // MARK: Fault injection

    /// The next `count` transactions are not acknowledged.
    public func injectNACK(count: Int) { nackRemaining += max(0, count) }
    /// The next `count` transactions fail with EIO.
    public func injectIOErrors(count: Int) { ioErrorRemaining += max(0, count) }
    /// The chip at `address` stops answering, for `duration` sensor seconds or until `reappear`.
    public func vanish(address: UInt8, duration: Double? = nil) {
        vanished[address] = duration.map { clock.now() + $0 } ?? .infinity
    }
    /// The chip answers again, fresh from power-up.
    public func reappear(address: UInt8) {
        guard vanished.removeValue(forKey: address) != nil else { return }
        chips[address]?.powerGlitch()
    }

    /// Installs `schedule`; its times count from now.
    public func install(_ schedule: FaultSchedule) {
        self.schedule = schedule.entries
        scheduleOrigin = clock.now()
    }

    /// Applies faults whose time has come. Called before every transaction; the agent or a
    /// benchmark may call it too so faults land on time even when the bus is idle.
    public func applyDueFaults() {
        let now = clock.now()
        while let entry = schedule.first, scheduleOrigin + entry.time <= now {
            schedule.removeFirst()
            let at = scheduleOrigin + entry.time
            for chip in chips.values { chip.advance(to: at) }
            appliedFaults.append((at, entry.fault))
            switch entry.fault {
            case .reset:
                chips.values.forEach { $0.powerGlitch() }
            case .nack(let n):
                injectNACK(count: n)
            case .ioError(let n):
                injectIOErrors(count: n)
            case .overflow:
                chips.values.forEach { $0.forceOverflow() }
            case .vanish(let duration):
                for address in chips.keys { vanished[address] = at + duration }
            case .wrongIdentity(let duration):
                for chip in chips.values {
                    chip.powerGlitch()
                    chip.identityOverride = chip.wrongIdentity
                    identityRestore.append((chip.address, at + duration))
                }
            }
        }
        for (address, until) in vanished where until <= now {
            vanished.removeValue(forKey: address)
            chips[address]?.advance(to: until)
            chips[address]?.powerGlitch()
        }
        identityRestore.removeAll { item in
            guard item.at <= now else { return false }
            chips[item.address]?.identityOverride = nil
            return true
        }
    }

    // MARK: I2CBus

    public func writeRead(address: UInt8, _ bytes: [UInt8], readCount: Int) throws(I2CError) -> [UInt8] {
        let operation = bytes.first.map { "read register 0x\(hex($0))" } ?? "read"
        // Refused like i2c-dev refuses it; a negative count would trap in the chip's read loop.
        guard readCount >= 0 else {
            throw I2CError(kind: .unsupported, errno: EINVAL, operation: operation, address: address, bus: name,
                           detail: "read count \(readCount) is negative")
        }
        if smbusOnly && (bytes.count != 1 || readCount > I2CTransferLimit.smbusBlock || readCount < 1) {
            throw I2CError(kind: .unsupported, errno: EOPNOTSUPP, operation: operation, address: address, bus: name,
                           detail: "SMBus-only adapter: one command byte and 1 to 32 bytes per read (asked \(bytes.count) and \(readCount))")
        }
        let chip = try begin(address: address, operation: operation)
        if bytes.count > 1 { chip.write(bytes) }
        bytesTransferred += bytes.count + readCount
        return chip.read(pointer: bytes.first ?? 0, count: readCount)
    }

    public func write(address: UInt8, _ bytes: [UInt8]) throws(I2CError) {
        let operation = bytes.first.map { "write register 0x\(hex($0))" } ?? "write"
        if smbusOnly && (bytes.isEmpty || bytes.count > 2) {
            throw I2CError(kind: .unsupported, errno: EOPNOTSUPP, operation: operation, address: address, bus: name,
                           detail: "SMBus-only adapter: byte writes only (asked \(bytes.count) bytes)")
        }
        let chip = try begin(address: address, operation: operation)
        bytesTransferred += bytes.count
        chip.write(bytes)
    }

    private func begin(address: UInt8, operation: String) throws(I2CError) -> any EmulatedChip {
        applyDueFaults()
        transactions += 1
        if nackRemaining > 0 {
            nackRemaining -= 1
            failedTransactions += 1
            throw I2CError(errno: ENXIO, operation: operation, address: address, bus: name)
        }
        if ioErrorRemaining > 0 {
            ioErrorRemaining -= 1
            failedTransactions += 1
            throw I2CError(errno: EIO, operation: operation, address: address, bus: name)
        }
        guard vanished[address] == nil, let chip = chips[address] else {
            failedTransactions += 1
            throw I2CError(errno: ENXIO, operation: operation, address: address, bus: name)
        }
        return chip
    }
}
