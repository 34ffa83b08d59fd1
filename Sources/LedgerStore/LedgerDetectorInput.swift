import Glibc
import Ledger
import POSIXLayer
import StepdModel

// Steps and activity changes from the detector, the checkpoint tick and shutdown.
extension LedgerService {
    var backlogFull: Bool { backlog.count >= options.maximumBacklogRecords }

    /// Steps the detector found (UTC times, ascending) with their total distance.
    public func addDetectedSteps(times: [Double], distance: Double, activity kind: ActivityKind, now: Double) {
        guard !times.isEmpty else { return }
        let perStep = distance.isFinite && distance > 0 ? distance / Double(times.count) : 0
        if let current = pending, current.activity != kind, !backlogFull { cutPending() }
        let floor = lastDetectorEndMs == .min ? -Double.infinity : Double(lastDetectorEndMs) / 1000
        for rawTime in times where rawTime.isFinite {
            let time = max(rawTime, floor, pending?.end ?? -Double.infinity)
            if var current = pending {
                current.end = time
                current.steps += 1
                current.distance += perStep
                pending = current
            } else {
                pending = Pending(start: time, end: time, steps: 1, distance: perStep, activity: kind, unsavedSince: now)
            }
            if let current = pending, current.steps >= options.checkpoint.stepsPerRecord, !backlogFull { cutPending() }
        }
        writeIfDue(now: now)
    }

    /// The classifier's activity changed at UTC `at`.
    public func activityChanged(to kind: ActivityKind, at: Double, now: Double) {
        guard kind != activity else { return }
        if pending != nil {
            if !backlogFull { cutPending() }
        } else {
            recordActivityPeriod(until: at)
        }
        activity = kind
        activityStart = at
        writeIfDue(now: now)
    }

    /// Vehicles and bicycles give no steps, so their time is kept as a zero-step record.
    func recordActivityPeriod(until end: Double) {
        guard activity == .automotive || activity == .cycling, let begin = activityStart, !backlogFull else { return }
        let startMs = max(LedgerTime.milliseconds(begin), lastDetectorEndMs)
        let endMs = LedgerTime.milliseconds(end)
        guard endMs > startMs else { return }
        let record = StepRecord(sequence: takeSequence(), startMs: startMs, endMs: endMs,
                                utcOffset: recordedOffset(at: Double(startMs) / 1000), steps: 0,
                                distanceMm: 0, activity: activity, source: deviceSource)
        lastDetectorEndMs = endMs
        append(record)
    }

    /// Runs the checkpoint rules and retries a backlog; call at `nextTickTime`.
    public func tick(now: Double) {
        if let current = pending, !backlogFull,
           options.checkpoint.checkpointReason(pendingSteps: current.steps, unsavedSince: current.unsavedSince, now: now) != nil {
            cutPending()
        }
        writeIfDue(now: now)
    }

    /// When `tick` must run next; nil when nothing is waiting.
    public var nextTickTime: Double? {
        var times: [Double] = []
        if let current = pending, !backlogFull,
           let due = options.checkpoint.dueTime(pendingSteps: current.steps, unsavedSince: current.unsavedSince) {
            times.append(due)
        }
        if !backlog.isEmpty || directoryNeedsSync { times.append(nextRetry ?? 0) }
        return times.min()
    }

    /// Writes everything pending (SIGTERM): a clean stop loses nothing the disk can take.
    public func shutdown(now: Double) {
        if pending != nil {
            cutPending()
        } else {
            recordActivityPeriod(until: now)
            activityStart = now
        }
        writeBacklog(now: now)
        if !backlog.isEmpty {
            let steps = backlog.reduce(0) { $0 + $1.steps }
            // The failure without "keeping ... in memory and retrying", which no longer holds.
            logger.error("ledger: shutting down with \(backlog.count) record(s) (\(steps) steps) not written: \(degradedMessage ?? "unknown error"); they are lost")
        }
    }

    public var health: LedgerHealth {
        LedgerHealth(state: degradedMessage == nil ? .ok : .degraded, message: degradedText,
                     backlogRecords: backlog.count, pendingSteps: pending?.steps ?? 0)
    }
}
