import CivilTime
import Glibc
import Ledger
import LedgerStore
import POSIXLayer
import StepdModel

/// A fresh directory under /tmp, removed by the caller via `removeTree`.
func makeTemporaryDirectory() -> String {
    var template = Array("/tmp/ledger-test-XXXXXX".utf8CString)
    let path = template.withUnsafeMutableBufferPointer { buffer -> String in
        guard let result = buffer.baseAddress.flatMap({ mkdtemp($0) }) else { return "/tmp/ledger-test-fallback-\(getpid())" }
        return String(cString: result)
    }
    return path
}

func removeTree(_ path: String) {
    _ = system("rm -rf '\(path)'")
}

/// Real files, with injectable errno failures for writes (tests run as root, so chmod cannot
/// make a directory read-only).
final class FaultyFileSystem: LedgerFileSystem {
    let real = PosixFileSystem()
    var failWrites: Int32?
    /// errno for mkdir while set (a file system mounted read-only at boot).
    var failDirectories: Int32?
    var appendCount = 0

    /// errno for listing a directory while set (a state directory the agent's user cannot read).
    var failListing: Int32?

    func listDirectory(_ path: String) throws(FileSystemError) -> [String]? {
        if let code = failListing { throw FileSystemError(operation: "opendir", path: path, errno: code) }
        return try real.listDirectory(path)
    }
    func makeDirectory(_ path: String) throws(FileSystemError) -> Bool {
        if let code = failDirectories { throw FileSystemError(operation: "mkdir", path: path, errno: code) }
        return try real.makeDirectory(path)
    }
    func readFile(_ path: String) throws(FileSystemError) -> [UInt8] { try real.readFile(path) }
    func fileSize(_ path: String) throws(FileSystemError) -> Int? { try real.fileSize(path) }
    func appendDurably(_ path: String, _ bytes: [UInt8], expectedSize: Int) throws(FileSystemError) {
        if let code = failWrites { throw FileSystemError(operation: "write", path: path, errno: code) }
        appendCount += 1
        try real.appendDurably(path, bytes, expectedSize: expectedSize)
    }
    func writeFileDurably(_ path: String, _ bytes: [UInt8]) throws(FileSystemError) {
        if let code = failWrites { throw FileSystemError(operation: "write", path: path, errno: code) }
        try real.writeFileDurably(path, bytes)
    }
    func truncate(_ path: String, to length: Int) throws(FileSystemError) {
        if let code = failWrites { throw FileSystemError(operation: "ftruncate", path: path, errno: code) }
        try real.truncate(path, to: length)
    }
    func rename(_ from: String, to: String) throws(FileSystemError) {
        if let code = failWrites { throw FileSystemError(operation: "rename", path: from, errno: code) }
        try real.rename(from, to: to)
    }
    func remove(_ path: String) throws(FileSystemError) { try real.remove(path) }
    func syncDirectory(_ path: String) throws(FileSystemError) { try real.syncDirectory(path) }
}

final class LogCollector: @unchecked Sendable {
    private var lines: [String] = []
    private var lock = pthread_mutex_t()
    init() { pthread_mutex_init(&lock, nil) }
    var logger: EventLogger {
        EventLogger { [self] level, message in
            pthread_mutex_lock(&lock)
            lines.append("\(level.name): \(message)")
            pthread_mutex_unlock(&lock)
        }
    }
    var all: [String] {
        pthread_mutex_lock(&lock)
        defer { pthread_mutex_unlock(&lock) }
        return lines
    }
}

let phone = SampleSource(id: "phone-1", kind: .device)
let watch = SampleSource(id: "watch-1", kind: .device)
let detector = SampleSource(id: "this-device", kind: .detector)

func record(_ sequence: UInt64, _ start: Double, _ end: Double, steps: Int, source: SampleSource = detector,
            flags: RecordFlags = [], activity: ActivityKind = .walking, distance: Double = 0) -> StepRecord {
    StepRecord(sequence: sequence, start: start, end: end, utcOffset: 0, steps: steps, distance: distance,
               activity: activity, source: source, flags: flags)
}

func loadZone(_ name: String) throws -> TimeZoneRule {
    try TimeZoneLoader.load(name)
}

func writeFile(_ path: String, _ bytes: [UInt8]) {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    close(fd)
}

func readFile(_ path: String) -> [UInt8] { (try? PosixFileSystem().readFile(path)) ?? [] }

func listDirectory(_ path: String) -> [String] { ((try? PosixFileSystem().listDirectory(path)) ?? nil)?.sorted() ?? [] }
