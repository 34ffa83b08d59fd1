import CStepdShim
import Glibc
import POSIXLayer

/// A failed GPIO request or read; keeps errno.
public struct GPIOError: Error, Sendable, Equatable, CustomStringConvertible {
    public var errno: Int32
    public var operation: String
    public var chip: String
    public var offset: Int

    public init(errno: Int32, operation: String, chip: String, offset: Int) {
        self.errno = errno
        self.operation = operation
        self.chip = chip
        self.offset = offset
    }

    public var description: String {
        let reason = Errno(errno).description
        let advice: String
        switch errno {
        case ENOENT, ENODEV: advice = "check the chip name with gpiodetect and the line offset with gpioinfo"
        case EACCES, EPERM: advice = "add the user to group gpio (or give it access to /dev/\(chip))"
        case EBUSY: advice = "another consumer holds the line (gpioinfo shows it)"
        case EINVAL: advice = "the line offset does not exist on this chip or cannot do edge events"
        default: advice = "check the kernel log (dmesg)"
        }
        return "GPIO \(chip) line \(offset): \(operation) failed (\(reason)): \(advice)"
    }
}

/// A sensor's interrupt pin wired to a GPIO line, watched for rising edges. The agent polls
/// `fileDescriptor`; `readEvents()` then returns the kernel timestamps of the pending edges.
public final class GPIODataReadyLine {
    public let chip: String
    public let offset: Int
    private let line: OpaquePointer

    public init(chip: String, offset: Int, consumer: String = "stepd") throws(GPIOError) {
        guard offset >= 0, offset <= Int(UInt32.max) else {
            throw GPIOError(errno: EINVAL, operation: "request line", chip: chip, offset: offset)
        }
        var handle: OpaquePointer?
        let result = stepd_gpio_line_open(chip, UInt32(offset), consumer, &handle)
        guard result >= 0, let handle else {
            throw GPIOError(errno: result < 0 ? -result : EIO, operation: "request rising-edge events", chip: chip, offset: offset)
        }
        self.chip = chip
        self.offset = offset
        line = handle
    }

    deinit { stepd_gpio_line_close(line) }

    /// Readable when an edge is pending.
    public var fileDescriptor: Int32 { stepd_gpio_line_fd(line) }

    /// Waits up to `timeout` seconds for an edge: true when one is pending.
    public func wait(timeout: Double) throws(GPIOError) -> Bool {
        // Capped at a day: Int64(Double) traps on infinity and on anything past ~292 years.
        let seconds = timeout.isNaN ? 0 : min(max(0, timeout), 86400)
        let result = stepd_gpio_line_wait(line, Int64(seconds * 1e9))
        guard result >= 0 else { throw GPIOError(errno: -result, operation: "wait for event", chip: chip, offset: offset) }
        return result > 0
    }

    /// Reads every pending edge without blocking; kernel timestamps in seconds (CLOCK_MONOTONIC).
    public func readEvents() throws(GPIOError) -> [Double] {
        var times: [Double] = []
        while try wait(timeout: 0) {
            var ns: Int64 = 0
            let result = stepd_gpio_line_read(line, &ns)
            guard result >= 0 else { throw GPIOError(errno: -result, operation: "read event", chip: chip, offset: offset) }
            times.append(Double(ns) / 1e9)
            if times.count >= 256 { break }
        }
        return times
    }
}
