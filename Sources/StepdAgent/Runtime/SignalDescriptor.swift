import CStepdShim
import Glibc
import POSIXLayer

/// The signals of `AgentSignals` delivered through a signalfd, so the poll loop sees them as an fd
/// becoming readable instead of a handler interrupting it at an arbitrary point.
final class SignalDescriptor {
    private let descriptor: FileDescriptor
    var fileDescriptor: Int32 { descriptor.rawValue }

    struct CreationError: Error, CustomStringConvertible {
        let errno: Errno
        var description: String { "cannot create a signalfd: \(errno)" }
    }

    init(signals: [Int32]) throws(CreationError) {
        let fd = signals.withUnsafeBufferPointer { stepd_signalfd_create($0.baseAddress, Int32($0.count)) }
        guard fd >= 0 else { throw CreationError(errno: Errno(-fd)) }
        descriptor = FileDescriptor(adopting: fd)
        // A client that disconnects mid-write must not kill the agent.
        signal(SIGPIPE, SIG_IGN)
    }

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
