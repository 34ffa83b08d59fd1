import POSIXLayer

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

/// The real thing: POSIXLayer's `FileSystem`.
public final class PosixFileSystem: LedgerFileSystem {
    public init() {}

    public func listDirectory(_ path: String) throws(FileSystemError) -> [String]? { try FileSystem.listDirectory(path) }

    @discardableResult
    public func makeDirectory(_ path: String) throws(FileSystemError) -> Bool { try FileSystem.makeDirectory(path) }

    public func readFile(_ path: String) throws(FileSystemError) -> [UInt8] { try FileSystem.readFile(path) }

    public func fileSize(_ path: String) throws(FileSystemError) -> Int? { try FileSystem.fileSize(path) }

    public func appendDurably(_ path: String, _ bytes: [UInt8], expectedSize: Int) throws(FileSystemError) {
        try FileSystem.appendDurably(path, bytes, expectedSize: expectedSize)
    }

    public func writeFileDurably(_ path: String, _ bytes: [UInt8]) throws(FileSystemError) {
        try FileSystem.writeFileDurably(path, bytes)
    }

    public func truncate(_ path: String, to length: Int) throws(FileSystemError) { try FileSystem.truncate(path, to: length) }

    public func rename(_ from: String, to: String) throws(FileSystemError) { try FileSystem.rename(from, to: to) }

    public func remove(_ path: String) throws(FileSystemError) { try FileSystem.remove(path) }

    public func syncDirectory(_ path: String) throws(FileSystemError) { try FileSystem.syncDirectory(path) }
}
