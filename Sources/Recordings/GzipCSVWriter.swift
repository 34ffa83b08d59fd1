import CZlib
import Glibc
import POSIXLayer
import StepdModel

/// Writes samples in the shared format (`t,x,y,z`, gzip) for field recordings. Append, then
/// `finish()`; a writer that is dropped without `finish()` closes its file as well, but only
/// `finish()` reports whether the trailer reached the disk.
public final class GzipCSVWriter {
    public let path: String
    private var file: gzFile?
    private var line: [UInt8] = []
    public private(set) var samplesWritten = 0

    public init(path: String) throws(RecordingError) {
        self.path = path
        switch GzipFile.open(path, flags: O_WRONLY | O_CREAT | O_TRUNC, gzipMode: "wb6") {
        case .success(let file): self.file = file
        case .failure(.open(let error)): throw .cannotOpen(path: path, errno: error.rawValue)
        case .failure(.attach): throw .writeFailed(path: path, detail: "zlib could not attach to the file")
        }
        line.reserveCapacity(64)
        try writeBytes(Array("t,x,y,z\n".utf8))
    }

    deinit {
        if let file { gzclose(file) }
    }

    /// Appends one sample: time with 4 decimals (0.1 ms), acceleration with 5 (10 µg).
    public func append(_ sample: AccelSample) throws(RecordingError) {
        line.removeAll(keepingCapacity: true)
        Self.appendFixed(sample.t, decimals: 4, to: &line)
        line.append(0x2C)
        Self.appendFixed(sample.x, decimals: 5, to: &line)
        line.append(0x2C)
        Self.appendFixed(sample.y, decimals: 5, to: &line)
        line.append(0x2C)
        Self.appendFixed(sample.z, decimals: 5, to: &line)
        line.append(0x0A)
        try writeBytes(line)
        samplesWritten += 1
    }

    public func append(contentsOf samples: [AccelSample]) throws(RecordingError) {
        for sample in samples { try append(sample) }
    }

    /// Flushes and closes; the file is a complete gzip stream afterwards.
    public func finish() throws(RecordingError) {
        guard let file else { return }
        self.file = nil
        let status = gzclose(file)
        let systemError = Errno.current
        if status != Z_OK {
            throw .writeFailed(path: path, detail: status == Z_ERRNO ? systemError.explained : "gzclose returned \(status)")
        }
    }

    private func writeBytes(_ bytes: [UInt8]) throws(RecordingError) {
        guard let file else { throw .writeFailed(path: path, detail: "writer already finished") }
        let written = bytes.withUnsafeBytes { gzwrite(file, $0.baseAddress, UInt32($0.count)) }
        let systemError = Errno.current
        if written != Int32(bytes.count) {
            var code: Int32 = 0
            let message = gzerror(file, &code).map { String(cString: $0) } ?? "unknown zlib error"
            // zlib's own message names the descriptor ("<fd:6>: No space left on device"), not the file.
            throw .writeFailed(path: path, detail: code == Z_ERRNO ? systemError.explained : message)
        }
    }

    static func appendFixed(_ value: Double, decimals: Int, to out: inout [UInt8]) {
        out.append(contentsOf: (DecimalText.fixed(value, decimals: decimals) ?? "nan").utf8)
    }
}
