import Glibc
import POSIXLayer
import StepdModel

/// Who runs on a state directory: `<state>/stepd.owner`, one agent's pid, boot id and process
/// start time. Two agents appending to one ledger interleave their lines, so a second one
/// refuses to start. Unlike a lock it holds nothing open: a descriptor kept under the state
/// directory stops an operator from unmounting its file system for fsck or remounting it
/// read-only (the reverted flock, e9e24ed). A record left behind by a crash, kill -9 or a power
/// cut is recognised as stale: its pid is gone, runs another program (other start time) or
/// belongs to an earlier boot.
struct OwnerRecord: Equatable, Sendable {
    var pid: Int32
    var bootID: String
    /// Field 22 of /proc/PID/stat: clock ticks after boot when the process started.
    var startTime: UInt64

    static let fileName = "stepd.owner"
    static let header = "stepd-owner 1"

    var encoded: [UInt8] {
        Array("\(Self.header)\npid \(pid)\nboot \(bootID)\nstart \(startTime)\n".utf8)
    }

    /// A record as `encoded` wrote it; nil for anything else (a torn or foreign file).
    init?(parsing bytes: [UInt8]) {
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.count == 5, lines[0] == Self.header, lines[4].isEmpty else { return nil }
        func value(_ line: Substring, _ key: String) -> Substring? {
            guard line.hasPrefix(key + " ") else { return nil }
            let rest = line.dropFirst(key.count + 1)
            return rest.isEmpty ? nil : rest
        }
        guard let pidText = value(lines[1], "pid"), let pid = Int32(pidText), pid > 0,
              let boot = value(lines[2], "boot"), boot.allSatisfy({ $0.isHexDigit || $0 == "-" }),
              let startText = value(lines[3], "start"), let startTime = UInt64(startText)
        else { return nil }
        self.init(pid: pid, bootID: String(boot), startTime: startTime)
    }

    init(pid: Int32, bootID: String, startTime: UInt64) {
        self.pid = pid
        self.bootID = bootID
        self.startTime = startTime
    }

    /// Field 22 (starttime) of a /proc/PID/stat line. The command name (field 2) is in
    /// parentheses and may itself hold spaces and parentheses, so fields are counted from the
    /// last ')'.
    static func startTime(fromStat text: String) -> UInt64? {
        guard let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ", omittingEmptySubsequences: true)
        // fields[0] is field 3 (state), so field 22 is fields[19].
        guard fields.count > 19 else { return nil }
        return UInt64(fields[19])
    }
}

/// What an existing `stepd.owner` says about starting on its state directory.
enum OwnerVerdict: Equatable, Sendable {
    /// No record: the directory is free.
    case absent
    /// Another agent runs on it now.
    case live(OwnerRecord)
    /// Left by an agent that is gone; the reason is for the log.
    case stale(OwnerRecord, reason: String)
    /// Not a record at all (torn, empty, foreign).
    case garbage

    /// `bytes` (nil when there is no file) judged on boot `bootID` by process `ownPID`;
    /// `startTimeOfPID` gives a running process's start time, nil when no process has that pid.
    static func judge(_ bytes: [UInt8]?, bootID: String, ownPID: Int32,
                      startTimeOfPID: (Int32) -> UInt64?) -> OwnerVerdict {
        guard let bytes else { return .absent }
        guard let record = OwnerRecord(parsing: bytes) else { return .garbage }
        guard record.bootID == bootID else { return .stale(record, reason: "written on an earlier boot") }
        guard record.pid != ownPID else { return .stale(record, reason: "its pid is this process's") }
        guard let started = startTimeOfPID(record.pid) else { return .stale(record, reason: "pid \(record.pid) no longer runs") }
        guard started == record.startTime else { return .stale(record, reason: "pid \(record.pid) is now another process") }
        return .live(record)
    }
}

/// The I/O around `OwnerRecord`: claims the state directory at start and gives it back on a
/// clean exit. The file is written and closed; nothing stays open.
final class StateDirectoryOwner {
    enum Claim {
        /// The record is ours; `release()` removes it.
        case claimed(StateDirectoryOwner)
        /// The state file system refused the record (read-only, full, failing): the agent runs
        /// on without it, as the ledger does.
        case unrecorded(reason: String)
        /// Another agent runs on the directory.
        case taken(by: OwnerRecord)
    }

    let path: String
    let record: OwnerRecord

    private init(path: String, record: OwnerRecord) {
        self.path = path
        self.record = record
    }

    /// Reads `<stateDirectory>/stepd.owner` and, unless a live agent wrote it, writes ours.
    /// Agents starting at the same instant cannot both win: the record enters by link(2), which
    /// only one of them gets, and a stale one is first moved to a name of our own and checked
    /// to be the one judged stale.
    static func claim(stateDirectory: String, logger: EventLogger) -> Claim {
        let path = stateDirectory + "/" + OwnerRecord.fileName
        let ownPID = ProcessTable.currentPID
        let own: OwnerRecord
        do throws(FileSystemError) {
            let bootID = try ProcessTable.bootID()
            guard let statText = try ProcessTable.statText(of: ownPID),
                  let started = OwnerRecord.startTime(fromStat: statText)
            else { return .unrecorded(reason: "cannot read this process's start time in /proc/\(ownPID)/stat") }
            own = OwnerRecord(pid: ownPID, bootID: bootID, startTime: started)
        } catch {
            return .unrecorded(reason: "\(error)")
        }
        let temporary = path + ".\(ownPID).tmp"
        let aside = path + ".\(ownPID).stale"
        defer {
            try? FileSystem.remove(temporary)
        }
        do throws(FileSystemError) {
            var written = false
            // A few rounds: each lost race means another agent moved; the next read sees it.
            for _ in 0..<8 {
                let existing = try FileSystem.readFileIfPresent(path)
                let verdict = OwnerVerdict.judge(existing, bootID: own.bootID, ownPID: ownPID,
                                                 startTimeOfPID: startTime(of:))
                switch verdict {
                case .live(let other):
                    return .taken(by: other)
                case .stale(_, let reason):
                    logger.info("\(path): replacing a stale owner record (\(reason))")
                    try moveAside(path, to: aside, expecting: existing)
                    continue
                case .garbage:
                    logger.warning("\(path): not an owner record; replacing it")
                    try moveAside(path, to: aside, expecting: existing)
                    continue
                case .absent:
                    // Written only now, so a live owner is recognised on a file system that
                    // refuses writes (read-only after errors) too.
                    if !written {
                        try FileSystem.writeFileDurably(temporary, own.encoded, mode: 0o640)
                        written = true
                    }
                    do throws(FileSystemError) {
                        try FileSystem.link(temporary, to: path)
                    } catch where error.errno == EEXIST {
                        continue
                    }
                    try FileSystem.syncDirectory(stateDirectory)
                    return .claimed(StateDirectoryOwner(path: path, record: own))
                }
            }
            return .unrecorded(reason: "\(path) kept changing while it was being claimed")
        } catch {
            return .unrecorded(reason: "\(error)")
        }
    }

    /// Moves the record judged stale out of the way. If another agent put its own record there
    /// in the meantime, that one goes back (link: it never replaces a newer one).
    private static func moveAside(_ path: String, to aside: String, expecting judged: [UInt8]?) throws(FileSystemError) {
        do throws(FileSystemError) {
            try FileSystem.rename(path, to: aside)
        } catch where error.errno == ENOENT {
            return
        }
        defer { try? FileSystem.remove(aside) }
        let moved = try FileSystem.readFileIfPresent(aside)
        if moved != judged {
            // EEXIST: a third agent got in first; the next read judges its record.
            try? FileSystem.link(aside, to: path)
        }
    }

    private static func startTime(of pid: Int32) -> UInt64? {
        guard let text = try? ProcessTable.statText(of: pid) else { return nil }
        return OwnerRecord.startTime(fromStat: text)
    }

    /// Removes the record if it is still ours (an operator may have deleted it and another
    /// agent claimed the directory since).
    func release(logger: EventLogger) {
        do throws(FileSystemError) {
            guard let bytes = try FileSystem.readFileIfPresent(path), bytes == record.encoded else { return }
            try FileSystem.remove(path)
            try FileSystem.syncDirectory(FileSystem.parent(of: path))
        } catch {
            logger.warning("cannot remove the owner record: \(error); the next start finds it stale")
        }
    }
}
