import Glibc

/// Small file-system steps the agent's edges share. Each returns errno on failure so callers can
/// say what went wrong.
enum FileOps {
    /// `mkdir -p` with `mode` for the directories it creates.
    static func makeDirectories(_ path: String, mode: mode_t = 0o750) -> Int32? {
        var current = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            current += "/" + component
            if mkdir(current, mode) != 0 && errno != EEXIST { return errno }
        }
        var info = stat()
        guard stat(path, &info) == 0 else { return errno }
        return (info.st_mode & S_IFMT) == S_IFDIR ? nil : ENOTDIR
    }

    /// Writes `bytes` to `path` so a reader sees the old file or the new one, never a partial one:
    /// write a temporary file beside it, fsync, rename over.
    static func writeAtomically(_ bytes: [UInt8], to path: String, mode: mode_t = 0o640) -> Int32? {
        let temporary = path + ".tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard fd >= 0 else { return errno }
        var failure: Int32?
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = write(fd, raw.baseAddress.map { $0 + offset }, raw.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                offset += n
            }
        }
        if failure == nil, fsync(fd) != 0 { failure = errno }
        close(fd)
        if failure == nil, rename(temporary, path) != 0 { failure = errno }
        if failure != nil { unlink(temporary) }
        return failure
    }

    struct Entry {
        var name: String
        var size: Int
        var modified: Int
    }

    /// Regular files directly inside `directory`.
    static func listFiles(_ directory: String) -> [Entry] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var entries: [Entry] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name == "." || name == ".." { continue }
            var info = stat()
            guard stat(directory + "/" + name, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
            entries.append(Entry(name: name, size: Int(info.st_size), modified: Int(info.st_mtim.tv_sec)))
        }
        return entries
    }

    static func errorText(_ code: Int32) -> String { String(cString: strerror(code)) }
}
