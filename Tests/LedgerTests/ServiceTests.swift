import Glibc
import Ledger
import LedgerStore
import StepdModel
import Testing

@Suite(.serialized) struct ServiceTests {
    let t0 = utc(2024, 6, 1, 8)

    func options(_ fs: FaultyFileSystem? = nil) -> LedgerOptions {
        var options = LedgerOptions()
        if let fs { options.fileSystem = fs }
        return options
    }

    func steps(_ count: Int, from start: Double, every interval: Double = 0.5) -> [Double] {
        (0..<count).map { start + Double($0) * interval }
    }

    /// A 100-step walk at 09:00 UTC on day `day` (0: 2024-01-01), added a minute after it started:
    /// one record in that day's file.
    func walk(_ service: LedgerService, day: Int) {
        let start = utc(2024, 1, 1 + day, 9)
        service.addDetectedSteps(times: steps(100, from: start), distance: 0, activity: .walking, now: start + 60)
    }

    @Test func checkpointsEvery100StepsAndOnShutdown() throws {
        let dir = makeTemporaryDirectory()
        defer { removeTree(dir) }
        let service = try LedgerService(stateDirectory: dir, options: options(), logger: .silent)
        service.addDetectedSteps(times: steps(250, from: t0), distance: 175, activity: .walking, now: t0 + 130)
        #expect(service.health.pendingSteps == 50)
        #expect(try LedgerVerifier.verify(stateDirectory: dir).steps == 200)
        #expect(abs(try service.pedometerData(from: t0, to: t0 + 200).steps - 250) < 1e-9)  // live steps included
        #expect(service.nextTickTime == t0 + 130 + 60)
        service.tick(now: t0 + 150)
        #expect(service.health.pendingSteps == 50)
        service.tick(now: t0 + 190)
        #expect(service.health.pendingSteps == 0)
        service.addDetectedSteps(times: steps(7, from: t0 + 300), distance: 5, activity: .walking, now: t0 + 304)
        service.shutdown(now: t0 + 305)
        let report = try LedgerVerifier.verify(stateDirectory: dir)
        #expect(report.steps == 257 && report.records == 4 && report.isClean)

        // A restart continues the sequence and refuses nothing.
        let again = try LedgerService(stateDirectory: dir, options: options(), logger: .silent)
        #expect(again.recordedSteps == 257)
        again.addDetectedSteps(times: [t0 + 400], distance: 1, activity: .walking, now: t0 + 400)
        again.shutdown(now: t0 + 401)
        let after = try LedgerVerifier.verify(stateDirectory: dir)
        #expect(after.lastSequence == 5 && after.isClean)
    }

    @Test func offsetsBeyondTheFormatAreCappedNotLostOnRestart() throws {
        // A zone rule may claim +20 h; the line format refuses more than 18 h as corruption.
        let dir = makeTemporaryDirectory()
        defer { removeTree(dir) }
        var farEast = options()
        farEast.timeZone = .fixed(seconds: 20 * 3600)
        let service = try LedgerService(stateDirectory: dir, options: farEast, logger: .silent)
        service.addDetectedSteps(times: steps(10, from: t0), distance: 7, activity: .walking, now: t0 + 5)
        try service.addSample(ExternalSample(start: t0 + 10, end: t0 + 20, steps: 12, source: phone), now: t0 + 30)
        service.shutdown(now: t0 + 31)
        let report = try LedgerVerifier.verify(stateDirectory: dir)
        #expect(report.records == 2 && report.isClean)
        let again = try LedgerService(stateDirectory: dir, options: farEast, logger: .silent)
        #expect(again.recordedSteps == 22)
        #expect(again.changes(after: 0, limit: 10).records.map(\.utcOffset) == [18 * 3600, 18 * 3600])
    }

    @Test func activityChangeCutsARecord() throws {
        let dir = makeTemporaryDirectory()
        defer { removeTree(dir) }
        let service = try LedgerService(stateDirectory: dir, options: options(), logger: .silent)
        service.activityChanged(to: .walking, at: t0, now: t0)
        service.addDetectedSteps(times: steps(30, from: t0), distance: 20, activity: .walking, now: t0 + 15)
        service.activityChanged(to: .automotive, at: t0 + 20, now: t0 + 20)
        service.activityChanged(to: .stationary, at: t0 + 600, now: t0 + 600)
        let history = try service.activityHistory(from: t0 - 10, to: t0 + 1000)
        #expect(history.map(\.kind) == [.walking, .automotive])
        #expect(history[1].start == t0 + 20 && history[1].end == t0 + 600)
        #expect(try LedgerVerifier.verify(stateDirectory: dir).records == 2)
    }

    @Test func tornTailIsCutAndDamagedFileMovedAside() throws {
        let dir = makeTemporaryDirectory()
        defer { removeTree(dir) }
        let service = try LedgerService(stateDirectory: dir, options: options(), logger: .silent)
        service.addDetectedSteps(times: steps(500, from: t0), distance: 0, activity: .walking, now: t0 + 300)
        service.shutdown(now: t0 + 300)
        let path = dir + "/ledger/2024-06-01.steps"
        let good = readFile(path)
        #expect(LedgerFileScan(bytes: good).records.count == 5)

        writeFile(path, Array(good.dropLast(9)))
        let torn = try LedgerVerifier.verify(stateDirectory: dir)
        #expect(torn.tornTails == 1 && torn.corrupt == 1 && !torn.isClean)
        // The place is a byte offset: "2024-06-01.steps:<offset>:" read as a line number (line
        // 380 of a 5-line file).
        let fourLines = (good.indices.filter { good[$0] == 0x0A }.dropFirst(3).first ?? 0) + 1
        #expect(torn.problems.count == 1 && torn.problems[0].hasPrefix(
            "2024-06-01.steps: torn tail of \(good.count - 9 - fourLines) byte(s) at byte \(fourLines) ("), "\(torn.problems)")
        let logs = LogCollector()
        let recovered = try LedgerService(stateDirectory: dir, options: options(), logger: logs.logger)
        #expect(recovered.recordedSteps == 400)
        #expect(logs.all.contains { $0.contains("torn tail") })
        #expect(try LedgerVerifier.verify(stateDirectory: dir).isClean)

        var damaged = readFile(path)
        damaged[120] ^= 0x04
        writeFile(path, damaged)
        let corrupt = try LedgerVerifier.verify(stateDirectory: dir)
        let secondLine = (damaged.firstIndex(of: 0x0A) ?? 0) + 1
        #expect(corrupt.problems.count == 1 && corrupt.problems[0].hasPrefix("2024-06-01.steps: corrupt line at byte \(secondLine): "),
                "\(corrupt.problems)")
        let logs2 = LogCollector()
        let repaired = try LedgerService(stateDirectory: dir, options: options(), logger: logs2.logger)
        #expect(repaired.recordedSteps == 300)
        #expect(listDirectory(dir + "/ledger").contains("2024-06-01.steps.damaged-1"))
        #expect(logs2.all.contains { $0.contains("moved it aside to 2024-06-01.steps.damaged-1") })
        let report = try LedgerVerifier.verify(stateDirectory: dir)
        #expect(report.isClean && report.records == 3 && report.damagedFilesAside == 1)
    }

    @Test func duplicatedRecordRefusedOnStart() throws {
        let dir = makeTemporaryDirectory()
        defer { removeTree(dir) }
        let service = try LedgerService(stateDirectory: dir, options: options(), logger: .silent)
        service.addDetectedSteps(times: steps(200, from: t0), distance: 0, activity: .walking, now: t0 + 100)
        let path = dir + "/ledger/2024-06-01.steps"
        let bytes = readFile(path)
        let firstLine = Array(bytes.prefix { $0 != 0x0A }) + [0x0A]
        writeFile(path, bytes + firstLine)
        #expect(try LedgerVerifier.verify(stateDirectory: dir).duplicates == 1)
        let again = try LedgerService(stateDirectory: dir, options: options(), logger: .silent)
        #expect(again.recordedSteps == 200)
        #expect(try LedgerVerifier.verify(stateDirectory: dir).isClean)
    }

    @Test func fullDiskKeepsCountingAndWritesBacklogInOrder() throws {
        let dir = makeTemporaryDirectory()
        defer { removeTree(dir) }
        let fs = FaultyFileSystem()
        let logs = LogCollector()
        let service = try LedgerService(stateDirectory: dir, options: options(fs), logger: logs.logger)
        service.addDetectedSteps(times: steps(100, from: t0), distance: 0, activity: .walking, now: t0 + 50)
        fs.failWrites = ENOSPC
        service.addDetectedSteps(times: steps(300, from: t0 + 60), distance: 0, activity: .walking, now: t0 + 210)
        #expect(service.health.state == .degraded)
        #expect(service.health.message?.contains("ENOSPC") == true)
        #expect(service.health.backlogRecords == 3)
        #expect(service.recordedSteps == 400)
        #expect(abs(try service.pedometerData(from: t0, to: t0 + 1000).steps - 400) < 1e-9)
        #expect(service.nextTickTime == t0 + 220)
        service.tick(now: t0 + 221)  // still full
        #expect(service.health.backlogRecords == 3)
        // More records while full: the retries fail the same way and log nothing new.
        service.addDetectedSteps(times: steps(200, from: t0 + 400), distance: 0, activity: .walking, now: t0 + 520)
        service.tick(now: t0 + 531)
        service.tick(now: t0 + 542)
        #expect(service.health.backlogRecords == 5)
        #expect(service.health.message?.contains("keeping 5 record(s)") == true)
        fs.failWrites = nil
        service.tick(now: t0 + 553)
        #expect(service.health.state == .ok && service.health.backlogRecords == 0)
        let report = try LedgerVerifier.verify(stateDirectory: dir)
        #expect(report.steps == 600 && report.records == 6 && report.isClean)
        #expect(logs.all.filter { $0.hasPrefix("error") }.count == 1)
        #expect(logs.all.filter { $0.contains("writing again") }.count == 1)
        // The end of the outage says how long it lasted and what failed first, without the
        // advice and counts of the error line.
        let recovered = logs.all.first { $0.contains("writing again") } ?? ""
        #expect(recovered.hasPrefix("notice: ledger: writing again after 343 s; 5 backlogged record(s) written; the failure was: cannot write 2024-06-01.steps: write "))
        #expect(recovered.hasSuffix("No space left on device (ENOSPC)"))
        // Checkpoints are logged at debug level only, one line per write (not per step).
        let checkpoints = logs.all.filter { $0.contains("checkpoint written") }
        #expect(!checkpoints.isEmpty && checkpoints.allSatisfy { $0.hasPrefix("debug") })
        #expect(checkpoints.count <= 3)
    }

    /// `ledger.message` said the backlog of the last failed attempt ("keeping 1 record(s)")
    /// beside `backlog_records` 3 until the next retry, and the shutdown line said "keeping ...
    /// in memory and retrying every 10 s; they are lost".
    @Test func degradedMessageCountsTheBacklogAsItIsNow() throws {
        let dir = makeTemporaryDirectory()
        defer { removeTree(dir) }
        let fs = FaultyFileSystem()
        var slowRetry = options(fs)
        slowRetry.retryInterval = 1000
        let logs = LogCollector()
        let service = try LedgerService(stateDirectory: dir, options: slowRetry, logger: logs.logger)
        fs.failWrites = ENOSPC
        service.addDetectedSteps(times: steps(100, from: t0), distance: 0, activity: .walking, now: t0 + 50)
        #expect(service.health.backlogRecords == 1)
        #expect(service.health.message?.hasSuffix("(ENOSPC); keeping 1 record(s) in memory and retrying every 1000 s") == true,
                "\(service.health.message ?? "nil")")
        service.addDetectedSteps(times: steps(200, from: t0 + 60), distance: 0, activity: .walking, now: t0 + 160)
        #expect(service.health.backlogRecords == 3)
        #expect(service.health.message?.hasSuffix("(ENOSPC); keeping 3 record(s) in memory and retrying every 1000 s") == true,
                "\(service.health.message ?? "nil")")
        service.shutdown(now: t0 + 170)
        let last = logs.all.last ?? ""
        #expect(last.hasPrefix("error: ledger: shutting down with 3 record(s) (300 steps) not written: cannot write 2024-06-01.steps: "), "\(last)")
        #expect(last.hasSuffix("(ENOSPC); they are lost") && !last.contains("retrying"), "\(last)")
    }

    @Test func readOnlyDirectoryAtStartDegrades() throws {
        let dir = makeTemporaryDirectory()
        defer { removeTree(dir) }
        let fs = FaultyFileSystem()
        fs.failWrites = EROFS
        let service = try LedgerService(stateDirectory: dir, options: options(fs), logger: .silent)
        service.addDetectedSteps(times: steps(150, from: t0), distance: 0, activity: .walking, now: t0 + 80)
        #expect(service.health.state == .degraded && service.health.message?.contains("EROFS") == true)
        #expect(service.recordedSteps == 150)
        fs.failWrites = nil
        service.shutdown(now: t0 + 100)
        #expect(try LedgerVerifier.verify(stateDirectory: dir).steps == 150)
    }

    @Test func readOnlyAtBootThenWritableCreatesTheDirectoryAndCatchesUp() throws {
        // A fresh state directory on a file system that is read-only at boot: mkdir fails. Once
        // it turns writable the directory must be created then; before, every retry failed
        // with ENOENT because the directory was only ever created at start.
        let dir = makeTemporaryDirectory()
        defer { removeTree(dir) }
        let fs = FaultyFileSystem()
        fs.failDirectories = EROFS
        fs.failWrites = EROFS
        let logs = LogCollector()
        let state = dir + "/state"
        let service = try LedgerService(stateDirectory: state, options: options(fs), logger: logs.logger)
        service.addDetectedSteps(times: steps(250, from: t0), distance: 0, activity: .walking, now: t0 + 130)
        #expect(service.health.state == .degraded && service.health.backlogRecords == 2)
        #expect(service.health.message?.contains("EROFS") == true)
        fs.failDirectories = nil
        fs.failWrites = nil
        service.tick(now: t0 + 200)
        #expect(service.health.state == .ok && service.health.backlogRecords == 0)
        #expect(try LedgerVerifier.verify(stateDirectory: state).steps == 250)  // the tick also cut the 50 waiting 60 s
        #expect(logs.all.filter { $0.contains("writing again") }.count == 1)
    }

    @Test func aStateDirectoryThatCanNeitherBeMadeNorReadIsOneError() throws {
        // The agent's user may not write or read the state directory: the ledger cannot start.
        // The log said "steps are kept in memory until it can be written" and the agent then
        // exited on "opendir: EACCES"; now the one error is the mkdir that failed.
        let dir = makeTemporaryDirectory()
        defer { removeTree(dir) }
        let fs = FaultyFileSystem()
        fs.failDirectories = EACCES
        fs.failListing = EACCES
        let logs = LogCollector()
        do {
            _ = try LedgerService(stateDirectory: dir + "/state", options: options(fs), logger: logs.logger)
            Issue.record("the ledger started")
        } catch {
            #expect("\(error)".contains("mkdir \(dir)/state"), "\(error)")
            #expect("\(error)".contains("EACCES"), "\(error)")
        }
        #expect(!logs.all.contains { $0.contains("kept in memory") }, "\(logs.all)")
    }

    @Test func aDayFileThatLostSyncedBytesIsRebuiltFromMemory() throws {
        // The disk lost what was synced (a lying cache, an fsck cutting the file after I/O
        // errors): before, every later append failed with "file shorter than the ledger wrote
        // it" and the records stayed in memory for good. Now the file is rebuilt from memory.
        let dir = makeTemporaryDirectory()
        defer { removeTree(dir) }
        let logs = LogCollector()
        let service = try LedgerService(stateDirectory: dir, options: options(), logger: logs.logger)
        service.addDetectedSteps(times: steps(300, from: t0), distance: 0, activity: .walking, now: t0 + 150)
        try service.addSample(ExternalSample(start: t0 - 600, end: t0 - 300, steps: 200, source: phone), now: t0 + 151)
        let path = dir + "/ledger/2024-06-01.steps"
        let firstLine = try #require(try PosixFileSystem().readFile(path).firstIndex(of: 0x0A)) + 1
        #expect(Glibc.truncate(path, off_t(firstLine)) == 0)
        service.addDetectedSteps(times: steps(100, from: t0 + 200), distance: 0, activity: .walking, now: t0 + 260)
        #expect(service.health.state == .ok && service.health.backlogRecords == 0)
        var report = try LedgerVerifier.verify(stateDirectory: dir)
        #expect(report.isClean && report.records == 5 && report.steps == 600)
        #expect(logs.all.contains { $0.hasPrefix("warning: ledger: 2024-06-01.steps held \(firstLine) byte(s) on disk") })
        // A day file that vanished is rebuilt the same way.
        #expect(unlink(path) == 0)
        service.addDetectedSteps(times: steps(100, from: t0 + 300), distance: 0, activity: .walking, now: t0 + 360)
        report = try LedgerVerifier.verify(stateDirectory: dir)
        #expect(report.isClean && report.records == 6 && report.steps == 700 && service.health.state == .ok)
        let again = try LedgerService(stateDirectory: dir, options: options(), logger: .silent)
        #expect(again.recordedSteps == 700)
    }

    @Test func boundedBacklogStillCounts() throws {
        let dir = makeTemporaryDirectory()
        defer { removeTree(dir) }
        let fs = FaultyFileSystem()
        fs.failWrites = ENOSPC
        var opts = options(fs)
        opts.maximumBacklogRecords = 2
        let service = try LedgerService(stateDirectory: dir, options: opts, logger: .silent)
        service.addDetectedSteps(times: steps(1000, from: t0), distance: 0, activity: .walking, now: t0 + 500)
        #expect(service.health.backlogRecords == 2)
        #expect(service.recordedSteps == 1000)
        #expect(throws: LedgerError.self) {
            try service.addSample(ExternalSample(start: t0, end: t0 + 10, steps: 5, source: phone), now: t0 + 600)
        }
        fs.failWrites = nil
        service.shutdown(now: t0 + 600)
        #expect(try LedgerVerifier.verify(stateDirectory: dir).steps == 1000)
    }

    @Test func addDeleteOwnershipAndSync() throws {
        let dir = makeTemporaryDirectory()
        defer { removeTree(dir) }
        let service = try LedgerService(stateDirectory: dir, options: options(), logger: .silent)
        service.addDetectedSteps(times: steps(100, from: t0), distance: 0, activity: .walking, now: t0 + 50)
        let watchSample = try service.addSample(ExternalSample(start: t0, end: t0 + 100, steps: 200, source: watch), now: t0 + 200)
        #expect(throws: LedgerError.self) {
            try service.addSample(ExternalSample(start: t0, end: t0 + 1000, steps: 20, source: watch), now: t0 + 200)
        }
        #expect(throws: LedgerError.notOwner(sequence: watchSample.sequence, owner: "device:watch-1", requester: "device:phone-1")) {
            try service.deleteSample(sequence: watchSample.sequence, source: phone, now: t0 + 300)
        }
        #expect(throws: LedgerError.detectorRecordsAreNotDeletable(sequence: 1)) {
            try service.deleteSample(sequence: 1, source: detector, now: t0 + 300)
        }
        // Merged: detector 0-49.5 s, watch covers the rest to 100 s.
        let before = try service.pedometerData(from: t0, to: t0 + 1000).steps
        #expect(abs(before - (100 + 200 * 50.5 / 100)) < 1e-6)
        let tombstone = try service.deleteSample(sequence: watchSample.sequence, source: watch, now: t0 + 300)
        #expect(tombstone.isTombstone && tombstone.deletes == watchSample.sequence)
        #expect(throws: LedgerError.alreadyDeleted(sequence: watchSample.sequence)) {
            try service.deleteSample(sequence: watchSample.sequence, source: watch, now: t0 + 300)
        }
        #expect(abs(try service.pedometerData(from: t0, to: t0 + 1000).steps - 100) < 1e-9)

        let first = service.changes(after: 0, limit: 2)
        #expect(first.records.map(\.sequence) == [1, 2] && first.more)
        let second = service.changes(after: first.newAnchor, limit: 2)
        #expect(second.records.map(\.sequence) == [3] && !second.more && second.records[0].isTombstone)
        #expect(throws: LedgerError.self) { try service.acknowledge(anchor: 99, now: t0 + 400) }

        // Restart: the deletion holds and the acknowledged anchor is remembered.
        try service.acknowledge(anchor: 3, now: t0 + 400)
        let again = try LedgerService(stateDirectory: dir, options: options(), logger: .silent)
        #expect(again.acknowledgedAnchor == 3)
        #expect(abs(try again.pedometerData(from: t0, to: t0 + 1000).steps - 100) < 1e-9)
    }

    @Test func pruneOnlySyncedFilesPastRetention() throws {
        let dir = makeTemporaryDirectory()
        defer { removeTree(dir) }
        var opts = options()
        opts.retentionDays = 30
        let service = try LedgerService(stateDirectory: dir, options: opts, logger: .silent)
        for day in 0..<10 { walk(service, day: day) }
        let now = utc(2024, 2, 5)  // days 1-5 of January are past 30 days
        #expect(listDirectory(dir + "/ledger").count == 10)
        let none = try service.acknowledge(anchor: 0, now: now)
        #expect(none.removedFiles.isEmpty)
        let result = try service.acknowledge(anchor: 3, now: now)
        #expect(result.removedFiles == ["2024-01-01.steps", "2024-01-02.steps", "2024-01-03.steps"])
        #expect(service.recordedSteps == 700)
        let all = try service.acknowledge(anchor: 10, now: now)
        #expect(all.removedFiles.count == 2 && all.removedUnsyncedFiles.isEmpty)
        #expect(listDirectory(dir + "/ledger").filter { $0.hasSuffix(".steps") }.count == 5)
        // Sequences keep rising after the files holding them are gone.
        service.addDetectedSteps(times: steps(100, from: now - 100), distance: 0, activity: .walking, now: now)
        #expect(service.changes(after: 10, limit: 10).records.first?.sequence == 11)
    }

    @Test func diskCapPrunesSyncedFirstThenHardCap() throws {
        let dir = makeTemporaryDirectory()
        defer { removeTree(dir) }
        var opts = options()
        opts.diskCapBytes = 500
        opts.hardDiskCapBytes = 600
        let logs = LogCollector()
        let service = try LedgerService(stateDirectory: dir, options: opts, logger: logs.logger)
        for day in 0..<6 { walk(service, day: day) }
        // Six one-record files: above the disk cap, below the hard cap, nothing synced: all kept.
        #expect(service.diskUsageBytes > 500 && service.diskUsageBytes <= 600)
        let result = try service.acknowledge(anchor: 2, now: utc(2024, 1, 7))
        #expect(result.removedFiles == ["2024-01-01.steps"])
        #expect(result.removedUnsyncedFiles.isEmpty)
        // Without a further acknowledgement the next days cost the synced file first, then,
        // above the hard cap, the oldest unsynced ones (each an error line).
        for day in 6..<10 { walk(service, day: day) }
        #expect(service.diskUsageBytes <= 600)
        #expect(!listDirectory(dir + "/ledger").contains("2024-01-02.steps"))
        #expect(logs.all.contains { $0.contains("UNSYNCED") })
        #expect(listDirectory(dir + "/ledger").contains("2024-01-10.steps"))
    }

    /// Retention is kept as the days pass: a device whose sync stopped after an acknowledgement
    /// kept every synced day file (and its records in memory) until the next one, for good if
    /// none came. Found by `scripts/soak` (a week with `--retention-days 3`).
    @Test func retentionIsKeptAsDaysPassWithoutAnotherAcknowledgement() throws {
        let dir = makeTemporaryDirectory()
        defer { removeTree(dir) }
        var opts = options()
        opts.retentionDays = 3
        let logs = LogCollector()
        let service = try LedgerService(stateDirectory: dir, options: opts, logger: logs.logger)
        for day in 0..<3 { walk(service, day: day) }
        let result = try service.acknowledge(anchor: 3, now: utc(2024, 1, 3, 12))
        #expect(result.removedFiles.isEmpty)
        for day in 3..<8 { walk(service, day: day) }
        // On January 8 the acknowledged days 1-3 are past 3 days; the unsynced ones stay.
        let left = listDirectory(dir + "/ledger").filter { $0.hasSuffix(".steps") }.sorted()
        #expect(left == (4...8).map { "2024-01-0\($0).steps" })
        #expect(service.recordedSteps == 500)
        #expect(service.changes(after: 3, limit: 10).records.map(\.sequence) == [4, 5, 6, 7, 8])
        #expect(logs.all.contains { $0.contains("pruned") })
        #expect(!logs.all.contains { $0.contains("UNSYNCED") })
    }
}
