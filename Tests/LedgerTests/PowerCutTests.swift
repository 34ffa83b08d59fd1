import Glibc
import Ledger
import LedgerStore
import POSIXLayer
import StepdModel
import Testing

/// A file system with a volatile write cache that keeps POSIX's durability rules to the letter:
/// a file's bytes become durable with its fdatasync/fsync; a name (a created file, a new
/// directory, a rename, a removal) only with an fsync of the directory holding it. `powerCut()`
/// is the disk after the power went: only what was made durable. ext4 with its journal commits
/// names together with a file's fdatasync, so scripts/power-loss-test cannot see a missing
/// directory fsync on it; this can.
final class VolatileCacheFileSystem: LedgerFileSystem {
    final class Node {
        let isDirectory: Bool
        var bytes: [UInt8] = []
        var durableBytes: [UInt8] = []
        var entries: [String: Node] = [:]
        var durableEntries: [String: Node] = [:]
        init(directory: Bool) { isDirectory = directory }
    }

    let root: Node
    /// errno for every syncDirectory while set.
    var failDirectorySync: Int32?

    /// `existing` directories are there and durable, like /var/lib on a device.
    init(existing: [String]) {
        root = Node(directory: true)
        for path in existing {
            var node = root
            for part in path.split(separator: "/").map(String.init) {
                let child = node.entries[part] ?? Node(directory: true)
                node.entries[part] = child
                node.durableEntries[part] = child
                node = child
            }
        }
    }

    private init(root: Node) { self.root = root }

    /// The disk as the next boot finds it.
    func powerCut() -> VolatileCacheFileSystem {
        func durable(_ node: Node) -> Node {
            let copy = Node(directory: node.isDirectory)
            copy.bytes = node.durableBytes
            copy.durableBytes = node.durableBytes
            for (name, child) in node.durableEntries {
                let kept = durable(child)
                copy.entries[name] = kept
                copy.durableEntries[name] = kept
            }
            return copy
        }
        return VolatileCacheFileSystem(root: durable(root))
    }

    private func split(_ path: String) -> (parent: [String], name: String) {
        var parts = path.split(separator: "/").map(String.init)
        let name = parts.popLast() ?? ""
        return (parts, name)
    }

    private func node(_ parts: [String]) -> Node? {
        var node = root
        for part in parts {
            guard let child = node.entries[part] else { return nil }
            node = child
        }
        return node
    }

    private func node(at path: String) -> Node? { node(path.split(separator: "/").map(String.init)) }

    private func parent(of path: String, _ operation: String) throws(FileSystemError) -> (Node, String) {
        let (parts, name) = split(path)
        guard let parent = node(parts), parent.isDirectory else {
            throw FileSystemError(operation: operation, path: path, errno: ENOENT)
        }
        return (parent, name)
    }

    func listDirectory(_ path: String) throws(FileSystemError) -> [String]? {
        guard let found = node(at: path) else { return nil }
        guard found.isDirectory else { throw FileSystemError(operation: "opendir", path: path, errno: ENOTDIR) }
        return Array(found.entries.keys)
    }

    func makeDirectory(_ path: String) throws(FileSystemError) -> Bool {
        let (parent, name) = try parent(of: path, "mkdir")
        if parent.entries[name] != nil { return false }
        parent.entries[name] = Node(directory: true)
        return true
    }

    func readFile(_ path: String) throws(FileSystemError) -> [UInt8] {
        guard let found = node(at: path), !found.isDirectory else { throw FileSystemError(operation: "open", path: path, errno: ENOENT) }
        return found.bytes
    }

    func fileSize(_ path: String) throws(FileSystemError) -> Int? { node(at: path)?.bytes.count }

    private func openFile(_ path: String) throws(FileSystemError) -> Node {
        let (parent, name) = try parent(of: path, "open")
        if let existing = parent.entries[name] { return existing }
        let created = Node(directory: false)
        parent.entries[name] = created
        return created
    }

    func appendDurably(_ path: String, _ bytes: [UInt8], expectedSize: Int) throws(FileSystemError) {
        let file = try openFile(path)
        guard file.bytes.count >= expectedSize else {
            throw FileSystemError(operation: "append (file shorter than the ledger wrote it)", path: path, errno: EIO)
        }
        file.bytes = Array(file.bytes.prefix(expectedSize)) + bytes
        file.durableBytes = file.bytes
    }

    func writeFileDurably(_ path: String, _ bytes: [UInt8]) throws(FileSystemError) {
        let file = try openFile(path)
        file.bytes = bytes
        file.durableBytes = bytes
    }

    func truncate(_ path: String, to length: Int) throws(FileSystemError) {
        guard let file = node(at: path) else { throw FileSystemError(operation: "open", path: path, errno: ENOENT) }
        file.bytes = Array(file.bytes.prefix(length))
        file.durableBytes = file.bytes
    }

    func rename(_ from: String, to: String) throws(FileSystemError) {
        let (source, sourceName) = try parent(of: from, "rename")
        let (target, targetName) = try parent(of: to, "rename")
        guard let moving = source.entries.removeValue(forKey: sourceName) else {
            throw FileSystemError(operation: "rename to \(to)", path: from, errno: ENOENT)
        }
        target.entries[targetName] = moving
    }

    func remove(_ path: String) throws(FileSystemError) {
        let (parent, name) = try parent(of: path, "unlink")
        parent.entries[name] = nil
    }

    func syncDirectory(_ path: String) throws(FileSystemError) {
        if let code = failDirectorySync { throw FileSystemError(operation: "fsync", path: path, errno: code) }
        guard let directory = node(at: path), directory.isDirectory else {
            throw FileSystemError(operation: "open", path: path, errno: ENOENT)
        }
        directory.durableEntries = directory.entries
    }
}

@Suite struct PowerCutTests {
    let t0 = utc(2024, 6, 1, 8)
    let state = "/var/lib/stepd"

    func options(_ fs: VolatileCacheFileSystem) -> LedgerOptions {
        var options = LedgerOptions()
        options.fileSystem = fs
        return options
    }

    /// Sequences the service reports durable (what sync clients get from `ledger.export`).
    func reported(_ service: LedgerService) -> [UInt64] {
        service.changes(after: 0, limit: LedgerSync.maximumPageSize).records.map(\.sequence)
    }

    @Test func everythingReportedDurableSurvivesAPowerCutAfterEveryStep() throws {
        // A fresh device: /var/lib exists, the state directory does not. After every step of a
        // run the power goes; the next start must find every record reported durable and the
        // acknowledged anchor. Before directories were synced into their parents, the first
        // cut lost the whole ledger directory.
        let fs = VolatileCacheFileSystem(existing: ["/var/lib"])
        let service = try LedgerService(stateDirectory: state, options: options(fs), logger: .silent)
        var now = t0
        let sample = ExternalSample(start: t0 - 3600, end: t0 - 1800, steps: 900, source: phone)
        let actions: [(String, () throws -> Void)] = [
            ("200 steps", { service.addDetectedSteps(times: (0..<200).map { now + Double($0) * 0.5 }, distance: 140, activity: .walking, now: now + 100) }),
            ("a sample", { try service.addSample(sample, now: now) }),
            ("a sample of yesterday, a new day file", {
                try service.addSample(ExternalSample(start: t0 - 86400, end: t0 - 86000, steps: 300, source: watch), now: now)
            }),
            ("an acknowledgement", { try service.acknowledge(anchor: 3, now: now) }),
            ("a delete", { try service.deleteSample(sequence: 3, source: phone, now: now) }),
            ("shutdown", { service.addDetectedSteps(times: [now + 1], distance: 1, activity: .walking, now: now + 2); service.shutdown(now: now + 3) }),
        ]
        for (what, action) in actions {
            now += 120
            try action()
            let promised = reported(service)
            let anchor = service.acknowledgedAnchor
            let rebooted = fs.powerCut()
            let after = try LedgerService(stateDirectory: state, options: options(rebooted), logger: .silent)
            let kept = Set(reported(after))
            #expect(promised.allSatisfy(kept.contains), "after \(what): reported \(promised), kept \(kept.sorted())")
            #expect(after.acknowledgedAnchor == anchor, "after \(what)")
            let report = try LedgerVerifier.verify(stateDirectory: state, fileSystem: rebooted)
            #expect(report.isClean, "after \(what): \(report.problems)")
        }
    }

    @Test func aNewDayFileCountsAsDurableOnlyOnceItsNameIs() throws {
        let fs = VolatileCacheFileSystem(existing: ["/var/lib"])
        let logs = LogCollector()
        let service = try LedgerService(stateDirectory: state, options: options(fs), logger: logs.logger)
        service.addDetectedSteps(times: (0..<100).map { t0 + Double($0) * 0.5 }, distance: 0, activity: .walking, now: t0 + 60)
        #expect(reported(service) == [1])
        // The directory cannot be synced: the record of a new day is written and fdatasync'd, but
        // its file's name is not durable, so it must not be reported durable.
        fs.failDirectorySync = EIO
        let tomorrow = t0 + 86400
        service.addDetectedSteps(times: (0..<100).map { tomorrow + Double($0) * 0.5 }, distance: 0, activity: .walking, now: tomorrow + 60)
        #expect(reported(service) == [1])
        #expect(service.health.state == .degraded && service.health.backlogRecords == 1)
        #expect(service.health.message?.contains("EIO") == true)
        let cut = try LedgerService(stateDirectory: state, options: options(fs.powerCut()), logger: .silent)
        #expect(reported(cut) == [1])
        // The retry rewrites the file from the start (no duplicate) and syncs its name.
        fs.failDirectorySync = nil
        service.tick(now: tomorrow + 80)
        #expect(service.health.state == .ok && reported(service) == [1, 2])
        let rebooted = fs.powerCut()
        let after = try LedgerService(stateDirectory: state, options: options(rebooted), logger: .silent)
        #expect(reported(after) == [1, 2])
        let report = try LedgerVerifier.verify(stateDirectory: state, fileSystem: rebooted)
        #expect(report.isClean && report.records == 2 && report.steps == 200)
        #expect(logs.all.filter { $0.contains("writing again") }.count == 1)
    }

    @Test func parentDirectoryNames() {
        #expect(FileSystem.parent(of: "/var/lib/stepd") == "/var/lib")
        #expect(FileSystem.parent(of: "/var/lib/stepd/") == "/var/lib")
        #expect(FileSystem.parent(of: "/state") == "/")
        #expect(FileSystem.parent(of: "state") == ".")
        #expect(FileSystem.parent(of: "/") == "/")
    }
}
