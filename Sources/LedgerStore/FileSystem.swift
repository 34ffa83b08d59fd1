import Glibc

/// A failed system call with the path it was about and its errno.
public struct FileSystemError: Error, Sendable, Equatable, CustomStringConvertible {
    public var operation: String
    public var path: String
    public var errno: Int32

    public init(operation: String, path: String, errno: Int32) {
        self.operation = operation
        self.path = path
        self.errno = errno
    }

    /// Disk full, quota, read-only or permission: the kind that may heal (space freed, remount),
    /// so the service keeps a backlog and retries instead of giving up.
    public var isRetryable: Bool { [ENOSPC, EDQUOT, EROFS, EACCES, EPERM, EIO, EAGAIN, EINTR].contains(errno) }

    public var description: String {
        let reason = strerror(errno).map { String(cString: $0) } ?? "unknown error"
        return "\(operation) \(path): \(reason) (\(Self.errnoName(errno)))"
    }

    static func errnoName(_ code: Int32) -> String {
        switch code {
        case ENOSPC: return "ENOSPC"
        case EDQUOT: return "EDQUOT"
        case EROFS: return "EROFS"
        case EACCES: return "EACCES"
        case EPERM: return "EPERM"
        case EIO: return "EIO"
        case ENOENT: return "ENOENT"
        case ENOTDIR: return "ENOTDIR"
        case EEXIST: return "EEXIST"
        default: return "errno \(code)"
        }
    }
}

/// The file operations the ledger needs, as a seam: tests inject ENOSPC/EROFS here because
/// they run as root, where chmod cannot make a directory read-only.
public protocol LedgerFileSystem: AnyObject {
    /// Entry names, or nil when the directory does not exist.
    func listDirectory(_ path: String) throws(FileSystemError) -> [String]?
    /// Creates the directory; true when it did not exist before. The new entry is durable only
    /// once its parent is synced (`syncDirectory`).
    @discardableResult
    func makeDirectory(_ path: String) throws(FileSystemError) -> Bool
    func readFile(_ path: String) throws(FileSystemError) -> [UInt8]
    /// Size in bytes, nil when absent.
    func fileSize(_ path: String) throws(FileSystemError) -> Int?
    /// Appends `bytes` at `expectedSize` (cutting anything beyond it first: the remains of an
    /// earlier failed append), then fdatasync. On failure the file is cut back to
    /// `expectedSize` where possible.
    func appendDurably(_ path: String, _ bytes: [UInt8], expectedSize: Int) throws(FileSystemError)
    /// Creates or replaces `path` with `bytes`, fdatasync.
    func writeFileDurably(_ path: String, _ bytes: [UInt8]) throws(FileSystemError)
    /// Cuts `path` to `length` and fsyncs it.
    func truncate(_ path: String, to length: Int) throws(FileSystemError)
    func rename(_ from: String, to: String) throws(FileSystemError)
    func remove(_ path: String) throws(FileSystemError)
    /// fsync of a directory, so a created, renamed or removed entry survives a power cut.
    func syncDirectory(_ path: String) throws(FileSystemError)
}

/// The real thing, over Glibc.
public final class PosixFileSystem: LedgerFileSystem {
    public init() {}

    public func listDirectory(_ path: String) throws(FileSystemError) -> [String]? {
        guard let dir = opendir(path) else {
            if errno == ENOENT { return nil }
            throw FileSystemError(operation: "opendir", path: path, errno: errno)
        }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    @discardableResult
    public func makeDirectory(_ path: String) throws(FileSystemError) -> Bool {
        if mkdir(path, 0o755) == 0 { return true }
        if errno == EEXIST { return false }
        throw FileSystemError(operation: "mkdir", path: path, errno: errno)
    }

    public func readFile(_ path: String) throws(FileSystemError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw FileSystemError(operation: "open", path: path, errno: errno) }
        defer { close(fd) }
        var result: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw FileSystemError(operation: "read", path: path, errno: errno)
            }
            if count == 0 { break }
            result.append(contentsOf: buffer[0..<count])
        }
        return result
    }

    public func fileSize(_ path: String) throws(FileSystemError) -> Int? {
        var info = stat()
        if stat(path, &info) != 0 {
            if errno == ENOENT { return nil }
            throw FileSystemError(operation: "stat", path: path, errno: errno)
        }
        return Int(info.st_size)
    }

    public func appendDurably(_ path: String, _ bytes: [UInt8], expectedSize: Int) throws(FileSystemError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw FileSystemError(operation: "open", path: path, errno: errno) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw FileSystemError(operation: "fstat", path: path, errno: errno) }
        if Int(info.st_size) != expectedSize {
            guard Int(info.st_size) > expectedSize else {
                throw FileSystemError(operation: "append (file shorter than the ledger wrote it)", path: path, errno: EIO)
            }
            guard ftruncate(fd, off_t(expectedSize)) == 0 else {
                throw FileSystemError(operation: "ftruncate", path: path, errno: errno)
            }
        }
        do throws(FileSystemError) {
            try writeAll(fd, bytes, at: expectedSize, path: path)
            guard fdatasync(fd) == 0 else { throw FileSystemError(operation: "fdatasync", path: path, errno: errno) }
        } catch {
            // Leave no partial record behind; if this fails too, the next append cuts it.
            _ = ftruncate(fd, off_t(expectedSize))
            throw error
        }
    }

    public func writeFileDurably(_ path: String, _ bytes: [UInt8]) throws(FileSystemError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw FileSystemError(operation: "open", path: path, errno: errno) }
        defer { close(fd) }
        try writeAll(fd, bytes, at: 0, path: path)
        guard fdatasync(fd) == 0 else { throw FileSystemError(operation: "fdatasync", path: path, errno: errno) }
    }

    private func writeAll(_ fd: Int32, _ bytes: [UInt8], at offset: Int, path: String) throws(FileSystemError) {
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { raw in
                pwrite(fd, raw.baseAddress.map { $0 + written }, raw.count - written, off_t(offset + written))
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw FileSystemError(operation: "write", path: path, errno: errno)
            }
            written += count
        }
    }

    public func truncate(_ path: String, to length: Int) throws(FileSystemError) {
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { throw FileSystemError(operation: "open", path: path, errno: errno) }
        defer { close(fd) }
        guard ftruncate(fd, off_t(length)) == 0 else { throw FileSystemError(operation: "ftruncate", path: path, errno: errno) }
        guard fsync(fd) == 0 else { throw FileSystemError(operation: "fsync", path: path, errno: errno) }
    }

    public func rename(_ from: String, to: String) throws(FileSystemError) {
        guard Glibc.rename(from, to) == 0 else { throw FileSystemError(operation: "rename to \(to)", path: from, errno: errno) }
    }

    public func remove(_ path: String) throws(FileSystemError) {
        guard unlink(path) == 0 || errno == ENOENT else { throw FileSystemError(operation: "unlink", path: path, errno: errno) }
    }

    public func syncDirectory(_ path: String) throws(FileSystemError) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw FileSystemError(operation: "open", path: path, errno: errno) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw FileSystemError(operation: "fsync", path: path, errno: errno) }
    }
}
