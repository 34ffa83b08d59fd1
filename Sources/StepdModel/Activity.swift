/// The activity classes of CoreMotion's `CMMotionActivity`.
public enum ActivityKind: String, Sendable, CaseIterable, Equatable, Hashable {
    case stationary, walking, running, automotive, cycling, unknown
}

/// CoreMotion's `CMMotionActivityConfidence`.
public enum ActivityConfidence: String, Sendable, CaseIterable, Comparable {
    case low, medium, high

    private var rank: Int {
        switch self {
        case .low: return 0
        case .medium: return 1
        case .high: return 2
        }
    }

    public static func < (lhs: ActivityConfidence, rhs: ActivityConfidence) -> Bool { lhs.rank < rhs.rank }
}

/// The current activity and since when (seconds on the sample clock) it has held.
public struct ActivityState: Sendable, Equatable {
    public var kind: ActivityKind
    public var confidence: ActivityConfidence
    public var start: Double

    public init(kind: ActivityKind, confidence: ActivityConfidence, start: Double) {
        self.kind = kind
        self.confidence = confidence
        self.start = start
    }
}

/// One stretch of a single activity, in UTC seconds: a recording's analysis, the ledger's
/// history and the `activity.query` answer all speak in these.
public struct ActivitySegment: Sendable, Equatable {
    public var kind: ActivityKind
    public var confidence: ActivityConfidence
    public var start: Double
    public var end: Double

    public init(kind: ActivityKind, confidence: ActivityConfidence, start: Double, end: Double) {
        self.kind = kind
        self.confidence = confidence
        self.start = start
        self.end = end
    }
}
