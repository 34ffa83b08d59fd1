import CStepdShim
import Glibc

/// SIGTERM, SIGINT and SIGHUP delivered through a signalfd, so the poll loop sees them as an fd
/// becoming readable instead of a handler interrupting it at an arbitrary point.
final class SignalDescriptor {
    let fileDescriptor: Int32

    struct CreationError: Error, CustomStringConvertible {
        let errno: Int32
        var description: String { "cannot create a signalfd: \(String(cString: strerror(errno)))" }
    }

    init(signals: [Int32]) throws(CreationError) {
        let fd = signals.withUnsafeBufferPointer { stepd_signalfd_create($0.baseAddress, Int32($0.count)) }
        guard fd >= 0 else { throw CreationError(errno: -fd) }
        fileDescriptor = fd
        // A client that disconnects mid-write must not kill the agent.
        signal(SIGPIPE, SIG_IGN)
    }

    deinit { Glibc.close(fileDescriptor) }

    /// Every signal that is pending now.
    func drain() -> [Int32] {
        var received: [Int32] = []
        while true {
            let number = stepd_signalfd_read(fileDescriptor)
            if number <= 0 { return received }
            received.append(number)
        }
    }
}
