import Glibc
import Ledger
import POSIXLayer
import StepdModel

/// The agent's ledger: detector steps in, checkpointed records out to day files, queries over
/// records plus the live steps. Single-threaded like the agent's loop; never reads a clock.
public final class LedgerService {
    public let directory: String
    let stateDirectory: String
    var directoriesExist = false
    var stateDirectoryUnsynced = false
    var ledgerDirectoryUnsynced = false
    let options: LedgerOptions
    let logger: EventLogger
    let fs: any LedgerFileSystem
    /// This device's detector records are written under this source.
    public var deviceSource: SampleSource { SampleSource(id: options.deviceSourceId, kind: .detector) }

    /// Accepted records and tombstones (durable and backlog), compact: no per-record String.
    var store = SampleStore()
    struct DayFile { var size: Int; var maxSequence: UInt64 }
    var files: [Int: DayFile] = [:]
    /// Records not yet on disk: the newest of `store`'s, in sequence order.
    var backlog: [StepRecord] = []
    var nextSequence: UInt64 = 1
    var ackedAnchor: UInt64 = 0
    var directoryNeedsSync = false

    struct Pending {
        var start: Double
        var end: Double
        var steps: Int
        var distance: Double
        var activity: ActivityKind
        var unsavedSince: Double
    }
    var pending: Pending?
    var activity: ActivityKind = .unknown
    var activityStart: Double?
    /// Detector records must not overlap, so new steps never go before this.
    var lastDetectorEndMs: Int64 = .min

    struct HeldSync { var sequence: UInt64; var version: Int64 }
    /// "kind:id NUL sync identifier" -> the live sample holding it (saved in `sync-identifiers`).
    var syncIdentifiers: [String: HeldSync] = [:]
    var syncRecords: [UInt64: SampleSync] = [:]

    var degradedMessage: String?
    /// The failure keeps records in memory: `health` and the log add the backlog's count as it
    /// is then, not as it was at the last attempt.
    var degradedKeepsBacklog = false
    /// What failed (operation and errno), so a retry failing the same way stays quiet while
    /// the message (with its growing backlog count) is kept current for `health`.
    var degradedCause: String?
    /// When the current outage began (nil when it began at start) and what failed first.
    var faultStart: Double?
    var faultSummary: String?
    var nextRetry: Double?
    /// `now` of the last append that reached the disk.
    public internal(set) var lastCheckpointTime: Double?
    /// Which source wins where samples overlap: the options' order until a user sets one
    /// (`setSourcePriority`), which is kept in the ledger directory across restarts.
    public internal(set) var sourcePriority: SourcePriority
    /// Called after records reached the disk (and so became exportable), with why.
    public var onChange: ((LedgerChange) -> Void)?

    // MARK: start-up

    public init(stateDirectory: String, options: LedgerOptions, logger: EventLogger) throws(LedgerError) {
        guard SampleSource.isValidId(options.deviceSourceId) else {
            throw .invalidOptions("deviceSourceId '\(options.deviceSourceId)' must be 1-64 characters of A-Z a-z 0-9 . _ - : @")
        }
        guard options.retentionDays >= 1, options.diskCapBytes > 0, options.hardDiskCapBytes >= options.diskCapBytes,
              options.maximumBacklogRecords >= 1, options.retryInterval > 0 else {
            throw .invalidOptions("retentionDays >= 1, 0 < diskCapBytes <= hardDiskCapBytes, maximumBacklogRecords >= 1, retryInterval > 0")
        }
        self.directory = stateDirectory + "/" + LedgerFiles.directoryName
        self.options = options
        self.logger = logger
        self.fs = options.fileSystem
        self.sourcePriority = options.sourcePriority
        self.stateDirectory = stateDirectory
        var directoryError: FileSystemError?
        do throws(FileSystemError) {
            try prepareDirectories()
        } catch {
            directoryError = error
        }
        do throws(LedgerError) {
            try load()
        } catch {
            // Nothing can be read either, so the agent stops: the cause to name is the
            // directory it could not make (saying "kept in memory" first told a story that
            // the next line, and the exit, contradicted).
            if let directoryError { throw .fileSystem(directoryError) }
            throw error
        }
        if let directoryError {
            degrade("cannot create the ledger directory: \(directoryError); steps are kept in memory until it can be written", now: nil)
        }
    }
}
