import CZlib
import Glibc
import POSIXLayer
import Recordings

/// Writes a gzip-compressed ustar archive: enough of tar for a field-test bundle (regular files,
/// one level of folders), so stepctl needs neither Foundation nor a `tar` binary on the device.
/// The stream is closed on every path: by `finish()`, or, when an error ends the bundle early,
/// when the writer goes away; an unfinished archive is then removed rather than left looking whole.
final class TarGzipWriter {
    private var file: gzFile?
    let path: String

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    init(path: String) throws {
        // 0600: a bundle holds the wearer's step history until they hand it over.
        switch GzipFile.open(path, flags: O_WRONLY | O_CREAT | O_TRUNC, permissions: 0o600, gzipMode: "wb9") {
        case .success(let handle): file = handle
        case .failure(.open(let error)): throw Failure(description: "cannot create \(path): \(error)")
        case .failure(.attach): throw Failure(description: "cannot start gzip stream for \(path)")
        }
        self.path = path
    }

    deinit {
        guard let file else { return }
        gzclose(file)
        removePartialArchive()
    }

    /// Only a regular file is removed: `--output` may name a device such as /dev/stdout.
    private func removePartialArchive() {
        var info = stat()
        if lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG { unlink(path) }
    }

    /// Adds a file with `contents` under `name` (relative, no `..`).
    func add(name: String, contents: [UInt8], mode: Int = 0o644, modified: Int) throws {
        guard !name.isEmpty, !name.hasPrefix("/"), !name.split(separator: "/").contains(".."), name.utf8.count < 100 else {
            throw Failure(description: "bad archive member name '\(name)'")
        }
        var header = [UInt8](repeating: 0, count: 512)
        func put(_ text: String, at offset: Int, width: Int) {
            for (index, byte) in text.utf8.prefix(width).enumerated() { header[offset + index] = byte }
        }
        func octal(_ value: Int, width: Int) -> String {
            let digits = String(value, radix: 8)
            return String(repeating: "0", count: max(0, width - 1 - digits.count)) + digits
        }
        put(name, at: 0, width: 100)
        put(octal(mode, width: 8), at: 100, width: 7)
        put(octal(0, width: 8), at: 108, width: 7)
        put(octal(0, width: 8), at: 116, width: 7)
        put(octal(contents.count, width: 12), at: 124, width: 11)
        put(octal(modified, width: 12), at: 136, width: 11)
        put("        ", at: 148, width: 8)
        header[156] = UInt8(ascii: "0")
        put("ustar", at: 257, width: 6)
        put("00", at: 263, width: 2)
        put("stepd", at: 265, width: 32)
        put("stepd", at: 297, width: 32)
        let checksum = header.reduce(0) { $0 + Int($1) }
        put(octal(checksum, width: 7) + "\0", at: 148, width: 8)
        try write(header)
        try write(contents)
        let padding = (512 - contents.count % 512) % 512
        if padding > 0 { try write([UInt8](repeating: 0, count: padding)) }
    }

    /// Two zero blocks end a tar archive.
    func finish() throws {
        try write([UInt8](repeating: 0, count: 1024))
        guard let file else { throw Failure(description: "\(path) is already finished") }
        self.file = nil
        // gzclose flushes what zlib still buffers, so a full disk usually shows up only here; the
        // reason is errno (Z_ERRNO), which the user needs to know what to fix.
        let closed = gzclose(file)
        let systemError = Errno.current
        guard closed == Z_OK else {
            removePartialArchive()
            throw Failure(description: "cannot finish \(path): " + Self.reason(closed == Z_ERRNO ? systemError : nil))
        }
    }

    private func write(_ bytes: [UInt8]) throws {
        guard !bytes.isEmpty else { return }
        guard let file else { throw Failure(description: "\(path) is already finished") }
        let written = bytes.withUnsafeBytes { gzwrite(file, $0.baseAddress, UInt32($0.count)) }
        let systemError = Errno.current
        guard written == Int32(bytes.count) else {
            var code: Int32 = Z_OK
            _ = gzerror(file, &code)
            throw Failure(description: "cannot write \(path): " + Self.reason(code == Z_ERRNO ? systemError : nil))
        }
    }

    /// The system's error with its symbolic name ("No space left on device (ENOSPC)"), or what
    /// zlib's own failures mean.
    private static func reason(_ error: Errno?) -> String {
        error?.explained ?? "compression failed (out of memory?)"
    }
}
