import Glibc
import POSIXLayer

/// Speaks the sd_notify protocol (one datagram per state change to `$NOTIFY_SOCKET`) without
/// linking libsystemd: the protocol is a single `sendto`, and not depending on libsystemd keeps
/// the binary runnable where it is absent (and in the test VM).
public final class SystemdNotifier {
    private let socketAddress: UnixSocketAddress?
    private let descriptor: FileDescriptor?
    /// How often systemd wants WATCHDOG=1, or nil when the unit has no `WatchdogSec=`.
    public let watchdogInterval: Double?

    /// Reads `NOTIFY_SOCKET`, `WATCHDOG_USEC` and `WATCHDOG_PID` from `environment`.
    public init(environment: [String: String], pid: Int32 = getpid()) {
        var interval: Double?
        if let usec = environment["WATCHDOG_USEC"].flatMap({ UInt64($0) }), usec > 0 {
            let owner = environment["WATCHDOG_PID"].flatMap { Int32($0) }
            if owner == nil || owner == pid { interval = Double(usec) / 1_000_000 }
        }
        watchdogInterval = interval

        guard let path = environment["NOTIFY_SOCKET"], !path.isEmpty,
              let address = SystemdNotifier.makeAddress(path),
              let socket = try? FileDescriptor.unixSocket(Int32(SOCK_DGRAM.rawValue))
        else {
            socketAddress = nil
            descriptor = nil
            return
        }
        socketAddress = address
        descriptor = socket
    }

    /// True when a notify socket was given (the agent runs under `Type=notify`).
    public var isActive: Bool { socketAddress != nil }

    /// Sends `READY=1`, `STATUS=...`, `WATCHDOG=1`, `STOPPING=1` and friends (newline-separated).
    @discardableResult
    public func notify(_ state: String) -> Bool {
        guard let address = socketAddress, let descriptor else { return false }
        let bytes = Array(state.utf8)
        return (try? descriptor.send(bytes, to: address)) == bytes.count
    }

    /// The address of `$NOTIFY_SOCKET`: a file-system path or, with a leading `@`, the abstract namespace.
    static func makeAddress(_ path: String) -> UnixSocketAddress? {
        UnixSocketAddress(systemdNotation: path)
    }
}
