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
    case ledgerExport = "ledger.export"
    case ledgerAck = "ledger.ack"
    case recordingStart = "recording.start"
    case recordingStop = "recording.stop"

    /// Methods that change stored data or start work on the device; they need an admin peer
    /// (root, the agent's own user, or a member of the admin group).
    public var changesState: Bool {
        switch self {
        case .samplesAdd, .samplesDelete, .ledgerAck, .recordingStart, .recordingStop: return true
        default: return false
        }
    }
}

/// Notification method names sent by the agent.
public enum RPCNotificationMethod {
    public static let stepsUpdate = "steps.update"
    public static let activityUpdate = "activity.update"
}

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
