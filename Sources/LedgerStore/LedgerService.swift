import CivilTime
import Glibc
import Ledger
import StepdModel

/// The agent's ledger: detector steps in, checkpointed records out to day files, queries over
/// records plus the live steps. Single-threaded like the agent's loop; never reads a clock.
public final class LedgerService {
    public let directory: String
    private let stateDirectory: String
    private var directoriesExist = false
    private var stateDirectoryUnsynced = false
    private var ledgerDirectoryUnsynced = false
    private let options: LedgerOptions
    private let logger: EventLogger
    private let fs: any LedgerFileSystem
    /// This device's detector records are written under this source.
    public var deviceSource: SampleSource { SampleSource(id: options.deviceSourceId, kind: .detector) }

    /// Accepted records and tombstones (durable and backlog), compact: no per-record String.
    private var store = SampleStore()
    private struct DayFile { var size: Int; var maxSequence: UInt64 }
    private var files: [Int: DayFile] = [:]
    /// Records not yet on disk, a suffix of `log`.
    private var backlog: [StepRecord] = []
    private var nextSequence: UInt64 = 1
    private var ackedAnchor: UInt64 = 0
    private var directoryNeedsSync = false

    private struct Pending {
        var start: Double
        var end: Double
        var steps: Int
        var distance: Double
        var activity: ActivityKind
        var unsavedSince: Double
    }
    private var pending: Pending?
    private var activity: ActivityKind = .unknown
    private var activityStart: Double?
    /// Detector records must not overlap, so new steps never go before this.
    private var lastDetectorEndMs: Int64 = .min

    private struct HeldSync { var sequence: UInt64; var version: Int64 }
    /// "kind:id NUL sync identifier" -> the live sample holding it (saved in `sync-identifiers`).
    private var syncIdentifiers: [String: HeldSync] = [:]
    private var syncRecords: [UInt64: SampleSync] = [:]

    private var degradedMessage: String?
    /// What failed (operation and errno), so a retry failing the same way stays quiet while
    /// the message (with its growing backlog count) is kept current for `health`.
    private var degradedCause: String?
    /// When the current outage began (nil when it began at start) and what failed first.
    private var faultStart: Double?
    private var faultSummary: String?
    private var nextRetry: Double?
    /// `now` of the last append that reached the disk.
    public private(set) var lastCheckpointTime: Double?
    /// Which source wins where samples overlap: the options' order until a user sets one
    /// (`setSourcePriority`), which is kept in the ledger directory across restarts.
    public private(set) var sourcePriority: SourcePriority
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
        do throws(FileSystemError) {
            try prepareDirectories()
        } catch {
            degrade("cannot create the ledger directory: \(error); steps are kept in memory until it can be written", now: nil)
        }
        try load()
    }

    /// Creates the state and ledger directories when missing (again on every write until that
    /// worked: a file system read-only at boot may turn writable later), and syncs each new one
    /// into its parent. A new directory survives a power cut only once the directory holding it
    /// is synced; a file system that does not commit names with a file's fdatasync could
    /// otherwise lose the whole ledger directory with every record "durably" written into it.
    private func prepareDirectories() throws(FileSystemError) {
        if !directoriesExist {
            if try fs.makeDirectory(stateDirectory) { stateDirectoryUnsynced = true }
            if try fs.makeDirectory(directory) { ledgerDirectoryUnsynced = true }
            directoriesExist = true
        }
        if stateDirectoryUnsynced {
            try fs.syncDirectory(Self.parentDirectory(of: stateDirectory))
            stateDirectoryUnsynced = false
        }
        if ledgerDirectoryUnsynced {
            try fs.syncDirectory(stateDirectory)
            ledgerDirectoryUnsynced = false
        }
    }

    /// Replaces a file in the ledger directory atomically and durably: the new content is written
    /// and synced beside it, renamed over it, and the directory synced so the rename survives a
    /// power cut. A crash at any point leaves the old file or the new one, never a mix.
    private func replaceDurably(_ path: String, _ bytes: [UInt8]) throws(FileSystemError) {
        try fs.writeFileDurably(path + ".tmp", bytes)
        try fs.rename(path + ".tmp", to: path)
        try fs.syncDirectory(directory)
    }

    /// "/var/lib/stepd" -> "/var/lib", "state" -> ".", "/state" -> "/".
    public static func parentDirectory(of path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return "." }
        return slash == trimmed.startIndex ? "/" : String(trimmed[..<slash])
    }

    private func load() throws(LedgerError) {
        let names: [String]
        do throws(FileSystemError) {
            names = try fs.listDirectory(directory) ?? []
        } catch {
            throw .fileSystem(error)
        }
        let present = Set(names)
        var dayNames = names
        // A repair writes "X.steps.tmp" in full before renaming; finish or drop a half-done one.
        for name in names where name.hasSuffix(LedgerFiles.fileSuffix + ".tmp") {
            let target = String(name.dropLast(4))
            do throws(FileSystemError) {
                if present.contains(target) {
                    try fs.remove(directory + "/" + name)
                } else {
                    try fs.rename(directory + "/" + name, to: directory + "/" + target)
                    dayNames.append(target)
                    logger.warning("ledger: finished an interrupted repair of \(target)")
                }
            } catch {
                degrade("cannot finish the repair of \(target): \(error)", now: nil)
            }
        }
        let scanned: [LedgerFiles.ScannedFile]
        do throws(FileSystemError) {
            scanned = try LedgerFiles.scanAll(directory: directory, names: dayNames, fileSystem: fs)
        } catch {
            throw .fileSystem(error)
        }
        var integrity = LedgerIntegrity.check(scanned.flatMap { $0.scan.records.map(\.record) })
        let refused = Set(integrity.duplicates.map(\.sequence))
        var highest: UInt64 = integrity.duplicates.map(\.sequence).max() ?? 0
        for file in scanned {
            let kept = file.scan.records.filter { !refused.contains($0.record.sequence) }
            let refusedHere = file.scan.records.count - kept.count
            var size = file.scan.validLength
            if file.scan.isDamaged || refusedHere > 0 {
                size = repair(file, keeping: kept.map(\.record), refused: refusedHere, names: present)
            } else if file.scan.hasTornTail {
                let path = directory + "/" + file.name
                do throws(FileSystemError) {
                    try fs.truncate(path, to: file.scan.validLength)
                    logger.notice("ledger: \(file.name): cut a torn tail of \(file.scan.tornTailBytes) byte(s) (\(file.scan.tailProblems.first?.reason ?? "incomplete record")); kept \(kept.count) record(s)")
                } catch {
                    // The next append cuts it (it writes at the last good boundary).
                    degrade("cannot cut the torn tail of \(file.name): \(error)", now: nil)
                }
            }
            let maxSequence = kept.map(\.record.sequence).max() ?? 0
            highest = max(highest, maxSequence)
            files[file.day] = DayFile(size: size, maxSequence: maxSequence)
        }
        let device = deviceSource
        for record in integrity.accepted where record.source == device { lastDetectorEndMs = max(lastDetectorEndMs, record.endMs) }
        store = SampleStore(integrity.accepted)
        integrity.accepted = []

        do throws(FileSystemError) {
            if present.contains(LedgerFiles.anchorFileName) {
                let bytes = try fs.readFile(directory + "/" + LedgerFiles.anchorFileName)
                if let anchor = LedgerFiles.decodeAnchor(bytes) {
                    ackedAnchor = anchor
                } else {
                    logger.warning("ledger: \(LedgerFiles.anchorFileName) is unreadable; treating nothing as synced (nothing is pruned until the next acknowledgement)")
                }
            }
        } catch {
            logger.warning("ledger: cannot read \(LedgerFiles.anchorFileName): \(error); treating nothing as synced")
        }
        nextSequence = max(highest, ackedAnchor) + 1
        if present.contains(LedgerFiles.syncFileName) {
            do throws(FileSystemError) {
                for entry in LedgerFiles.decodeSync(try fs.readFile(directory + "/" + LedgerFiles.syncFileName)) {
                    guard let record = store.liveRecord(sequence: entry.sequence), record.startMs == entry.startMs,
                          record.source == entry.source else { continue }
                    syncIdentifiers[entry.source.description + "\u{0}" + entry.sync.identifier] =
                        HeldSync(sequence: entry.sequence, version: entry.sync.version)
                    syncRecords[entry.sequence] = entry.sync
                }
            } catch {
                logger.warning("ledger: cannot read \(LedgerFiles.syncFileName): \(error); sync identifiers start afresh")
            }
        }
        if present.contains(LedgerFiles.priorityFileName) {
            do throws(FileSystemError) {
                let bytes = try fs.readFile(directory + "/" + LedgerFiles.priorityFileName)
                if let order = LedgerFiles.decodePriority(bytes) {
                    sourcePriority = SourcePriority(order: order)
                } else {
                    logger.warning("ledger: \(LedgerFiles.priorityFileName) is unreadable; using the default source priority")
                }
            } catch {
                logger.warning("ledger: cannot read \(LedgerFiles.priorityFileName): \(error); using the default source priority")
            }
        }
        let totalSteps = store.liveSteps
        logger.info("ledger: \(scanned.count) file(s), \(store.count) record(s), \(totalSteps) step(s), next sequence \(nextSequence)")
    }

    /// Keeps a damaged file aside as `<name>.damaged-<n>` and puts the good records back under
    /// the original name (written to a temporary file first, so a crash never leaves neither).
    private func repair(_ file: LedgerFiles.ScannedFile, keeping records: [StepRecord], refused: Int, names: Set<String>) -> Int {
        let path = directory + "/" + file.name
        var n = 1
        while names.contains(file.name + ".damaged-\(n)") { n += 1 }
        let aside = file.name + ".damaged-\(n)"
        let bytes = records.flatMap(RecordCodec.encode)
        var what: [String] = []
        if let first = file.scan.damagedLines.first {
            what.append("\(file.scan.damagedLines.count) corrupt line(s), first at byte \(first.offset) (\(first.reason))")
        }
        if refused > 0 { what.append("\(refused) duplicated record(s)") }
        if file.scan.hasTornTail { what.append("a torn tail of \(file.scan.tornTailBytes) byte(s)") }
        do throws(FileSystemError) {
            try fs.writeFileDurably(path + ".tmp", bytes)
            try fs.rename(path, to: directory + "/" + aside)
            try fs.rename(path + ".tmp", to: path)
            try fs.syncDirectory(directory)
            logger.warning("ledger: \(file.name) had \(what.joined(separator: ", ")); moved it aside to \(aside) and kept \(records.count) valid record(s)")
            return bytes.count
        } catch {
            degrade("\(file.name) is damaged (\(what.joined(separator: ", "))) and could not be repaired: \(error); its valid records are used, the file is left as is", now: nil)
            return file.size
        }
    }

    // MARK: detector input

    private var backlogFull: Bool { backlog.count >= options.maximumBacklogRecords }

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
    private func recordActivityPeriod(until end: Double) {
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
            logger.error("ledger: shutting down with \(backlog.count) record(s) (\(steps) steps) not written: \(degradedMessage ?? "unknown error"); they are lost")
        }
    }

    public var health: LedgerHealth {
        LedgerHealth(state: degradedMessage == nil ? .ok : .degraded, message: degradedMessage,
                     backlogRecords: backlog.count, pendingSteps: pending?.steps ?? 0)
    }

    // MARK: records

    private func takeSequence() -> UInt64 {
        defer { nextSequence += 1 }
        return nextSequence
    }

    private func cutPending() {
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
    private func recordedOffset(at utc: Double) -> Int32 {
        let limit = Int(RecordCodec.maximumUTCOffset)
        return Int32(min(max(options.timeZone.offset(at: utc), -limit), limit))
    }

    private func append(_ record: StepRecord) {
        backlog.append(record)
        store.insert(record)
    }

    private func append(_ records: [StepRecord]) {
        backlog.append(contentsOf: records)
        store.insert(contentsOf: records)
    }

    private func writeIfDue(now: Double) {
        guard !backlog.isEmpty || directoryNeedsSync else { return }
        if let retry = nextRetry, now < retry { return }
        writeBacklog(now: now)
    }

    /// Appends the backlog in sequence order, one write + fdatasync per day file touched.
    private func writeBacklog(now: Double) {
        var written = 0
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
                degrade("cannot create the ledger directory \(directory): \(error); keeping \(backlog.count) record(s) in memory and retrying every \(Int(options.retryInterval)) s",
                        now: now, cause: "\(error.operation) errno \(error.errno)", summary: "cannot create \(directory): \(error)")
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
                degrade("cannot write \(name): \(error); keeping \(backlog.count) record(s) in memory and retrying every \(Int(options.retryInterval)) s",
                        now: now, cause: "\(error.operation) errno \(error.errno)", summary: "cannot write \(name): \(error)")
                return
            }
            files[day] = DayFile(size: size,
                                 maxSequence: max(existing?.maxSequence ?? 0, batch.last?.sequence ?? 0))
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
            degradedCause = nil
            faultStart = nil
            faultSummary = nil
        }
        nextRetry = nil
    }

    /// The day file holds fewer bytes than were written and synced to it: the disk lost them
    /// (a lying write cache, an fsck that cut the file after I/O errors, a restore). Appending
    /// after the gap would leave those records missing on disk for good, so the file is rebuilt
    /// from memory, which holds every record of the day, and replaced atomically (a crash
    /// before the rename leaves the short file and a `.tmp` that recovery drops).
    private func rebuildDayFile(day: Int, name: String, batch: ArraySlice<StepRecord>, onDisk: Int, written: Int)
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
    private func degrade(_ message: String, now: Double?, cause: String? = nil, summary: String? = nil) {
        if degradedMessage == nil {
            faultStart = now
            faultSummary = summary ?? message
        }
        let cause = cause ?? message
        if degradedCause != cause { logger.error("ledger: \(message)") }
        degradedCause = cause
        degradedMessage = message
        nextRetry = now.map { $0 + options.retryInterval }
    }

    // MARK: external samples

    /// Adds a validated sample from another source; returns the stored record.
    @discardableResult
    public func addSample(_ sample: ExternalSample, now: Double) throws(LedgerError) -> StepRecord {
        let outcome = try addSamples([sample], now: now)
        return outcome[0].record
    }

    /// Adds samples all or none: every one is checked first (rules, sync identifiers, room in
    /// the backlog), then all are appended together. A sample with a sync identifier already
    /// held for its source replaces that one when its version is higher and is a no-op
    /// otherwise (HKMetadataKeySyncIdentifier semantics).
    public func addSamples(_ samples: [ExternalSample], now: Double) throws(LedgerError) -> [AddOutcome] {
        var plan: [(sample: ExternalSample, replaces: UInt64?, unchanged: StepRecord?)] = []
        var seenKeys = Set<String>()
        for (index, sample) in samples.enumerated() {
            do throws(SampleValidationError) {
                try ExternalSampleRules.validate(sample, now: now)
            } catch {
                throw samples.count == 1 ? .invalidSample(error) : .invalidSampleAt(index: index, error)
            }
            guard let sync = sample.sync else {
                plan.append((sample, nil, nil))
                continue
            }
            let key = sample.source.description + "\u{0}" + sync.identifier
            guard seenKeys.insert(key).inserted else { throw .duplicateSyncIdentifier(sync.identifier) }
            if let held = syncIdentifiers[key], let existing = store.liveRecord(sequence: held.sequence) {
                if sync.version > held.version {
                    plan.append((sample, existing.sequence, nil))
                } else {
                    plan.append((sample, nil, existing))
                }
            } else {
                plan.append((sample, nil, nil))
            }
        }
        let needed = plan.reduce(0) { $0 + ($1.unchanged != nil ? 0 : ($1.replaces != nil ? 2 : 1)) }
        guard backlog.count + needed <= options.maximumBacklogRecords else { throw .backlogFull(records: backlog.count) }
        var outcomes: [AddOutcome] = []
        var added: [StepRecord] = []
        for entry in plan {
            if let existing = entry.unchanged {
                outcomes.append(AddOutcome(record: existing, status: .unchanged))
                continue
            }
            if let replaced = entry.replaces, let old = store.liveRecord(sequence: replaced) {
                added.append(tombstone(for: old))
            }
            let sample = entry.sample
            let record = StepRecord(sequence: takeSequence(), start: sample.start, end: sample.end,
                                    utcOffset: recordedOffset(at: sample.start), steps: sample.steps,
                                    distance: sample.distance, activity: sample.activity, source: sample.source,
                                    flags: sample.userEntered ? .userEntered : [])
            added.append(record)
            if let sync = sample.sync {
                syncIdentifiers[sample.source.description + "\u{0}" + sync.identifier] =
                    HeldSync(sequence: record.sequence, version: sync.version)
                syncRecords[record.sequence] = sync
            }
            outcomes.append(AddOutcome(record: record, status: entry.replaces != nil ? .replaced : .added))
        }
        append(added)
        writeIfDue(now: now)
        if plan.contains(where: { $0.sample.sync != nil && $0.unchanged == nil }) { saveSyncIdentifiers() }
        return outcomes
    }

    /// Deletes a sample on behalf of `source`, which must be the sample's own source; the
    /// deletion is itself a record (a tombstone) so sync clients see it.
    @discardableResult
    public func deleteSample(sequence: UInt64, source: SampleSource, now: Double) throws(LedgerError) -> StepRecord {
        let outcome = try deleteSamples(sequences: [sequence], source: source, now: now)
        if let missing = outcome.notFound.first { throw .notFound(sequence: missing) }
        if let gone = outcome.alreadyDeleted.first { throw .alreadyDeleted(sequence: gone) }
        guard let tombstone = outcome.tombstones.first else { throw .notFound(sequence: sequence) }
        return tombstone
    }

    /// Deletes samples all or none: ids that do not exist or are already deleted are reported,
    /// any other refusal (another source's sample, a detector record, a full backlog) deletes
    /// nothing, so a retry of the same call gives the same answer.
    public func deleteSamples(sequences: [UInt64], source: SampleSource, now: Double) throws(LedgerError) -> DeleteOutcome {
        var outcome = DeleteOutcome()
        var doomed: [StepRecord] = []
        var seen = Set<UInt64>()
        for sequence in sequences where seen.insert(sequence).inserted {
            guard let record = store.liveRecord(sequence: sequence) else {
                if store.isDeleted(sequence: sequence) {
                    outcome.alreadyDeleted.append(sequence)
                } else {
                    outcome.notFound.append(sequence)
                }
                continue
            }
            guard record.source.kind != .detector else { throw .detectorRecordsAreNotDeletable(sequence: sequence) }
            guard record.source == source else {
                throw .notOwner(sequence: sequence, owner: record.source.description, requester: source.description)
            }
            doomed.append(record)
        }
        guard backlog.count + doomed.count <= options.maximumBacklogRecords else { throw .backlogFull(records: backlog.count) }
        outcome.tombstones = doomed.map(tombstone(for:))
        append(outcome.tombstones)
        writeIfDue(now: now)
        return outcome
    }

    private func saveSyncIdentifiers() {
        var entries: [LedgerFiles.SyncEntry] = []
        for (sequence, sync) in syncRecords.sorted(by: { $0.key < $1.key }) {
            guard let record = store.liveRecord(sequence: sequence) else { continue }
            entries.append(LedgerFiles.SyncEntry(sequence: sequence, startMs: record.startMs, source: record.source, sync: sync))
        }
        let path = directory + "/" + LedgerFiles.syncFileName
        do throws(FileSystemError) {
            // Synced like the records: a lost rename could let a retried add be stored twice.
            try replaceDurably(path, LedgerFiles.encodeSync(entries))
        } catch {
            logger.warning("ledger: cannot save sync identifiers: \(error); they hold until the agent restarts")
        }
    }

    private func tombstone(for record: StepRecord) -> StepRecord {
        var flags: RecordFlags = .tombstone
        if record.isUserEntered { flags.insert(.userEntered) }
        return StepRecord(sequence: takeSequence(), startMs: record.startMs, endMs: record.endMs,
                          utcOffset: record.utcOffset, steps: 0, distanceMm: 0, activity: record.activity,
                          source: record.source, flags: flags, deletes: record.sequence)
    }

    /// Sets (and keeps across restarts) which sources win where samples overlap.
    public func setSourcePriority(_ order: [SampleSource]) throws(LedgerError) {
        var unique: [SampleSource] = []
        for source in order where !unique.contains(source) { unique.append(source) }
        let path = directory + "/" + LedgerFiles.priorityFileName
        do throws(FileSystemError) {
            try replaceDurably(path, LedgerFiles.encodePriority(unique))
        } catch {
            throw .fileSystem(error)
        }
        sourcePriority = SourcePriority(order: unique)
    }

    /// Every source the ledger has seen, from the winner down.
    public var rankedSources: [SampleSource] { sourcePriority.ranked(store.sources.sources) }

    // MARK: queries

    /// The not-yet-saved detector steps as a sample, so queries include them.
    private var liveSamples: [StepRecord] {
        guard let current = pending else { return [] }
        return [StepRecord(sequence: 0, start: current.start, end: current.end, utcOffset: 0, steps: current.steps,
                           distance: current.distance, activity: current.activity, source: deviceSource)]
    }

    public func pedometerData(from: Double, to: Double, filter: SampleFilter = .init(),
                              splitBySource: Bool = false) throws(LedgerError) -> PedometerData {
        do throws(LedgerQueryError) {
            return try store.pedometer(from: from, to: to, filter: filter, priority: sourcePriority,
                                       splitBySource: splitBySource, extra: liveSamples)
        } catch {
            throw .query(error)
        }
    }

    /// Today in the given zone: local midnight to `now`.
    public func today(now: Double, timeZone: TimeZoneRule, filter: SampleFilter = .init()) throws(LedgerError) -> PedometerData {
        let range = LedgerQueries.todayRange(now: now, timeZone: timeZone)
        return try pedometerData(from: range.start, to: max(now, range.start + 0.001), filter: filter)
    }

    public func statisticsCollection(from: Double, to: Double, anchor: Double, interval: BucketInterval,
                                     timeZone: TimeZoneRule, filter: SampleFilter = .init(),
                                     splitBySource: Bool = false) throws(LedgerError) -> [StatisticsBucket] {
        do throws(LedgerQueryError) {
            return try store.collection(from: from, to: to, anchor: anchor, interval: interval, timeZone: timeZone,
                                        filter: filter, priority: sourcePriority, splitBySource: splitBySource,
                                        extra: liveSamples)
        } catch {
            throw .query(error)
        }
    }

    public func statistics(from: Double, to: Double, interval: BucketInterval, timeZone: TimeZoneRule,
                           filter: SampleFilter = .init(), splitBySource: Bool = false) throws(LedgerError) -> RangeStatistics {
        do throws(LedgerQueryError) {
            return try store.statistics(from: from, to: to, interval: interval, timeZone: timeZone, filter: filter,
                                        priority: sourcePriority, splitBySource: splitBySource, extra: liveSamples)
        } catch {
            throw .query(error)
        }
    }

    public func activityHistory(from: Double, to: Double) throws(LedgerError) -> [ActivitySegment] {
        do throws(LedgerQueryError) {
            return try store.activityHistory(from: from, to: to, extra: liveSamples)
        } catch {
            throw .query(error)
        }
    }

    /// Records and tombstones held (durable and backlog).
    public var recordCount: Int { store.count }

    /// Steps of every live sample (all sources, unmerged) plus the pending detector steps.
    public var recordedSteps: Int { store.liveSteps + (pending?.steps ?? 0) }

    /// Live samples that start in [from, to), by start time, at most `limit` (HKSampleQuery).
    public func samples(startingFrom from: Double, to: Double, filter: SampleFilter, limit: Int) -> [StepRecord] {
        store.liveRecords(startingFrom: from, to: to, filter: filter, limit: limit)
    }

    /// The sync identifier and version a sample was added with, if any.
    public func syncMetadata(sequence: UInt64) -> SampleSync? { syncRecords[sequence] }

    // MARK: sync

    /// Durable records and tombstones after `anchor`, at most `limit`.
    public func changes(after anchor: UInt64, limit: Int) -> SyncPage {
        store.page(after: anchor, below: backlog.first?.sequence ?? .max, limit: limit)
    }

    public var acknowledgedAnchor: UInt64 { ackedAnchor }

    /// Durable records and tombstones above the acknowledged anchor.
    public var pendingRecordCount: Int { store.count(above: ackedAnchor, below: backlog.first?.sequence ?? .max) }

    /// The client has stored everything up to `anchor`: remember it (atomically) and prune.
    @discardableResult
    public func acknowledge(anchor: UInt64, now: Double) throws(LedgerError) -> PruneResult {
        let latest = store.highestSequence(below: backlog.first?.sequence ?? .max) ?? ackedAnchor
        guard anchor <= max(latest, ackedAnchor) else { throw .anchorAhead(anchor: anchor, latest: latest) }
        if anchor > ackedAnchor {
            let path = directory + "/" + LedgerFiles.anchorFileName
            do throws(FileSystemError) {
                try replaceDurably(path, LedgerFiles.encodeAnchor(anchor))
            } catch {
                throw .fileSystem(error)
            }
            ackedAnchor = anchor
        }
        return prune(now: now)
    }

    public var diskUsageBytes: Int { files.values.reduce(0) { $0 + $1.size } }

    /// Deletes whole day files: synced ones past retention, then synced ones oldest first while
    /// over the disk cap, and only above the hard cap unsynced ones (logged as errors).
    @discardableResult
    public func prune(now: Double) -> PruneResult {
        var result = PruneResult()
        let backlogDays = Set(backlog.map(LedgerFiles.day(of:)))
        let cutoffDay = CivilCalendar.dayNumber(utcSeconds: Int64((now - Double(options.retentionDays) * 86400).rounded(.down)))
        var usage = diskUsageBytes
        var doomed: [Int] = []
        for (day, file) in files.sorted(by: { $0.key < $1.key }) where !backlogDays.contains(day) && file.maxSequence <= ackedAnchor {
            if day < cutoffDay || usage > options.diskCapBytes {
                doomed.append(day)
                usage -= file.size
            }
        }
        var unsynced: [Int] = []
        if usage > options.hardDiskCapBytes {
            for (day, file) in files.sorted(by: { $0.key < $1.key })
            where usage > options.hardDiskCapBytes && !doomed.contains(day) && !backlogDays.contains(day) {
                unsynced.append(day)
                usage -= file.size
            }
        }
        guard !doomed.isEmpty || !unsynced.isEmpty else { return result }
        var removedDays = Set<Int>()
        for day in doomed + unsynced {
            let name = LedgerFiles.fileName(day: day)
            do throws(FileSystemError) {
                try fs.remove(directory + "/" + name)
            } catch {
                logger.warning("ledger: cannot prune \(name): \(error)")
                continue
            }
            removedDays.insert(day)
            files[day] = nil
            if unsynced.contains(day) {
                result.removedUnsyncedFiles.append(name)
                logger.error("ledger: disk use above the hard cap of \(options.hardDiskCapBytes) bytes; deleted UNSYNCED file \(name)")
            } else {
                result.removedFiles.append(name)
            }
        }
        do throws(FileSystemError) { try fs.syncDirectory(directory) } catch { directoryNeedsSync = true }
        let before = store.count
        let firstBacklog = backlog.first?.sequence ?? .max
        store.removeAll { sequence, startMs in
            sequence < firstBacklog && removedDays.contains(LedgerFiles.day(ofStartMs: startMs))
        }
        result.removedRecords = before - store.count
        if !result.removedFiles.isEmpty {
            logger.info("ledger: pruned \(result.removedFiles.count) synced file(s), \(result.removedRecords) record(s)")
        }
        return result
    }
}
