import StepdModel

/// Who produced a sample. `detector` is this device's own step detector; the others come in
/// through the socket (a paired watch or phone, an app, or a person typing a number).
public enum SourceKind: String, Sendable, CaseIterable, Hashable {
    case detector, device, app, manual

    /// Default merge rank when no explicit priority names the source: lower wins.
    var defaultRank: Int {
        switch self {
        case .detector: return 0
        case .device: return 1
        case .app: return 2
        case .manual: return 3
        }
    }
}

/// A sample's origin: a stable id chosen by the producer plus its kind.
public struct SampleSource: Sendable, Hashable, CustomStringConvertible {
    public var id: String
    public var kind: SourceKind

    public init(id: String, kind: SourceKind) {
        self.id = id
        self.kind = kind
    }

    /// Ids are one ledger field, so they must not contain spaces; the allowed set also keeps
    /// them safe in file names, logs and JSON without escaping.
    public static func isValidId(_ id: String) -> Bool {
        let bytes = Array(id.utf8)
        guard !bytes.isEmpty, bytes.count <= 64 else { return false }
        return bytes.allSatisfy(SourceIdentifier.isValidByte)
    }


    /// The one name form of a source everywhere (answers, params, files): `kind:id`, for
    /// example `detector:this-device`, `app:phone`, `device:watch-1`, `manual:alice`.
    public var description: String { "\(kind.rawValue):\(id)" }

    /// Reads the `kind:id` form; a name without a known kind prefix is an app's (`phone` is
    /// `app:phone`).
    public init?(name: String) {
        if let colon = name.firstIndex(of: ":"), let kind = SourceKind(rawValue: String(name[..<colon])) {
            let id = String(name[name.index(after: colon)...])
            guard Self.isValidId(id) else { return nil }
            self.init(id: id, kind: kind)
        } else {
            guard Self.isValidId(name) else { return nil }
            self.init(id: name, kind: .app)
        }
    }
}

/// Per-record flags. `tombstone` records say "the record with sequence `deletes` is gone", so
/// a sync client that already copied that record learns about the deletion.
public struct RecordFlags: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let userEntered = RecordFlags(rawValue: 1)
    public static let tombstone = RecordFlags(rawValue: 2)
}

/// One step sample as stored in the ledger. Times and distance are kept as integers (ms, mm)
/// so that a record survives encode/decode bit for bit.
public struct StepRecord: Sendable, Hashable {
    public var sequence: UInt64
    public var startMs: Int64
    public var endMs: Int64
    /// Local time minus UTC, seconds, at `start` (what the wearer's clock showed).
    public var utcOffset: Int32
    public var steps: Int
    public var distanceMm: Int64
    public var activity: ActivityKind
    public var source: SampleSource
    public var flags: RecordFlags
    /// For a tombstone, the sequence number of the deleted record; 0 otherwise.
    public var deletes: UInt64

    public init(sequence: UInt64, startMs: Int64, endMs: Int64, utcOffset: Int32, steps: Int, distanceMm: Int64,
                activity: ActivityKind, source: SampleSource, flags: RecordFlags = [], deletes: UInt64 = 0) {
        self.sequence = sequence
        self.startMs = startMs
        self.endMs = endMs
        self.utcOffset = utcOffset
        self.steps = steps
        self.distanceMm = distanceMm
        self.activity = activity
        self.source = source
        self.flags = flags
        self.deletes = deletes
    }

    /// Builds a record from UTC seconds and metres, rounding to the stored precision.
    public init(sequence: UInt64, start: Double, end: Double, utcOffset: Int32, steps: Int, distance: Double,
                activity: ActivityKind, source: SampleSource, flags: RecordFlags = [], deletes: UInt64 = 0) {
        self.init(sequence: sequence, startMs: LedgerTime.milliseconds(start), endMs: LedgerTime.milliseconds(end),
                  utcOffset: utcOffset, steps: steps, distanceMm: LedgerTime.thousandths(distance),
                  activity: activity, source: source, flags: flags, deletes: deletes)
    }

    public var start: Double { Double(startMs) / 1000 }
    public var end: Double { Double(endMs) / 1000 }
    public var distance: Double { Double(distanceMm) / 1000 }
    public var isTombstone: Bool { flags.contains(.tombstone) }
    public var isUserEntered: Bool { flags.contains(.userEntered) }
}

/// Conversions between UTC seconds (`Double`) and the ledger's integer milliseconds.
public enum LedgerTime {
    /// No real instant (or distance) lies beyond ±2^61 thousandths (73 million years). Capping
    /// there keeps the difference of any two stored values inside Int64, so neither a hostile
    /// number nor a crafted ledger line can make the arithmetic on them trap.
    public static let maximumMilliseconds: Int64 = 1 << 61

    public static func milliseconds(_ seconds: Double) -> Int64 { thousandths(seconds) }

    /// `value * 1000` rounded; NaN and infinities are 0 (no usable value), huge finite values
    /// are capped at ±`maximumMilliseconds` (Int64(Double) would trap on them).
    static func thousandths(_ value: Double) -> Int64 {
        guard value.isFinite else { return 0 }
        let limit = Double(maximumMilliseconds)
        return Int64(min(max((value * 1000).rounded(), -limit), limit))
    }
}
