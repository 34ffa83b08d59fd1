import Glibc

/// An open file descriptor that this object owns: it is closed exactly once, by `close()` or
/// when the object goes away, so no caller writes close/cleanup paths by hand. Descriptors the
/// process does not own (stdin/stdout/stderr) are wrapped with `init(borrowing:)` and never closed.
public final class FileDescriptor {
    /// The kernel's number; -1 once closed.
    public private(set) var rawValue: Int32
    private let owned: Bool

    /// Takes ownership of `rawValue` (from a C call that opened it).
    public init(adopting rawValue: Int32) {
        self.rawValue = rawValue
        owned = true
    }

    /// Uses `rawValue` without owning it: `close()` and deinit leave it open.
    public init(borrowing rawValue: Int32) {
        self.rawValue = rawValue
        owned = false
    }

    deinit { close() }

    public var isOpen: Bool { rawValue >= 0 }

    /// Closes the descriptor if this object owns it and it is still open; later calls do nothing.
    /// close(2) is not retried on EINTR: on Linux the descriptor is gone either way.
    public func close() {
        guard rawValue >= 0 else { return }
        if owned { _ = Glibc.close(rawValue) }
        rawValue = -1
    }

    /// Hands the descriptor to a new owner (a C library that closes it itself); this object
    /// forgets it and closes nothing.
    @discardableResult
    public func release() -> Int32 {
        let released = rawValue
        rawValue = -1
        return released
    }

    /// open(2), close-on-exec.
    public static func open(_ path: String, _ flags: Int32, permissions: mode_t = 0o644) throws(Errno) -> FileDescriptor {
        FileDescriptor(adopting: try valueOrErrno { Glibc.open(path, flags | O_CLOEXEC, permissions) })
    }

    // MARK: Reading and writing

    /// One read(2); 0 at end of file.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
        try valueOrErrno { Glibc.read(rawValue, buffer.baseAddress, buffer.count) }
    }

    /// Everything up to end of file.
    public func readToEnd(chunkSize: Int = 65_536) throws(Errno) -> [UInt8] {
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: chunkSize)
        while true {
            let count = try chunk.withUnsafeMutableBytes { raw in Result { () throws(Errno) in try read(into: raw) } }.get()
            if count == 0 { return result }
            result.append(contentsOf: chunk[0..<count])
        }
    }

    /// Writes every byte (write(2) may take fewer than asked), at `offset` with pwrite(2) when given.
    public func writeAll(_ bytes: UnsafeRawBufferPointer, at offset: Int? = nil) throws(Errno) {
        var written = 0
        while written < bytes.count {
            let start = bytes.baseAddress.map { $0 + written }
            let remaining = bytes.count - written
            let fd = rawValue
            written += try valueOrErrno {
                if let offset { return pwrite(fd, start, remaining, off_t(offset + written)) }
                return Glibc.write(fd, start, remaining)
            }
        }
    }

    public func writeAll(_ bytes: [UInt8], at offset: Int? = nil) throws(Errno) {
        try bytes.withUnsafeBytes { raw in Result { () throws(Errno) in try writeAll(raw, at: offset) } }.get()
    }

    /// fdatasync(2): the data (and the size) reach the disk, not necessarily the other metadata.
    public func dataSync() throws(Errno) { try nothingOrErrno { fdatasync(rawValue) } }

    /// fsync(2); on a directory, makes created, renamed and removed entries durable.
    public func sync() throws(Errno) { try nothingOrErrno { fsync(rawValue) } }

    public func truncate(to length: Int) throws(Errno) { try nothingOrErrno { ftruncate(rawValue, off_t(length)) } }

    /// fstat(2) size in bytes.
    public func size() throws(Errno) -> Int {
        var info = stat()
        try nothingOrErrno { fstat(rawValue, &info) }
        return Int(info.st_size)
    }

    public func setNonBlocking() throws(Errno) {
        let fd = rawValue
        let flags = try valueOrErrno { fcntl(fd, F_GETFL) }
        try nothingOrErrno { fcntl(fd, F_SETFL, flags | O_NONBLOCK) }
    }
}

/// poll(2) over `descriptors`. With `retryOnInterrupt` false an interrupted wait throws
/// `Errno.interrupted`, so the caller can treat it as "nothing ready" and check its deadlines.
public func pollDescriptors(_ descriptors: inout [pollfd], timeoutMilliseconds: Int32,
                            retryOnInterrupt: Bool = true) throws(Errno) -> Int {
    let count = try valueOrErrno(retryOnInterrupt: retryOnInterrupt) {
        descriptors.withUnsafeMutableBufferPointer { poll($0.baseAddress, nfds_t($0.count), timeoutMilliseconds) }
    }
    return Int(count)
}
