import CZlib
import Glibc
import POSIXLayer
import StepdModel

/// Why a recording could not be read or written; `description` names the file (and line) and
/// says what to fix.
public enum RecordingError: Error, Equatable, CustomStringConvertible {
    case cannotOpen(path: String, errno: Int32)
    case readFailed(path: String, detail: String)
    case writeFailed(path: String, detail: String)
    case badHeader(path: String, found: String)
    case notText(path: String)
    case malformedLine(path: String, line: Int, detail: String)
    case empty(path: String)
    case tooShort(path: String)

    public var description: String {
        switch self {
        case let .cannotOpen(path, code):
            return "\(path): cannot open: \(Errno(code))"
        case let .readFailed(path, detail):
            return "\(path): read failed: \(detail)"
        case let .writeFailed(path, detail):
            return "\(path): write failed: \(detail)"
        case let .badHeader(path, found):
            return "\(path):1: expected the header 't,x,y,z' (seconds and g), found '\(found)'"
        case let .notText(path):
            return "\(path): binary data, not a recording: expected text (plain or gzip) starting with the header 't,x,y,z' (seconds and g)"
        case let .malformedLine(path, line, detail):
            return "\(path):\(line): \(detail)"
        case let .empty(path):
            return "\(path): no samples after the header"
        case let .tooShort(path):
            return "\(path): holds fewer than two samples; nothing to replay or analyze"
        }
    }
}

/// Reads the shared recording format: a `t,x,y,z` header, then one sample per line, `t` in
/// seconds and x, y, z in g. The file may be plain text or gzip; zlib recognises gzip by its
/// magic bytes (1f 8b) and passes plain files through unchanged.
public enum RecordingReader {
    public static func read(path: String) throws(RecordingError) -> [AccelSample] {
        // The header is checked as soon as it has been read: a file that is no recording (a
        // video, /dev/zero) is refused after its first chunk instead of being read whole.
        let bytes = try readAllBytes(path: path, checkingFirstLine: { firstLine in headerError(firstLine, path: path) })
        return try parse(bytes, path: path)
    }

    /// `read`, refusing a recording of one sample: it spans no time, so there is nothing to
    /// replay (`stepd --simulate`) or analyze (`stepctl analyze`); both read through here so
    /// one accepts exactly the files the other does.
    public static func readReplayable(path: String) throws(RecordingError) -> [AccelSample] {
        let samples = try read(path: path)
        guard samples.count >= 2 else { throw .tooShort(path: path) }
        return samples
    }

    /// The largest step back in `t` a recording may take: the motion engine's
    /// `TimestampSanitizer.absorbLimit` (a test holds them equal; this module cannot import
    /// the engine). A larger one is a discontinuity no single recording has.
    public static let maxBackwardStep = 1.0

    /// A first line longer than this is no `t,x,y,z` header, whatever follows.
    static let maxHeaderBytes = 4096

    /// Decompressed (or plain) content of a file.
    public static func readAllBytes(path: String) throws(RecordingError) -> [UInt8] {
        try readAllBytes(path: path, checkingFirstLine: nil)
    }

    /// Decompressed (or plain) content of a file; `checkingFirstLine` sees the first line (without
    /// its newline, or the first `maxHeaderBytes` when no newline comes before) once it has been
    /// read, and an error it returns ends the read.
    static func readAllBytes(
        path: String, checkingFirstLine: ((ArraySlice<UInt8>) -> RecordingError?)?
    ) throws(RecordingError) -> [UInt8] {
        let file: gzFile
        switch GzipFile.open(path, flags: O_RDONLY, gzipMode: "rb") {
        case .success(let opened): file = opened
        case .failure(.open(let error)): throw .cannotOpen(path: path, errno: error.rawValue)
        case .failure(.attach): throw .readFailed(path: path, detail: "zlib could not attach to the file")
        }
        defer { gzclose(file) }
        gzbuffer(file, 256 * 1024)
        var out: [UInt8] = []
        out.reserveCapacity(1 << 20)
        var chunk = [UInt8](repeating: 0, count: 256 * 1024)
        var firstLineChecked = checkingFirstLine == nil
        while true {
            let n = chunk.withUnsafeMutableBytes { gzread(file, $0.baseAddress, UInt32($0.count)) }
            let systemError = errno
            if n < 0 {
                var code: Int32 = 0
                let message = gzerror(file, &code).map { String(cString: $0) } ?? "unknown zlib error"
                // Z_ERRNO is the system's read error (a directory, an I/O error), not bad gzip.
                if code == Z_ERRNO { throw .readFailed(path: path, detail: "\(Errno(systemError))") }
                throw .readFailed(path: path, detail: "\(message) (corrupt or truncated gzip?)")
            }
            if n == 0 { break }
            out.append(contentsOf: chunk[0..<Int(n)])
            if !firstLineChecked, let check = checkingFirstLine {
                if let newline = out.prefix(maxHeaderBytes).firstIndex(of: 0x0A) {
                    firstLineChecked = true
                    if let error = check(out[..<newline]) { throw error }
                } else if out.count >= maxHeaderBytes {
                    firstLineChecked = true
                    if let error = check(out[..<maxHeaderBytes]) { throw error }
                }
            }
        }
        // zlib ends a gzip stream cut short like a complete one (gzread returns 0, so that files
        // still being written can be followed) and only gzerror tells them apart: without this
        // check a recording copied mid-capture, or cut after a whole line, reads as a shorter walk.
        var code: Int32 = Z_OK
        _ = gzerror(file, &code)
        if code == Z_BUF_ERROR {
            throw .readFailed(path: path, detail: "the gzip stream ends early: the file is truncated (copied while still being written?); copy it again once complete")
        }
        return out
    }

    /// Parses CSV content; `path` is only used in error messages.
    public static func parse(_ bytes: [UInt8], path: String) throws(RecordingError) -> [AccelSample] {
        var samples: [AccelSample] = []
        samples.reserveCapacity(bytes.count / 28)
        var result: Result<Void, RecordingError> = .success(())
        bytes.withUnsafeBufferPointer { buffer in
            result = parseLines(buffer, path: path, into: &samples)
        }
        if case let .failure(error) = result { throw error }
        if samples.isEmpty { throw .empty(path: path) }
        return samples
    }

    private static func parseLines(
        _ buffer: UnsafeBufferPointer<UInt8>, path: String, into samples: inout [AccelSample]
    ) -> Result<Void, RecordingError> {
        let end = buffer.count
        var position = 0
        var lineNumber = 0
        var sawHeader = false
        var previousTime = -Double.infinity
        while position < end {
            lineNumber += 1
            var lineEnd = position
            while lineEnd < end && buffer[lineEnd] != 0x0A { lineEnd += 1 }
            var contentEnd = lineEnd
            if contentEnd > position && buffer[contentEnd - 1] == 0x0D { contentEnd -= 1 }
            defer { position = lineEnd + 1 }
            if !sawHeader {
                let line = Array(UnsafeBufferPointer(rebasing: buffer[position..<lineEnd]))[...]
                if let error = headerError(line, path: path) { return .failure(error) }
                sawHeader = true
                continue
            }
            if contentEnd == position { continue }   // blank line, e.g. a trailing newline
            // Error messages quote the line, cut at 80 characters; binary bytes (a block of NULs
            // a power cut left in a capture) are named, not written to the terminal.
            func quotedLine() -> Substring {
                let line = UnsafeBufferPointer(rebasing: buffer[position..<contentEnd])
                if TextBytes.isBinary(line) { return "<binary data>" }
                return String(decoding: line, as: UTF8.self).prefix(80)
            }
            var values = (0.0, 0.0, 0.0, 0.0)
            var cursor = position
            for field in 0..<4 {
                guard let (value, next) = parseNumber(buffer, from: cursor, to: contentEnd) else {
                    let column = ["t", "x", "y", "z"][field]
                    return .failure(.malformedLine(
                        path: path, line: lineNumber,
                        detail: "field \(field + 1) ('\(column)') is not a finite number in '\(quotedLine())'; expected t,x,y,z"))
                }
                switch field {
                case 0: values.0 = value
                case 1: values.1 = value
                case 2: values.2 = value
                default: values.3 = value
                }
                cursor = next
                if field < 3 {
                    guard cursor < contentEnd, buffer[cursor] == 0x2C else {
                        return .failure(.malformedLine(
                            path: path, line: lineNumber,
                            detail: "expected 4 comma-separated numbers t,x,y,z, found '\(quotedLine())'"))
                    }
                    cursor += 1
                }
            }
            if cursor != contentEnd {
                return .failure(.malformedLine(
                    path: path, line: lineNumber,
                    detail: "extra text after the 4th field in '\(quotedLine())'; expected t,x,y,z"))
            }
            // Time that jumps back (two recordings joined, a clock set back) gave `stepctl analyze`
            // segments ending before they start, while the replay sorted the samples silently:
            // refused, naming the line. Smaller steps back are kept: firmware that stamps FIFO
            // bursts backwards from the read time makes them, and the engine absorbs them.
            if previousTime - values.0 > maxBackwardStep {
                return .failure(.malformedLine(
                    path: path, line: lineNumber,
                    detail: "t goes back from \(DecimalText.shortest(previousTime)) to \(DecimalText.shortest(values.0)) s in '\(quotedLine())'; t may step back by at most \(DecimalText.shortest(maxBackwardStep)) s (split joined recordings into separate files)"))
            }
            previousTime = values.0
            samples.append(AccelSample(t: values.0, x: values.1, y: values.2, z: values.3))
        }
        if !sawHeader { return .failure(.badHeader(path: path, found: "")) }
        return .success(())
    }

    /// The header line as text (a carriage return before the newline and a UTF-8 byte order
    /// mark dropped).
    static func headerString(_ line: ArraySlice<UInt8>) -> String {
        let content = line.last == 0x0D ? line.dropLast() : line
        let header = String(decoding: content, as: UTF8.self)
        return header.hasPrefix("\u{FEFF}") ? String(header.dropFirst()) : header
    }

    /// Why `line` is no `t,x,y,z` header, nil when it is one. A first line that is no text
    /// (control bytes, invalid UTF-8: an image, an executable, /dev/urandom) is called binary
    /// rather than quoted: quoting it wrote raw bytes, escape sequences included, to the terminal.
    static func headerError(_ line: ArraySlice<UInt8>, path: String) -> RecordingError? {
        if checkHeader(line) { return nil }
        if TextBytes.isBinary(line, cut: line.count >= maxHeaderBytes) { return .notText(path: path) }
        return .badHeader(path: path, found: headerText(line))
    }

    /// The header line as errors quote it, cut at 80 characters.
    static func headerText(_ line: ArraySlice<UInt8>) -> String { String(headerString(line).prefix(80)) }

    /// Whether `line` is the `t,x,y,z` header (spaces allowed).
    static func checkHeader(_ line: ArraySlice<UInt8>) -> Bool {
        line.count < maxHeaderBytes && headerString(line).replacingSpaces() == "t,x,y,z"
    }

    private static let powersOfTen: [Double] = (0...22).map { exponent in
        var value = 1.0
        for _ in 0..<exponent { value *= 10 }
        return value
    }

    /// Decimal number such as `-0.12480`, `3`, `1.5e-3`, surrounded by optional spaces.
    /// Returns nil unless a finite number starts at `start`.
    @inline(__always)
    static func parseNumber(_ b: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> (Double, Int)? {
        var i = start
        while i < end && b[i] == 0x20 { i += 1 }
        var negative = false
        if i < end && (b[i] == 0x2D || b[i] == 0x2B) { negative = b[i] == 0x2D; i += 1 }
        var mantissa: UInt64 = 0
        var digits = 0
        var scale = 0
        var sawDigit = false
        while i < end, b[i] &- 0x30 < 10 {
            if digits < 18 { mantissa = mantissa &* 10 &+ UInt64(b[i] &- 0x30); if mantissa > 0 { digits += 1 } } else { scale += 1 }
            sawDigit = true
            i += 1
        }
        if i < end && b[i] == 0x2E {
            i += 1
            while i < end, b[i] &- 0x30 < 10 {
                if digits < 18 { mantissa = mantissa &* 10 &+ UInt64(b[i] &- 0x30); if mantissa > 0 { digits += 1 }; scale -= 1 }
                sawDigit = true
                i += 1
            }
        }
        guard sawDigit else { return nil }
        if i < end && (b[i] == 0x65 || b[i] == 0x45) {
            i += 1
            var expNegative = false
            if i < end && (b[i] == 0x2D || b[i] == 0x2B) { expNegative = b[i] == 0x2D; i += 1 }
            var exponent = 0
            var sawExpDigit = false
            while i < end, b[i] &- 0x30 < 10 {
                if exponent < 10_000 { exponent = exponent * 10 + Int(b[i] &- 0x30) }
                sawExpDigit = true
                i += 1
            }
            guard sawExpDigit else { return nil }
            scale += expNegative ? -exponent : exponent
        }
        while i < end && b[i] == 0x20 { i += 1 }
        var value = Double(mantissa)
        if scale < 0 {
            if -scale <= 22 { value /= powersOfTen[-scale] } else { value *= pow(10, Double(scale)) }
        } else if scale > 0 {
            value *= scale <= 22 ? powersOfTen[scale] : pow(10, Double(scale))
        }
        guard value.isFinite else { return nil }
        return (negative ? -value : value, i)
    }
}

extension String {
    fileprivate func replacingSpaces() -> String { String(filter { $0 != " " }) }
}
