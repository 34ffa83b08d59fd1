import CivilTime
import Ledger
import POSIXLayer
import StepdModel

public struct LedgerOptions {
    public var checkpoint = CheckpointPolicy()
    /// Source id of this device's detector records.
    public var deviceSourceId = "this-device"
    /// Gives each record's local UTC offset; queries take their own zone.
    public var timeZone: TimeZoneRule = .utc
    public var sourcePriority = SourcePriority()
    /// Synced day files older than this are deleted.
    public var retentionDays = 365
    /// Above this, the oldest synced files go first, even inside the retention period.
    public var diskCapBytes = 32 << 20
    /// Above this, even unsynced files go (with an error in the log): the disk must not fill.
    public var hardDiskCapBytes = 128 << 20
    /// Records held in memory while the disk cannot be written; beyond it the detector keeps
    /// counting into one growing pending record instead of cutting new ones.
    public var maximumBacklogRecords = 10_000
    /// Seconds between write attempts while degraded.
    public var retryInterval = 10.0
    public var fileSystem: any LedgerFileSystem = PosixFileSystem()

    public init() {}
}

public struct LedgerHealth: Sendable, Equatable {
    public enum State: String, Sendable, Equatable { case ok, degraded }
    public var state: State
    /// Why degraded, saying what to fix.
    public var message: String?
    /// Records in memory waiting for the disk.
    public var backlogRecords: Int
    /// Detector steps not yet in any record.
    public var pendingSteps: Int
}

public enum LedgerError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalidOptions(String)
    case fileSystem(FileSystemError)
    case invalidSample(SampleValidationError)
    case invalidSampleAt(index: Int, SampleValidationError)
    case duplicateSyncIdentifier(String)
    case query(LedgerQueryError)
    case notFound(sequence: UInt64)
    case alreadyDeleted(sequence: UInt64)
    case notOwner(sequence: UInt64, owner: String, requester: String)
    case detectorRecordsAreNotDeletable(sequence: UInt64)
    case backlogFull(records: Int)
    case anchorAhead(anchor: UInt64, latest: UInt64)

    public var description: String {
        switch self {
        case .invalidOptions(let reason): return "invalid ledger options: \(reason)"
        case .fileSystem(let error): return "ledger files: \(error)"
        case .invalidSample(let error): return "sample refused: \(error)"
        case .invalidSampleAt(let index, let error): return "samples[\(index)] refused (none were added): \(error)"
        case .duplicateSyncIdentifier(let id): return "sync identifier '\(id)' appears twice in one call (none were added)"
        case .query(let error): return "query refused: \(error)"
        case .notFound(let sequence): return "no sample with sequence \(sequence)"
        case .alreadyDeleted(let sequence): return "sample \(sequence) is already deleted"
        case .notOwner(let sequence, let owner, let requester):
            return "sample \(sequence) belongs to source '\(owner)'; '\(requester)' may delete only its own samples"
        case .detectorRecordsAreNotDeletable(let sequence):
            return "sample \(sequence) comes from this device's detector and cannot be deleted"
        case .backlogFull(let records):
            return "the ledger cannot write to disk and already holds \(records) records in memory; free space and retry"
        case .anchorAhead(let anchor, let latest): return "anchor \(anchor) is beyond the latest exported sequence \(latest)"
        }
    }
}

/// What a prune removed.
public struct PruneResult: Sendable, Equatable {
    public var removedFiles: [String] = []
    public var removedRecords = 0
    public var removedUnsyncedFiles: [String] = []
}

/// Why the ledger changed: what `onChange` reports once records reached the disk.
public struct LedgerChange: Sendable, Equatable {
    public typealias Reason = LedgerChangeReason
    public var reasons: Set<Reason> = []
    /// The highest exportable anchor now.
    public var latestAnchor: UInt64 = 0
    public init() {}
}

/// What `addSamples` did with one sample.
public struct AddOutcome: Sendable, Equatable {
    public typealias Status = SampleAddStatus
    /// The stored record (for `unchanged`, the one already held).
    public var record: StepRecord
    public var status: Status
}

/// What `deleteSamples` did.
public struct DeleteOutcome: Sendable, Equatable {
    public var tombstones: [StepRecord] = []
    public var notFound: [UInt64] = []
    public var alreadyDeleted: [UInt64] = []
}
