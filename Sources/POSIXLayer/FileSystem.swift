import Glibc

/// A failed file-system call: what was attempted, on which path, and errno.
public struct FileSystemError: Error, Sendable, Equatable, CustomStringConvertible {
    public var operation: String
    public var path: String
    public var errno: Int32

    public init(operation: String, path: String, errno: Int32) {
        self.operation = operation
        self.path = path
        self.errno = errno
    }

    public init(operation: String, path: String, _ error: Errno) {
        self.init(operation: operation, path: path, errno: error.rawValue)
    }

    public var description: String {
        let code = Errno(errno)
        return "\(operation) \(path): \(code) (\(code.name ?? "errno \(errno)"))"
    }
}

/// Runs `body`, naming a failure after `operation` on `path`.
@inline(__always)
func attempt<T>(_ operation: String, _ path: String, _ body: () throws(Errno) -> T) throws(FileSystemError) -> T {
    do {
        return try body()
    } catch {
        throw FileSystemError(operation: operation, path: path, error)
    }
}

/// The file operations of the agent, the ledger and the tools: whole-file reads, durable
/// appends, atomic replacement, directory listing and syncing. Every failure names its call.
public enum FileSystem {
    /// Entry names (without `.` and `..`), or nil when the directory does not exist.
    public static func listDirectory(_ path: String) throws(FileSystemError) -> [String]? {
        guard let dir = opendir(path) else {
            if Glibc.errno == ENOENT { return nil }
            throw FileSystemError(operation: "opendir", path: path, .current)
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

    public struct FileEntry: Sendable, Equatable {
        public var name: String
        public var size: Int
        /// Modification time, whole seconds since the epoch.
        public var modified: Int
    }

    /// Regular files directly inside `directory` (none when it does not exist).
    public static func listFiles(_ directory: String) throws(FileSystemError) -> [FileEntry] {
        var entries: [FileEntry] = []
        for name in try listDirectory(directory) ?? [] {
            var info = stat()
            guard stat(directory + "/" + name, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
            entries.append(FileEntry(name: name, size: Int(info.st_size), modified: Int(info.st_mtim.tv_sec)))
        }
        return entries
    }

    /// Creates the directory; true when it did not exist before. The new entry is durable only
    /// once its parent is synced (`syncDirectory`).
    @discardableResult
    public static func makeDirectory(_ path: String, mode: mode_t = 0o755) throws(FileSystemError) -> Bool {
        if mkdir(path, mode) == 0 { return true }
        if Glibc.errno == EEXIST { return false }
        throw FileSystemError(operation: "mkdir", path: path, .current)
    }

    /// `mkdir -p` with `mode` for the directories it creates; fails with ENOTDIR when `path`
    /// exists and is not a directory.
    public static func makeDirectories(_ path: String, mode: mode_t = 0o750) throws(FileSystemError) {
        var current = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            current += "/" + component
            try makeDirectory(current, mode: mode)
        }
        var info = stat()
        guard stat(path, &info) == 0 else { throw FileSystemError(operation: "stat", path: path, .current) }
        guard (info.st_mode & S_IFMT) == S_IFDIR else { throw FileSystemError(operation: "mkdir", path: path, errno: ENOTDIR) }
    }

    public static func readFile(_ path: String) throws(FileSystemError) -> [UInt8] {
        let file = try attempt("open", path) { () throws(Errno) in try FileDescriptor.open(path, O_RDONLY) }
        return try attempt("read", path) { () throws(Errno) in try file.readToEnd() }
    }

    /// Where the symbolic link `path` points; nil when it is no link or cannot be read.
    public static func linkTarget(_ path: String) -> String? {
        var buffer = [UInt8](repeating: 0, count: Int(PATH_MAX))
        let length = buffer.withUnsafeMutableBytes { raw -> Int in
            guard let base = raw.baseAddress else { return -1 }
            return readlink(path, base.assumingMemoryBound(to: CChar.self), raw.count)
        }
        guard length > 0, length < buffer.count else { return nil }
        return String(decoding: buffer[0..<length], as: UTF8.self)
    }

    /// The whole file, or nil when it does not exist.
    public static func readFileIfPresent(_ path: String) throws(FileSystemError) -> [UInt8]? {
        do throws(FileSystemError) {
            return try readFile(path)
        } catch where error.errno == ENOENT {
            return nil
        }
    }

    /// link(2): a second name for `existing`; fails with EEXIST when `newName` exists, so of
    /// several processes linking the same name exactly one succeeds.
    public static func link(_ existing: String, to newName: String) throws(FileSystemError) {
        guard Glibc.link(existing, newName) == 0 else { throw FileSystemError(operation: "link to \(newName)", path: existing, .current) }
    }

    /// Size in bytes, nil when absent.
    public static func fileSize(_ path: String) throws(FileSystemError) -> Int? {
        var info = stat()
        if stat(path, &info) != 0 {
            if Glibc.errno == ENOENT { return nil }
            throw FileSystemError(operation: "stat", path: path, .current)
        }
        return Int(info.st_size)
    }

    /// Appends `bytes` at `expectedSize` (cutting anything beyond it first: the remains of an
    /// earlier failed append), then fdatasync. On failure the file is cut back to `expectedSize`
    /// where possible, so no partial record stays behind.
    public static func appendDurably(_ path: String, _ bytes: [UInt8], expectedSize: Int) throws(FileSystemError) {
        let file = try attempt("open", path) { () throws(Errno) in try FileDescriptor.open(path, O_WRONLY | O_CREAT) }
        let size = try attempt("fstat", path) { () throws(Errno) in try file.size() }
        if size != expectedSize {
            guard size > expectedSize else {
                throw FileSystemError(operation: "append (file shorter than the ledger wrote it)", path: path, errno: EIO)
            }
            try attempt("ftruncate", path) { () throws(Errno) in try file.truncate(to: expectedSize) }
        }
        do throws(FileSystemError) {
            try attempt("write", path) { () throws(Errno) in try file.writeAll(bytes, at: expectedSize) }
            try attempt("fdatasync", path) { () throws(Errno) in try file.dataSync() }
        } catch {
            // If this fails too, the next append cuts it.
            try? file.truncate(to: expectedSize)
            throw error
        }
    }

    /// Creates or replaces `path` in place with `bytes`, then fdatasync (a crash may leave it
    /// partial: callers that cannot accept that use `writeAtomically`).
    public static func writeFileDurably(_ path: String, _ bytes: [UInt8], mode: mode_t = 0o644) throws(FileSystemError) {
        let file = try attempt("open", path) { () throws(Errno) in
            try FileDescriptor.open(path, O_WRONLY | O_CREAT | O_TRUNC, permissions: mode)
        }
        try attempt("write", path) { () throws(Errno) in try file.writeAll(bytes, at: 0) }
        try attempt("fdatasync", path) { () throws(Errno) in try file.dataSync() }
    }

    /// Replaces `path` so a reader sees the old file or the new one, never a partial one: a
    /// temporary file beside it, written and fdatasync'd, renamed over. With `syncDirectory` the
    /// directory is synced too, so the new name also survives a power cut.
    public static func writeAtomically(_ bytes: [UInt8], to path: String, mode: mode_t = 0o640,
                                       syncDirectory: Bool) throws(FileSystemError) {
        let temporary = path + ".tmp"
        do throws(FileSystemError) {
            try writeFileDurably(temporary, bytes, mode: mode)
            try rename(temporary, to: path)
        } catch {
            _ = unlink(temporary)
            throw error
        }
        if syncDirectory { try self.syncDirectory(parent(of: path)) }
    }

    /// Cuts `path` to `length` and fsyncs it.
    public static func truncate(_ path: String, to length: Int) throws(FileSystemError) {
        let file = try attempt("open", path) { () throws(Errno) in try FileDescriptor.open(path, O_WRONLY) }
        try attempt("ftruncate", path) { () throws(Errno) in try file.truncate(to: length) }
        try attempt("fsync", path) { () throws(Errno) in try file.sync() }
    }

    public static func rename(_ from: String, to: String) throws(FileSystemError) {
        guard Glibc.rename(from, to) == 0 else { throw FileSystemError(operation: "rename to \(to)", path: from, .current) }
    }

    /// unlink(2); a missing file is not an error.
    public static func remove(_ path: String) throws(FileSystemError) {
        guard unlink(path) == 0 || Glibc.errno == ENOENT else { throw FileSystemError(operation: "unlink", path: path, .current) }
    }

    /// fsync of a directory, so a created, renamed or removed entry survives a power cut.
    public static func syncDirectory(_ path: String) throws(FileSystemError) {
        let directory = try attempt("open", path) { () throws(Errno) in try FileDescriptor.open(path, O_RDONLY | O_DIRECTORY) }
        try attempt("fsync", path) { () throws(Errno) in try directory.sync() }
    }

    /// The directory holding `path` (trailing slashes ignored; "." when it has none, "/" for "/").
    public static func parent(of path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return "." }
        return slash == trimmed.startIndex ? "/" : String(trimmed[..<slash])
    }
}
