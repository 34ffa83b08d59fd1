import Glibc

/// A failed socket operation, keeping errno and saying what to do about it.
public struct SocketError: Error, Sendable, Equatable, CustomStringConvertible {
    public var operation: String
    public var path: String
    public var errno: Int32
    public var hint: String?

    public init(operation: String, path: String, errno: Int32, hint: String? = nil) {
        self.operation = operation
        self.path = path
        self.errno = errno
        self.hint = hint
    }

    public var description: String {
        let reason = errno == 0 ? "" : ": \(String(cString: strerror(errno)))"
        let tail = hint.map { " (\($0))" } ?? ""
        return "\(operation) \(path)\(reason)\(tail)"
    }
}

/// Builds a `sockaddr_un` for `path`; nil when the path does not fit (107 bytes on Linux).
func makeUnixAddress(_ path: String) -> sockaddr_un? {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    let capacity = MemoryLayout.size(ofValue: address.sun_path)
    guard !bytes.isEmpty, bytes.count < capacity, !bytes.contains(0) else { return nil }
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
        for (i, b) in bytes.enumerated() { raw[i] = b }
        raw[bytes.count] = 0
    }
    return address
}

/// connect(2) on a Unix address, retrying EINTR.
func connectUnix(_ fd: Int32, _ address: sockaddr_un) -> Int32 {
    var address = address
    while true {
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        if rc == 0 { return 0 }
        if Glibc.errno == EINTR { continue }
        return Glibc.errno
    }
}

func setNonBlocking(_ fd: Int32) {
    let flags = fcntl(fd, F_GETFL)
    if flags >= 0 { _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK) }
}

/// Wall-clock UTC seconds, for notification timestamps.
func utcNow() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_REALTIME, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}
