import Glibc
import Recordings
import StepdModel
import Testing

/// Recording files as the simulated sensor, `stepctl analyze` and `stepbench` read them.
@Suite struct RecordingFileTests {
    private func temporaryPath(_ name: String) -> String {
        "/tmp/stepd-recording-\(getpid())-\(name)"
    }

    private func bytes(of path: String) -> [UInt8] {
        guard let file = fopen(path, "r") else { return [] }
        defer { fclose(file) }
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = fread(&buffer, 1, buffer.count, file)
            if n == 0 { break }
            out += buffer[0..<n]
        }
        return out
    }

    private func write(_ bytes: [UInt8], to path: String) {
        let file = fopen(path, "w")
        fwrite(bytes, 1, bytes.count, file)
        fclose(file)
    }

    /// A gzip recording cut short must be refused even where every line it holds is whole (here
    /// the cut drops only the 8-byte gzip trailer: all samples decompress, the end is missing);
    /// read as a complete file, a capture copied while still being written is a shorter walk.
    @Test func truncatedGzipIsRefusedEvenAtALineBoundary() throws {
        let path = temporaryPath("whole.csv.gz")
        let cut = temporaryPath("cut.csv.gz")
        defer {
            unlink(path)
            unlink(cut)
        }
        let samples = (0..<400).map { AccelSample(t: Double($0) / 40, x: 0.01, y: -0.02, z: 1) }
        let writer = try GzipCSVWriter(path: path)
        try writer.append(contentsOf: samples)
        try writer.finish()
        #expect(try RecordingReader.read(path: path).count == samples.count)

        let whole = bytes(of: path)
        try #require(whole.count > 8)
        for dropped in [8, 4, 1] {
            write(Array(whole.dropLast(dropped)), to: cut)
            do {
                let read = try RecordingReader.read(path: cut)
                Issue.record("\(dropped) bytes cut off: read \(read.count) samples without an error")
            } catch {
                #expect(error.description.contains("\(cut): read failed: the gzip stream ends early"), "\(error)")
            }
        }
    }

    /// A file that is no recording is refused once its first line has been read, not after
    /// reading all of it (a video passed by mistake, /dev/zero, which ran out of memory). Here
    /// gzip stored blocks holding a non-header first line and 600 kB, then the stream ends
    /// without its last block: read whole, that is the "ends early" error; refused at the first
    /// line, the header error.
    @Test func aFileThatIsNoRecordingIsRefusedAtItsFirstLine() throws {
        let path = temporaryPath("not-a-recording.gz")
        defer { unlink(path) }
        var gzip: [UInt8] = [0x1F, 0x8B, 0x08, 0, 0, 0, 0, 0, 0, 0xFF]
        let content = Array("frame,pixels\n".utf8) + [UInt8](repeating: 0x41, count: 600_000)
        var offset = 0
        while offset < content.count {
            let block = content[offset..<min(offset + 60_000, content.count)]
            let length = UInt16(block.count)
            // A stored, non-final deflate block: type byte, LEN and its complement, the bytes.
            gzip += [0, UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8(~length >> 8)] + block
            offset += block.count
        }
        write(gzip, to: path)
        do {
            let read = try RecordingReader.read(path: path)
            Issue.record("read \(read.count) samples")
        } catch {
            #expect(error == .badHeader(path: path, found: "frame,pixels"), "\(error)")
        }
        // The same check on a first line without a newline in its first 4 KiB.
        write([UInt8](repeating: 0x41, count: 10_000), to: path)
        #expect(throws: RecordingError.badHeader(path: path, found: String(repeating: "A", count: 80))) {
            try RecordingReader.read(path: path)
        }
    }

    /// A first line of control bytes or invalid UTF-8 is called binary instead of quoted; a text
    /// line that is no header is still quoted, and a header cut inside a character at 4 KiB
    /// is text.
    @Test func binaryFirstLinesAreNotQuoted() throws {
        let path = temporaryPath("binary")
        defer { unlink(path) }
        for content: [UInt8] in [[0x7F, 0x45, 0x4C, 0x46, 0x02, 0x01, 0x0A], [0x41, 0xC3, 0x28, 0x0A], [0x1B, 0x5B, 0x6D, 0x0A]] {
            write(content, to: path)
            #expect(throws: RecordingError.notText(path: path)) { try RecordingReader.read(path: path) }
        }
        write(Array("time,ax,ay,az\n0,0,0,1\n".utf8), to: path)
        #expect(throws: RecordingError.badHeader(path: path, found: "time,ax,ay,az")) { try RecordingReader.read(path: path) }
        write(Array(String(repeating: "é", count: 5000).utf8).dropFirst(1).map { $0 }, to: path)
        #expect(throws: RecordingError.notText(path: path)) { try RecordingReader.read(path: path) }
        write(Array(String(repeating: "é", count: 5000).utf8), to: path)
        #expect(throws: RecordingError.badHeader(path: path, found: String(repeating: "é", count: 80))) { try RecordingReader.read(path: path) }
        write(Array(("x" + String(repeating: "é", count: 5000)).utf8), to: path)
        #expect(throws: RecordingError.badHeader(path: path, found: "x" + String(repeating: "é", count: 79))) { try RecordingReader.read(path: path) }
    }

    /// A line of NULs in the middle (what a power cut can leave in a file being written) is
    /// named by its line number as binary data, not quoted.
    @Test func binaryLineInTheMiddleIsNamedNotQuoted() {
        let path = temporaryPath("nul-line")
        defer { unlink(path) }
        write(Array("t,x,y,z\n0,0,0,1\n".utf8) + [UInt8](repeating: 0, count: 30) + Array("\n0.05,0,0,1\n".utf8), to: path)
        #expect(throws: RecordingError.malformedLine(path: path, line: 3,
                                                     detail: "field 1 ('t') is not a finite number in '<binary data>'; expected t,x,y,z")) {
            try RecordingReader.read(path: path)
        }
    }

    /// A directory is called what the system says, not a corrupt gzip.
    @Test func aDirectoryIsNoRecording() {
        let path = temporaryPath("directory")
        mkdir(path, 0o700)
        defer { rmdir(path) }
        do {
            let read = try RecordingReader.read(path: path)
            Issue.record("read \(read.count) samples")
        } catch {
            #expect(error.description.contains("Is a directory"), "\(error)")
            #expect(!error.description.contains("gzip"), "\(error)")
        }
    }
}
