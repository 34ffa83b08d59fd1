/// When detector steps held in memory must become a ledger record. A crash loses at most what
/// is pending, so the step limit bounds the loss (99 steps) and the age limit bounds how stale
/// the file can be when the wearer stands still after a few steps.
public struct CheckpointPolicy: Sendable, Equatable {
    public var stepsPerRecord: Int
    public var maximumUnsavedAge: Double

    public init(stepsPerRecord: Int = 100, maximumUnsavedAge: Double = 60) {
        self.stepsPerRecord = max(1, stepsPerRecord)
        self.maximumUnsavedAge = max(0, maximumUnsavedAge)
    }

    public enum Reason: String, Sendable, Equatable {
        case stepLimit = "step limit"
        case unsavedAge = "unsaved for too long"
        case activityChange = "activity changed"
        case shutdown
    }

    /// What to do with `pendingSteps` that first went unsaved at `unsavedSince` (nil when
    /// nothing is pending). `activityChanged`/`shuttingDown` are the event-driven triggers.
    public func checkpointReason(pendingSteps: Int, unsavedSince: Double?, now: Double,
                                 activityChanged: Bool = false, shuttingDown: Bool = false) -> Reason? {
        guard pendingSteps > 0 else { return nil }
        if shuttingDown { return .shutdown }
        if activityChanged { return .activityChange }
        if pendingSteps >= stepsPerRecord { return .stepLimit }
        if let since = unsavedSince, now - since >= maximumUnsavedAge { return .unsavedAge }
        return nil
    }

    /// When the age rule fires next for steps unsaved since `unsavedSince`.
    public func dueTime(pendingSteps: Int, unsavedSince: Double?) -> Double? {
        guard pendingSteps > 0, let since = unsavedSince else { return nil }
        return since + maximumUnsavedAge
    }
}
