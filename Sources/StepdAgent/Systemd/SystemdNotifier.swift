import Glibc

/// Speaks the sd_notify protocol (one datagram per state change to `$NOTIFY_SOCKET`) without
/// linking libsystemd: the protocol is a single `sendto`, and not depending on libsystemd keeps
/// the binary runnable where it is absent (and in the test VM).
public final class SystemdNotifier {
    private let socketAddress: sockaddr_un?
    private let addressLength: socklen_t
    private let descriptor: Int32
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
              let (address, length) = SystemdNotifier.makeAddress(path)
        else {
            socketAddress = nil
            addressLength = 0
            descriptor = -1
            return
        }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        socketAddress = fd >= 0 ? address : nil
        addressLength = length
        descriptor = fd
    }

    deinit {
        if descriptor >= 0 { Glibc.close(descriptor) }
    }

    /// True when a notify socket was given (the agent runs under `Type=notify`).
    public var isActive: Bool { socketAddress != nil }

    /// Sends `READY=1`, `STATUS=...`, `WATCHDOG=1`, `STOPPING=1` and friends (newline-separated).
    @discardableResult
    public func notify(_ state: String) -> Bool {
        guard var address = socketAddress else { return false }
        let bytes = Array(state.utf8)
        let sent = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bytes.withUnsafeBytes { raw in
                    sendto(descriptor, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL), generic, addressLength)
                }
            }
        }
        return sent == bytes.count
    }

    /// A `sockaddr_un` for a filesystem path or, with a leading `@`, the abstract namespace.
    static func makeAddress(_ path: String) -> (sockaddr_un, socklen_t)? {
        var bytes = Array(path.utf8)
        if bytes.first == UInt8(ascii: "@") { bytes[0] = 0 }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard !bytes.isEmpty, bytes.count < capacity else { return nil }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        let length = MemoryLayout<sa_family_t>.size + bytes.count + (bytes[0] == 0 ? 0 : 1)
        return (address, socklen_t(length))
    }
}
