import CivilTime
import Glibc
import Ledger
import POSIXLayer
import StepdModel

// Sync pages, acknowledgements and pruning by retention and disk caps.
extension LedgerService {
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
