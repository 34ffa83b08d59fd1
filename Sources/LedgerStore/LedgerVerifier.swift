import Glibc
import Ledger
import POSIXLayer

/// What `stepctl ledger verify` reports. A torn tail counts as corrupt: until the agent's
/// start-up recovery cuts it, the bytes on disk are not a valid ledger.
public struct LedgerVerifyReport: Sendable, Equatable {
    public var directory: String
    public var files = 0
    public var records = 0
    public var tombstones = 0
    public var deletedRecords = 0
    public var corrupt = 0
    public var tornTails = 0
    public var duplicates = 0
    /// Steps of every live (not deleted) record, all sources, unmerged.
    public var steps = 0
    public var bytes = 0
    public var damagedFilesAside = 0
    public var firstSequence: UInt64 = 0
    public var lastSequence: UInt64 = 0
    public var syncedAnchor: UInt64?
    /// "file:offset: reason" for each problem, for people.
    public var problems: [String] = []

    public var isClean: Bool { corrupt == 0 && duplicates == 0 }
}

public enum LedgerVerifier {
    /// Reads `<stateDirectory>/ledger` (or `stateDirectory` itself when it holds day files).
    /// Never writes.
    public static func verify(stateDirectory: String, fileSystem: any LedgerFileSystem = PosixFileSystem())
    throws(FileSystemError) -> LedgerVerifyReport {
        var directory = stateDirectory + "/" + LedgerFiles.directoryName
        var names = try fileSystem.listDirectory(directory)
        if names == nil, let own = try fileSystem.listDirectory(stateDirectory),
           own.contains(where: { LedgerFiles.day(ofFileName: $0) != nil }) {
            directory = stateDirectory
            names = own
        }
        guard let names else { throw FileSystemError(operation: "open ledger directory", path: directory, errno: ENOENT) }
        var report = LedgerVerifyReport(directory: directory)
        let scanned = try LedgerFiles.scanAll(directory: directory, names: names, fileSystem: fileSystem)
        report.files = scanned.count
        report.damagedFilesAside = names.filter(LedgerFiles.isDamagedCopy).count
        for file in scanned {
            report.bytes += file.size
            for problem in file.scan.damagedLines {
                report.corrupt += 1
                // "file:N" reads as a line number; N is a byte offset (as the recovery's log says).
                report.problems.append("\(file.name): corrupt line at byte \(problem.offset): \(problem.reason)")
            }
            if file.scan.hasTornTail {
                report.corrupt += 1
                report.tornTails += 1
                let reason = file.scan.tailProblems.first?.reason ?? "bad bytes"
                report.problems.append("\(file.name): torn tail of \(file.scan.tornTailBytes) byte(s) at byte \(file.scan.validLength) (\(reason))")
            }
        }
        let integrity = LedgerIntegrity.check(scanned.flatMap { $0.scan.records.map(\.record) })
        report.duplicates = integrity.duplicates.count
        for record in integrity.duplicates {
            report.problems.append("sequence \(record.sequence): duplicated or overlapping record (\(record.source))")
        }
        let deleted = Set(integrity.accepted.filter(\.isTombstone).map(\.deletes))
        for record in integrity.accepted {
            report.records += 1
            if record.isTombstone {
                report.tombstones += 1
            } else if deleted.contains(record.sequence) {
                report.deletedRecords += 1
            } else {
                report.steps += record.steps
            }
        }
        let sequences = integrity.accepted.map(\.sequence)
        report.firstSequence = sequences.min() ?? 0
        report.lastSequence = sequences.max() ?? 0
        if names.contains(LedgerFiles.anchorFileName) {
            report.syncedAnchor = LedgerFiles.decodeAnchor(try fileSystem.readFile(directory + "/" + LedgerFiles.anchorFileName))
        }
        return report
    }
}
