import StepdModel

/// One page of an anchored export (HKAnchoredObjectQuery): records and tombstones with a
/// sequence above the anchor, oldest first.
public struct SyncPage: Sendable, Equatable {
    public var records: [StepRecord]
    /// Pass this back as the next anchor (and acknowledge it once the page is stored).
    public var newAnchor: UInt64
    /// More records follow this page.
    public var more: Bool
}

public enum LedgerSync {
    public static let maximumPageSize = 10_000

    /// `log` sorted by sequence. `limit` is clamped to 1...maximumPageSize.
    public static func page(_ log: [StepRecord], after anchor: UInt64, limit: Int) -> SyncPage {
        let size = min(max(limit, 1), maximumPageSize)
        var low = 0, high = log.count
        while low < high {
            let mid = (low + high) / 2
            if log[mid].sequence <= anchor { low = mid + 1 } else { high = mid }
        }
        let end = min(log.count, low + size)
        let records = Array(log[low..<end])
        return SyncPage(records: records, newAnchor: records.last?.sequence ?? anchor, more: end < log.count)
    }
}

/// A client's own identity for a sample (HKMetadataKeySyncIdentifier + version): the same
/// identifier from the same source with a higher version replaces the sample, an equal or lower
/// version changes nothing, so a client can resend after a lost answer.
public struct SampleSync: Sendable, Equatable, Hashable {
    public var identifier: String
    public var version: Int64
    public init(identifier: String, version: Int64) {
        self.identifier = identifier
        self.version = version
    }

    /// 1-128 bytes of letters, digits and `. _ - : @` (one ledger-side field, no spaces).
    public static func isValidIdentifier(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty, bytes.count <= 128 else { return false }
        return bytes.allSatisfy(SourceIdentifier.isValidByte)
    }
}

/// A sample offered from outside (another device, an app, a person).
public struct ExternalSample: Sendable, Equatable {
    public var start: Double
    public var end: Double
    public var steps: Int
    public var distance: Double
    public var activity: ActivityKind
    public var source: SampleSource
    public var userEntered: Bool
    public var sync: SampleSync?

    public init(start: Double, end: Double, steps: Int, distance: Double = 0, activity: ActivityKind = .walking,
                source: SampleSource, userEntered: Bool = false, sync: SampleSync? = nil) {
        self.sync = sync
        self.start = start
        self.end = end
        self.steps = steps
        self.distance = distance
        self.activity = activity
        self.source = source
        self.userEntered = userEntered
    }
}

public enum SampleValidationError: Error, Sendable, Equatable, CustomStringConvertible {
    case notFinite
    case endNotAfterStart(start: Double, end: Double)
    case endInFuture(end: Double, now: Double)
    case negativeSteps(Int)
    case implausibleSteps(steps: Int, limit: Int)
    case negativeDistance(Double)
    case implausibleDistance(metres: Double, limit: Double)
    case tooLong(seconds: Double)
    case invalidSourceId(String)
    case detectorSourceReserved

    public var description: String {
        switch self {
        case .notFinite: return "start, end and distance must be finite numbers"
        case .endNotAfterStart(let start, let end): return "end \(end) must be after start \(start)"
        case .endInFuture(let end, let now): return "end \(end) is in the future (now is \(now)); send samples once they are over"
        case .negativeSteps(let steps): return "steps \(steps) must not be negative"
        case .implausibleSteps(let steps, let limit): return "\(steps) steps is more than \(limit), the most possible at \(ExternalSampleRules.maximumStepsPerSecond) steps/s over this interval"
        case .negativeDistance(let metres): return "distance \(metres) m must not be negative"
        case .implausibleDistance(let metres, let limit): return "distance \(metres) m is more than \(limit) m, the most possible at \(ExternalSampleRules.maximumMetresPerSecond) m/s over this interval"
        case .tooLong(let seconds): return "a sample may span at most \(Int(ExternalSampleRules.maximumDuration)) s (one day), this one spans \(seconds) s; split it"
        case .invalidSourceId(let id): return "source id '\(id)' must be 1-64 characters of A-Z a-z 0-9 . _ - : @"
        case .detectorSourceReserved: return "source kind 'detector' is reserved for this device's own detector; use device, app or manual"
        }
    }
}

public enum ExternalSampleRules {
    public static let maximumStepsPerSecond = SampleLimits.maximumStepsPerSecond
    public static let maximumMetresPerSecond = SampleLimits.maximumMetresPerSecond
    public static let maximumDuration = SampleLimits.maximumDurationSeconds

    public static func validate(_ sample: ExternalSample, now: Double) throws(SampleValidationError) {
        guard sample.start.isFinite, sample.end.isFinite, sample.distance.isFinite else { throw .notFinite }
        guard SampleSource.isValidId(sample.source.id) else { throw .invalidSourceId(sample.source.id) }
        guard sample.source.kind != .detector else { throw .detectorSourceReserved }
        // Compare at the stored precision so a valid sample stays valid after rounding.
        guard LedgerTime.milliseconds(sample.end) > LedgerTime.milliseconds(sample.start) else {
            throw .endNotAfterStart(start: sample.start, end: sample.end)
        }
        guard sample.end <= now else { throw .endInFuture(end: sample.end, now: now) }
        let duration = sample.end - sample.start
        guard duration <= maximumDuration else { throw .tooLong(seconds: duration) }
        guard sample.steps >= 0 else { throw .negativeSteps(sample.steps) }
        let stepLimit = Int((duration * maximumStepsPerSecond).rounded(.up))
        guard sample.steps <= stepLimit else { throw .implausibleSteps(steps: sample.steps, limit: stepLimit) }
        guard sample.distance >= 0 else { throw .negativeDistance(sample.distance) }
        let distanceLimit = duration * maximumMetresPerSecond
        guard sample.distance <= distanceLimit else { throw .implausibleDistance(metres: sample.distance, limit: distanceLimit) }
    }
}
