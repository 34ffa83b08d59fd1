import Glibc
import Ledger
import POSIXLayer
import StepdModel

// Start-up: directories, loading and checking the day files, repairing torn tails.
extension LedgerService {
    /// Creates the state and ledger directories when missing (again on every write until that
    /// worked: a file system read-only at boot may turn writable later), and syncs each new one
    /// into its parent. A new directory survives a power cut only once the directory holding it
    /// is synced; a file system that does not commit names with a file's fdatasync could
    /// otherwise lose the whole ledger directory with every record "durably" written into it.
    func prepareDirectories() throws(FileSystemError) {
        if !directoriesExist {
            if try fs.makeDirectory(stateDirectory) { stateDirectoryUnsynced = true }
            if try fs.makeDirectory(directory) { ledgerDirectoryUnsynced = true }
            directoriesExist = true
        }
        if stateDirectoryUnsynced {
            try fs.syncDirectory(FileSystem.parent(of: stateDirectory))
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
    func replaceDurably(_ path: String, _ bytes: [UInt8]) throws(FileSystemError) {
        try fs.writeFileDurably(path + ".tmp", bytes)
        try fs.rename(path + ".tmp", to: path)
        try fs.syncDirectory(directory)
    }

    func load() throws(LedgerError) {
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
    func repair(_ file: LedgerFiles.ScannedFile, keeping records: [StepRecord], refused: Int, names: Set<String>) -> Int {
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
}
