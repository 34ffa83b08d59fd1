import ArgumentParser
import Glibc
import POSIXLayer
import StepJSON
import StepProtocol
import StepSocket
import StepdModel

/// `stepctl record`: raw capture for field testers, alongside normal counting.
struct RecordCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Capture raw samples (t,x,y,z gzip + JSON sidecar) into the agent's state directory.",
        discussion: """
            The capture runs beside normal counting and stops by itself after --minutes. Feed the \
            file to `stepctl analyze` to reproduce what the device counted. --stop ends a running one.
            """)

    @ParentCommand var root: StepCtl
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions
    /// Optional so that `--stop` can tell it was given; a start without it records for 10 minutes.
    @Option(help: "How long to record (1-240 minutes, default 10).") var minutes: Int?
    @Option(help: ArgumentHelp("A short label for the file name (letters, digits, - _ .).", valueName: "text"))
    var label: String?
    @Flag(help: "Stop the running recording instead of starting one.") var stop = false
    @Flag(help: "Wait until the recording has finished, then print its file.") var wait = false
    @OptionGroup var zone: ZoneOptions

    func validate() throws {
        let range = RecordingStartParams.minutesRange
        if let minutes, !range.contains(minutes) {
            throw ValidationError("--minutes must be \(range.lowerBound) to \(range.upperBound), got \(minutes)")
        }
        // These shape a recording that is starting; with --stop they were silently dropped.
        if stop {
            let given = [(minutes != nil, "--minutes"), (label != nil, "--label"), (wait, "--wait")].filter(\.0).map(\.1)
            if !given.isEmpty {
                throw ValidationError("\(given.joined(separator: ", ")) \(given.count == 1 ? "applies" : "apply") to starting a recording, not to --stop")
            }
        }
    }

    func run() throws {
        let client = try connect(connection, root.connection)
        if stop {
            let (result, raw) = try call(client, .recordingStop, as: RecordingStopResult.init(json:))
            if output.json { return printJSON(raw) }
            print("stopped: \(result.file), \(counted(result.samples, "sample"))")
            return
        }
        let (started, raw) = try call(client, .recordingStart, RecordingStartParams(minutes: minutes ?? 10, label: label).json,
                                      as: RecordingStartResult.init(json:))
        if !wait {
            if output.json { return printJSON(raw) }
            print("recording to \(started.file) until \(try zone.times(asking: client).text(started.until, .timeSecond))")
            return
        }
        var ended: RecordingOutcome?
        while true {
            sleep(2)
            let (status, _) = try call(client, .status, as: StatusResult.init(json:))
            ended = status.details?.lastRecording.flatMap { $0.file == started.file ? $0 : nil }
            if ended != nil || status.details?.recording != true { break }
        }
        // "recorded" only for a capture the agent says ended whole: one a full disk cut short
        // was reported as recorded too.
        guard let ended else {
            throw CtlFailure("the recording \(started.file) ended, but the agent does not say how (an agent older than this stepctl, or restarted): check its .json sidecar, whose \"finished\" is false for an incomplete file")
        }
        if let error = ended.error {
            throw CtlFailure("the recording \(started.file) stopped early after \(counted(ended.samples, "sample")) and is incomplete: \(error)")
        }
        if output.json { return printJSON(raw) }
        print("recorded \(started.file), \(counted(ended.samples, "sample"))")
    }
}

/// `stepctl bundle`: everything a developer needs when a tester says "it undercounted", in one
/// file the tester can hand over.
struct BundleCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bundle",
        abstract: "Pack ledger files, recordings, the board file, status, version and recent logs into a .tar.gz.",
        discussion: """
            Only the agent's own files go in: regular files directly inside <state>/ledger and \
            <state>/recordings (symbolic links and other owners' files are skipped), the board file \
            the running agent names, its status, and the stepd unit's journal lines when journalctl \
            is available. Works without the agent too (status then says why it is missing).
            """)

    @ParentCommand var root: StepCtl
    @OptionGroup var connection: ConnectionOptions
    @Option(name: [.short, .long], help: ArgumentHelp("The archive to write.", valueName: "file.tar.gz"))
    var output: String
    @Option(help: ArgumentHelp("The agent's state directory (default: what the agent reports, else the default).", valueName: "dir"))
    var stateDir: String?
    @Option(help: "Journal lines to include.") var journalLines: Int = 2000

    func validate() throws {
        // An empty value is an unset shell variable: --state-dir "" packed /ledger and
        // /recordings instead of the agent's (and overrode what the agent reports).
        guard stateDir != "" else { throw ValidationError("--state-dir needs a directory, got an empty one") }
        guard !output.isEmpty else { throw ValidationError("--output needs a file name, got an empty one") }
    }

    func run() throws {
        var status: JSONValue
        var agent: StatusResult?
        do {
            let client = try connect(connection, root.connection)
            (agent, status) = try call(client, .status, as: StatusResult.init(json:))
        } catch {
            status = ["error": .string("agent not reachable: \(error)")]
        }
        let environment = ProcessEnvironment.current()
        let state = stateDir ?? agent?.details?.stateDirectory
            ?? DefaultPaths.stateDirectory(environment: environment, uid: getuid())

        let archive = try TarGzipWriter(path: output)
        var manifest: [JSONValue] = []
        let now = Int(time(nil))
        func add(_ name: String, _ bytes: [UInt8], modified: Int = now) throws {
            try archive.add(name: "stepd-bundle/" + name, contents: bytes, modified: modified)
            manifest.append(["name": .string(name), "bytes": .int(bytes.count)])
        }

        try add("status.json", Array((status.jsonText + "\n").utf8))
        let version = agent?.version ?? "unknown (agent not reachable)"
        try add("version.txt", Array("stepd \(version)\nstepctl \(StepdVersion.current)\n".utf8))
        var skipped: [String] = []
        for folder in ["ledger", "recordings"] {
            for file in BundleFiles.ownFiles(in: state + "/" + folder, skipped: &skipped) {
                try add(folder + "/" + file.name, file.contents, modified: file.modified)
            }
        }
        if let board = agent?.board.file {
            if let bytes = try? FileSystem.readFile(board) {
                try add("board.toml", bytes)
            } else {
                skipped.append("\(board): not readable")
            }
        }
        if let journal = BundleFiles.journal(lines: journalLines) { try add("journal.txt", journal) }
        let summary: JSONValue = [
            "created": .int(now), "state_directory": .string(state), "files": .array(manifest),
            "skipped": .array(skipped.map { .string($0) }),
        ]
        try archive.add(name: "stepd-bundle/manifest.json", contents: Array((summary.jsonText + "\n").utf8), modified: now)
        try archive.finish()
        print("wrote \(output): \(counted(manifest.count + 1, "file"))" + (skipped.isEmpty ? "" : ", skipped \(skipped.count) (see manifest.json)"))
    }
}

/// The file-system side of `bundle`.
enum BundleFiles {
    struct File {
        var name: String
        var contents: [UInt8]
        var modified: Int
    }

    /// Regular files directly in `directory` owned by the directory's owner. Links are not
    /// followed: a link could point at anything on the device.
    static func ownFiles(in directory: String, skipped: inout [String]) -> [File] {
        var directoryInfo = stat()
        guard lstat(directory, &directoryInfo) == 0, (directoryInfo.st_mode & S_IFMT) == S_IFDIR,
              let names = try? FileSystem.listDirectory(directory)
        else { return [] }
        var files: [File] = []
        for name in names.sorted() {
            let path = directory + "/" + name
            var info = stat()
            guard lstat(path, &info) == 0 else { continue }
            guard (info.st_mode & S_IFMT) == S_IFREG else {
                skipped.append("\(path): not a regular file")
                continue
            }
            guard info.st_uid == directoryInfo.st_uid else {
                skipped.append("\(path): owned by uid \(info.st_uid), not the agent")
                continue
            }
            // The bytes as they are on disk: a recording is a .csv.gz and stays one (reading it
            // through the recording reader unpacked it under its .gz name, and a capture cut
            // short by a full disk, whose gzip is truncated, was skipped as "not readable").
            guard let bytes = try? FileSystem.readFile(path) else {
                skipped.append("\(path): not readable")
                continue
            }
            files.append(File(name: name, contents: bytes, modified: Int(info.st_mtim.tv_sec)))
        }
        return files
    }

    /// The stepd unit's recent journal lines, or nil when journalctl is absent or has none.
    static func journal(lines: Int) -> [UInt8]? {
        guard access("/usr/bin/journalctl", X_OK) == 0 || access("/bin/journalctl", X_OK) == 0 else { return nil }
        guard let pipe = popen("journalctl -u stepd.service -n \(max(1, min(lines, 100_000))) --no-pager -o short-iso 2>/dev/null", "r") else {
            return nil
        }
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = fread(&buffer, 1, buffer.count, pipe)
            if n <= 0 { break }
            output.append(contentsOf: buffer[0..<n])
        }
        pclose(pipe)
        return output.isEmpty ? nil : output
    }
}
