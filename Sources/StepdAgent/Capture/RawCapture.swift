import CivilTime
import POSIXLayer
import Recordings
import StepJSON
import StepProtocol
import StepdModel

/// Raw sample capture for field testers (`recording.start` / `stepctl record`): the samples the
/// detector sees, in the shared `t,x,y,z` gzip format, with a JSON sidecar that says where they
/// came from. Runs beside normal counting; the directory is kept under a size cap by deleting the
/// oldest recordings first, while a capture runs too; a capture that alone would pass the cap stops.
final class RawCapture {
    struct Metadata {
        var board: String
        var chip: String
        var rateHz: Double
        var label: String
        var agentVersion: String
    }

    struct Active {
        var writer: GzipCSVWriter
        var baseName: String
        var metadata: Metadata
        var startedWall: Double
        var firstSampleTime: Double?
        var deadline: Double
        /// The directory's other files (older recordings, this capture's sidecar), measured when
        /// the capture started and whenever the cap made room since.
        var otherFilesBytes: Int
    }

    /// Room kept below the cap for what the data file does not show yet: zlib's buffered output,
    /// and the sidecar's last rewrite.
    static let unflushedAllowance = 64 * 1024

    let directory: String
    let maxBytes: Int
    private let logger: EventLogger
    private var active: Active?
    /// How the last capture ended, for `status` (`last_recording`): a client that waited for the
    /// capture to end saw only `recording` turn false, and `stepctl record --wait` said
    /// "recorded" over a file a full disk had cut short.
    private(set) var lastOutcome: RecordingOutcome?

    init(directory: String, maxBytes: Int, logger: EventLogger) {
        self.directory = directory
        self.maxBytes = maxBytes
        self.logger = logger
    }

    var isRecording: Bool { active != nil }
    var deadline: Double? { active?.deadline }
    var startedWall: Double? { active?.startedWall }
    var currentFile: String? { active.map { directory + "/" + $0.baseName + ".csv.gz" } }

    enum StartError: Error, CustomStringConvertible {
        case alreadyRecording(String)
        case cannotCreate(String, Errno)
        case badLabel

        var description: String {
            switch self {
            case .alreadyRecording(let file): return "a recording is already running (\(file)); stop it first"
            case .cannotCreate(let path, let code): return "cannot create \(path): \(code)"
            case .badLabel: return "label may hold letters, digits, '-', '_' and '.' only (at most 64)"
            }
        }
    }

    /// Starts a capture that ends by itself after `minutes`. Returns the data file's path.
    func start(minutes: Double, label: String, metadata: Metadata, monotonicNow: Double, wallNow: Double)
        throws(StartError) -> String
    {
        if let current = currentFile { throw .alreadyRecording(current) }
        guard label.utf8.count <= 64,
              label.unicodeScalars.allSatisfy({ ($0.properties.isAlphabetic && $0.isASCII) || ("0"..."9").contains($0) || "-_.".unicodeScalars.contains($0) })
        else { throw .badLabel }
        do throws(FileSystemError) {
            try FileSystem.makeDirectories(directory)
        } catch {
            throw .cannotCreate(directory, Errno(error.errno))
        }
        enforceCap()
        let baseName = (LocalTime(utc: wallNow, zone: .utc)?.text(.iso8601Basic) ?? "unknown-time") + (label.isEmpty ? "" : "-" + label)
        let path = directory + "/" + baseName + ".csv.gz"
        let writer: GzipCSVWriter
        do {
            writer = try GzipCSVWriter(path: path)
        } catch {
            throw .cannotCreate(path, .ioError)
        }
        active = Active(writer: writer, baseName: baseName, metadata: metadata, startedWall: wallNow,
                        firstSampleTime: nil, deadline: monotonicNow + minutes * 60, otherFilesBytes: 0)
        lastOutcome = nil
        // A sidecar that cannot be written (a full disk) means a data file that cannot be either:
        // the start was answered with the file, and `stepctl record --wait` said "recorded" over
        // an empty file with no sidecar.
        if let error = writeSidecar(finished: false) {
            active = nil
            try? writer.finish()
            try? FileSystem.remove(path)
            throw .cannotCreate(directory + "/" + baseName + ".json", error)
        }
        // Measured again now that the sidecar exists (the call before the files were made freed
        // room for them): what the capture's growth is checked against in `keepUnderCap`.
        active?.otherFilesBytes = enforceCap() - ((try? FileSystem.fileSize(path)) ?? 0)
        logger.info("recording started: \(path) for \(minutes) min")
        return path
    }

    /// Samples keep their spacing; `t` restarts at 0 as the shared format expects.
    func append(_ samples: [AccelSample]) {
        guard var current = active else { return }
        let origin = current.firstSampleTime ?? samples.first?.t ?? 0
        current.firstSampleTime = origin
        active = current
        do {
            for sample in samples {
                try current.writer.append(AccelSample(t: sample.t - origin, x: sample.x, y: sample.y, z: sample.z))
            }
        } catch {
            // The error names the file. The stream cannot be finished after a failed write (a
            // second error line saying so adds nothing), and the sidecar says it is incomplete.
            logger.error("recording stopped: \(error)")
            stop(reason: "write failed", failure: "\(error); the file is cut short: free space (or fix the disk) under \(directory) and record again")
            return
        }
        keepUnderCap()
    }

    /// The cap while the capture grows: the oldest finished recordings go first, as when a capture
    /// starts or stops, and a capture that alone would pass the cap stops there. It was enforced
    /// only at start and stop, so a long capture ran past --recordings-max-mb.
    private func keepUnderCap() {
        guard let current = active, let file = currentFile else { return }
        let written = (try? FileSystem.fileSize(file)) ?? 0
        guard current.otherFilesBytes + written + Self.unflushedAllowance > maxBytes else { return }
        let total = enforceCap(reserving: Self.unflushedAllowance)
        active?.otherFilesBytes = total - written
        guard total + Self.unflushedAllowance > maxBytes else { return }
        let megabytes = maxBytes / 1_048_576
        logger.warning("recording \(file) would pass the recordings cap of \(megabytes) MB (--recordings-max-mb); stopping it")
        stop(reason: "recordings cap reached", failure: """
            the recordings directory would pass its cap of \(megabytes) MB (stepd --recordings-max-mb), so the capture ends here: \
            raise the cap or record for fewer minutes
            """)
    }

    func expireIfDue(monotonicNow: Double) {
        if let deadline = active?.deadline, monotonicNow >= deadline { stop(reason: "time limit reached") }
    }

    /// Ends the capture. Returns the data file and the number of samples written.
    /// `failure`: the write error that ended it, if any.
    @discardableResult
    func stop(reason: String, failure: String? = nil) -> (file: String, samples: Int)? {
        guard let current = active, let file = currentFile else { return nil }
        var problem = failure
        do {
            try current.writer.finish()
        } catch {
            if problem == nil { logger.error("recording \(file) could not be finished: \(error)") }
            problem = problem ?? "\(error)"
        }
        writeSidecar(finished: problem == nil, error: problem)
        lastOutcome = RecordingOutcome(file: file, samples: current.writer.samplesWritten, error: problem)
        active = nil
        logger.info("recording stopped (\(reason)): \(file), \(current.writer.samplesWritten) samples")
        enforceCap()
        return (file, current.writer.samplesWritten)
    }

    /// Returns the error when the sidecar could not be written (logged too), nil when it was.
    @discardableResult
    private func writeSidecar(finished: Bool, error: String? = nil) -> Errno? {
        guard let current = active else { return nil }
        var sidecar: JSONObject = [
            "board": .string(current.metadata.board),
            "chip": .string(current.metadata.chip),
            "rate_hz": .double(current.metadata.rateHz),
            "label": .string(current.metadata.label),
            "start": .string(LocalTime(utc: current.startedWall, zone: .utc)?.text(.iso8601) ?? "unknown"),
            "start_epoch": .double(current.startedWall),
            "agent_version": .string(current.metadata.agentVersion),
            "samples": .int(current.writer.samplesWritten),
            "finished": .bool(finished),
            "format": "t,x,y,z (seconds since first sample, g), gzip",
        ]
        // Why the data file is incomplete (a gzip stream cut short, which analyze refuses).
        if let error { sidecar["error"] = .string(error) }
        var bytes = JSONValue.object(sidecar).serialized()
        bytes.append(UInt8(ascii: "\n"))
        let path = directory + "/" + current.baseName + ".json"
        do throws(FileSystemError) {
            try FileSystem.writeAtomically(bytes, to: path, syncDirectory: true)
            return nil
        } catch {
            logger.warning("cannot write \(path): \(Errno(error.errno))")
            return Errno(error.errno)
        }
    }

    /// Deletes the oldest finished recordings (data file and sidecar together) until the
    /// directory fits `maxBytes` with `reserve` bytes to spare. Returns the bytes left in it.
    @discardableResult
    private func enforceCap(reserving reserve: Int = 0) -> Int {
        let files = (try? FileSystem.listFiles(directory)) ?? []
        var total = files.reduce(0) { $0 + $1.size }
        guard total + reserve > maxBytes else { return total }
        let activeBase = active?.baseName
        var groups: [String: Int] = [:]
        for file in files {
            let base = file.name.hasSuffix(".csv.gz") ? String(file.name.dropLast(7))
                : file.name.hasSuffix(".json") ? String(file.name.dropLast(5)) : file.name
            groups[base, default: 0] += file.size
        }
        // Names start with a UTC timestamp, so name order is age order.
        for base in groups.keys.sorted() where total + reserve > maxBytes && base != activeBase {
            try? FileSystem.remove(directory + "/" + base + ".csv.gz")
            try? FileSystem.remove(directory + "/" + base + ".json")
            total -= groups[base] ?? 0
            logger.info("recordings over \(maxBytes / 1_048_576) MB: deleted the oldest, \(base)")
        }
        return total
    }
}
