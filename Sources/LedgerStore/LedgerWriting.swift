import Glibc
import Ledger
import POSIXLayer
import StepdModel

// Records: sequence numbers, the backlog, durable appends to day files, degraded state.
extension LedgerService {
    func takeSequence() -> UInt64 {
        defer { nextSequence += 1 }
        return nextSequence
    }

    func cutPending() {
        guard let current = pending else { return }
        pending = nil
        let record = StepRecord(sequence: takeSequence(), start: current.start, end: current.end,
                                utcOffset: recordedOffset(at: current.start), steps: current.steps,
                                distance: current.distance, activity: current.activity, source: deviceSource)
        lastDetectorEndMs = max(lastDetectorEndMs, record.endMs)
        append(record)
    }

    /// The UTC offset a record stores. A TZif file may claim up to ±26 h and a POSIX rule more,
    /// but the line format refuses more than ±18 h as corruption: capping keeps such a record
    /// readable after a restart instead of moved aside with its file as damaged.
    func recordedOffset(at utc: Double) -> Int32 {
        let limit = Int(RecordCodec.maximumUTCOffset)
        return Int32(min(max(options.timeZone.offset(at: utc), -limit), limit))
    }

    func append(_ record: StepRecord) {
        backlog.append(record)
        store.insert(record)
    }

    func append(_ records: [StepRecord]) {
        backlog.append(contentsOf: records)
        store.insert(contentsOf: records)
    }

    func writeIfDue(now: Double) {
        guard !backlog.isEmpty || directoryNeedsSync else { return }
        if let retry = nextRetry, now < retry { return }
        writeBacklog(now: now)
    }

    /// Appends the backlog in sequence order, one write + fdatasync per day file touched.
    func writeBacklog(now: Double) {
        var written = 0
        var startedDayFile = false
        var change = LedgerChange()
        defer {
            if written > 0 {
                change.latestAnchor = store.highestSequence(below: backlog.first?.sequence ?? .max) ?? 0
                onChange?(change)
            }
        }
        if !backlog.isEmpty {
            do throws(FileSystemError) {
                try prepareDirectories()
            } catch {
                degrade("cannot create the ledger directory \(directory): \(error)", keepingBacklog: true, now: now, cause: "\(error.operation) errno \(error.errno)", summary: "cannot create \(directory): \(error)")
                return
            }
        }
        while !backlog.isEmpty {
            let day = LedgerFiles.day(of: backlog[0])
            var count = 0
            while count < backlog.count, LedgerFiles.day(of: backlog[count]) == day { count += 1 }
            let batch = backlog[0..<count]
            let bytes = batch.flatMap(RecordCodec.encode)
            let name = LedgerFiles.fileName(day: day)
            let existing = files[day]
            let path = directory + "/" + name
            var size = (existing?.size ?? 0) + bytes.count
            do throws(FileSystemError) {
                // A file that went missing counts as empty: rebuilt the same way.
                let onDisk = existing == nil ? 0 : try fs.fileSize(path) ?? 0
                if let known = existing, onDisk < known.size {
                    size = try rebuildDayFile(day: day, name: name, batch: batch, onDisk: onDisk, written: known.size)
                } else {
                    try fs.appendDurably(path, bytes, expectedSize: existing?.size ?? 0)
                    // fdatasync made the bytes durable, not the new file's name: until the
                    // directory is synced too, these records are not durable and stay in the
                    // backlog (a retry rewrites the file from 0, cutting what this attempt left).
                    if existing == nil { try fs.syncDirectory(directory) }
                }
            } catch {
                degrade("cannot write \(name): \(error)", keepingBacklog: true, now: now, cause: "\(error.operation) errno \(error.errno)", summary: "cannot write \(name): \(error)")
                return
            }
            files[day] = DayFile(size: size,
                                 maxSequence: max(existing?.maxSequence ?? 0, batch.last?.sequence ?? 0))
            if existing == nil { startedDayFile = true }
            for record in batch {
                if record.isTombstone {
                    change.reasons.insert(.delete)
                } else if record.source.kind == .detector {
                    change.reasons.insert(.checkpoint)
                } else {
                    change.reasons.insert(.add)
                }
            }
            backlog.removeFirst(count)
            written += count
            lastCheckpointTime = now
            logger.debug("ledger: checkpoint written: \(count) record(s), \(batch.reduce(0) { $0 + $1.steps }) step(s), \(name) now \(files[day]?.size ?? 0) bytes")
        }
        if directoryNeedsSync {
            do throws(FileSystemError) {
                try fs.syncDirectory(directory)
                directoryNeedsSync = false
            } catch {
                degrade("cannot sync the ledger directory: \(error); retrying", now: now)
                return
            }
        }
        if degradedMessage != nil {
            // Clock values come from the agent; a jump must not trap the conversion.
            let seconds = faultStart.map { (now - $0).rounded() }
            let lasted = seconds.flatMap { Int(exactly: $0) }.map { "after \($0) s" } ?? "after a failure at start"
            logger.notice("ledger: writing again \(lasted); \(written) backlogged record(s) written; the failure was: \(faultSummary ?? "unknown")")
            degradedMessage = nil
            degradedKeepsBacklog = false
            degradedCause = nil
            faultStart = nil
            faultSummary = nil
        }
        nextRetry = nil
        // Retention and the disk caps are kept as the days pass, not only when a client
        // acknowledges: a device whose sync stopped (or never started) kept every day file,
        // and every record in memory, for good, past the hard cap too.
        if startedDayFile { prune(now: now) }
    }

    /// The day file holds fewer bytes than were written and synced to it: the disk lost them
    /// (a lying write cache, an fsck that cut the file after I/O errors, a restore). Appending
    /// after the gap would leave those records missing on disk for good, so the file is rebuilt
    /// from memory, which holds every record of the day, and replaced atomically (a crash
    /// before the rename leaves the short file and a `.tmp` that recovery drops).
    func rebuildDayFile(day: Int, name: String, batch: ArraySlice<StepRecord>, onDisk: Int, written: Int)
    throws(FileSystemError) -> Int {
        var records: [StepRecord] = []
        var anchor: UInt64 = 0
        let firstBacklog = backlog.first?.sequence ?? .max
        while true {
            let page = store.page(after: anchor, below: firstBacklog, limit: LedgerSync.maximumPageSize)
            records += page.records.filter { LedgerFiles.day(of: $0) == day }
            guard page.more else { break }
            anchor = page.newAnchor
        }
        let bytes = (records + batch).flatMap(RecordCodec.encode)
        let path = directory + "/" + name
        try replaceDurably(path, bytes)
        logger.warning("ledger: \(name) held \(onDisk) byte(s) on disk but \(written) had been written and synced: the disk lost data; rewrote the file from memory with \(records.count + batch.count) record(s)")
        return bytes.count
    }

    /// One error line when writing starts to fail (or fails a new way), not one per retry.
    /// `summary`: the failure without the advice and counts of `message`, for the notice that
    /// ends the outage.
    /// `keepingBacklog`: the records wait in memory for a retry, which the message then says
    /// with their current count.
    func degrade(_ message: String, keepingBacklog: Bool = false, now: Double?, cause: String? = nil, summary: String? = nil) {
        if degradedMessage == nil {
            faultStart = now
            faultSummary = summary ?? message
        }
        let cause = cause ?? message
        let isNew = degradedCause != cause
        degradedCause = cause
        degradedMessage = message
        degradedKeepsBacklog = keepingBacklog
        if isNew { logger.error("ledger: \(degradedText ?? message)") }
        nextRetry = now.map { $0 + options.retryInterval }
    }

    /// The degraded message as `health` reports it: with the backlog's count now (it said the
    /// count of the last failed attempt, "keeping 1 record(s)" beside backlog_records 3).
    var degradedText: String? {
        guard let degradedMessage else { return nil }
        guard degradedKeepsBacklog else { return degradedMessage }
        return degradedMessage + "; keeping \(backlog.count) record(s) in memory and retrying every \(Int(options.retryInterval)) s"
    }
}
