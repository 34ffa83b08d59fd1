import Glibc

/// A `sockaddr_un`, built in one place: a file-system path, or a name in Linux's abstract namespace.
public struct UnixSocketAddress: Sendable {
    public private(set) var storage = sockaddr_un()
    /// The bytes of `storage` that count: the family, the path and its NUL (none for an abstract name).
    public private(set) var length: socklen_t = 0

    /// The longest file-system path a socket address holds (sun_path less its NUL): 107 on Linux.
    public static let maxPathBytes = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1

    /// A file-system path of 1 to 107 bytes without NUL; nil otherwise.
    public init?(path: String) {
        let bytes = Array(path.utf8)
        guard !bytes.isEmpty, !bytes.contains(0), Self.fill(&storage, bytes + [0]) else { return nil }
        length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + 1)
    }

    /// A name in the abstract namespace (systemd writes it as `@name`): a leading NUL, no trailing one.
    public init?(abstractName: String) {
        let bytes = [0] + Array(abstractName.utf8)
        guard Self.fill(&storage, bytes) else { return nil }
        length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count)
    }

    /// `@name` as abstract, anything else as a path: the notation of `$NOTIFY_SOCKET`.
    public init?(systemdNotation text: String) {
        if text.hasPrefix("@") { self.init(abstractName: String(text.dropFirst())) } else { self.init(path: text) }
    }

    private static func fill(_ address: inout sockaddr_un, _ bytes: [UInt8]) -> Bool {
        address.sun_family = sa_family_t(AF_UNIX)
        guard bytes.count <= MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        return true
    }

    func withSockaddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        withUnsafePointer(to: storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
        }
    }
}

extension FileDescriptor {
    /// An AF_UNIX socket of `type` (SOCK_STREAM, SOCK_DGRAM; SOCK_NONBLOCK may be or-ed in), close-on-exec.
    public static func unixSocket(_ type: Int32) throws(Errno) -> FileDescriptor {
        FileDescriptor(adopting: try valueOrErrno { socket(AF_UNIX, type | Int32(SOCK_CLOEXEC.rawValue), 0) })
    }

    public func connect(to address: UnixSocketAddress) throws(Errno) {
        let fd = rawValue
        try nothingOrErrno { address.withSockaddr { Glibc.connect(fd, $0, $1) } }
    }

    public func bind(to address: UnixSocketAddress) throws(Errno) {
        let fd = rawValue
        try nothingOrErrno { address.withSockaddr { Glibc.bind(fd, $0, $1) } }
    }

    public func listen(backlog: Int32) throws(Errno) {
        let fd = rawValue
        try nothingOrErrno { Glibc.listen(fd, backlog) }
    }

    /// The next pending connection, made non-blocking and close-on-exec; nil when none is pending.
    public func accept() throws(Errno) -> FileDescriptor? {
        let fd = rawValue
        let client: FileDescriptor
        do throws(Errno) {
            client = FileDescriptor(adopting: try valueOrErrno { Glibc.accept(fd, nil, nil) })
        } catch {
            if error == .wouldBlock { return nil }
            throw error
        }
        try client.setNonBlocking()
        _ = fcntl(client.rawValue, F_SETFD, FD_CLOEXEC)
        return client
    }

    /// One send(2) with MSG_NOSIGNAL (a vanished peer is EPIPE, not SIGPIPE) and `flags`.
    public func send(_ bytes: UnsafeRawBufferPointer, flags: Int32 = 0) throws(Errno) -> Int {
        let fd = rawValue
        return try valueOrErrno { Glibc.send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL) | flags) }
    }

    /// One datagram to `address` (sendto(2) with MSG_NOSIGNAL).
    public func send(_ bytes: [UInt8], to address: UnixSocketAddress) throws(Errno) -> Int {
        let fd = rawValue
        return try valueOrErrno {
            bytes.withUnsafeBytes { raw in
                address.withSockaddr { sendto(fd, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL), $0, $1) }
            }
        }
    }

    /// One recv(2); 0 when the peer closed.
    public func receive(into buffer: UnsafeMutableRawBufferPointer, flags: Int32 = 0) throws(Errno) -> Int {
        let fd = rawValue
        return try valueOrErrno { recv(fd, buffer.baseAddress, buffer.count, flags) }
    }
}
