/// Every method the agent answers.
public enum RPCMethod: String, Sendable, CaseIterable {
    case status
    case stepsQuery = "steps.query"
    case stepsStatistics = "steps.statistics"
    case stepsCollection = "steps.collection"
    case activityCurrent = "activity.current"
    case activityQuery = "activity.query"
    case stepsSubscribe = "steps.subscribe"
    case activitySubscribe = "activity.subscribe"
    case unsubscribe
    case samplesAdd = "samples.add"
    case samplesDelete = "samples.delete"
    case samplesList = "samples.list"
    case sourcesList = "sources.list"
    case sourcesPriority = "sources.priority"
    case ledgerSubscribe = "ledger.subscribe"
    case ledgerExport = "ledger.export"
    case ledgerAck = "ledger.ack"
    case recordingStart = "recording.start"
    case recordingStop = "recording.stop"

    /// Methods that change stored data or start work on the device; they need an admin peer
    /// (root, the agent's own user, or a member of the admin group).
    public var changesState: Bool {
        switch self {
        case .samplesAdd, .samplesDelete, .sourcesPriority, .ledgerAck, .recordingStart, .recordingStop: return true
        default: return false
        }
    }
}

/// Notification method names sent by the agent.
public enum RPCNotificationMethod {
    public static let stepsUpdate = "steps.update"
    public static let activityUpdate = "activity.update"
    public static let ledgerChanged = "ledger.changed"
}

/// How large one answer may be. A larger answer is never queued: pageable methods stop
/// early (`more` + `next_anchor` / `next_start`) and anything else is answered with a
/// `-32003` error that says what to lower.
public let maxResponseBytes = 1 << 20
/// What a pageable result may fill, leaving room for the envelope (`jsonrpc`, `id`, the
/// page's own `more` and cursor members).
public let resultBudgetBytes = maxResponseBytes - 4096

/// Who sent a request, from SO_PEERCRED; passed to state-changing handlers for logs and audit.
public struct RPCCaller: Sendable, Equatable {
    public var pid: Int32
    public var uid: UInt32
    public var gid: UInt32
    public init(pid: Int32, uid: UInt32, gid: UInt32) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
    }
}
