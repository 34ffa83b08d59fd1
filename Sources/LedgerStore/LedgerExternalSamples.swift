import Glibc
import Ledger
import POSIXLayer
import StepdModel

// Samples from other sources: add, delete (tombstones), sync identifiers, source priority.
extension LedgerService {
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

    func saveSyncIdentifiers() {
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

    func tombstone(for record: StepRecord) -> StepRecord {
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
}
