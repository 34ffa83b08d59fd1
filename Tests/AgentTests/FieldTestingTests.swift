import Foundation
import StepJSON
import Testing

/// Recording and bundling as a field tester uses them: `stepctl record`, `stepctl bundle`.
@Suite(.serialized) struct FieldTestingTests {
    /// A capture a full disk cut short was reported "recorded FILE" by `record --wait`, exit 0:
    /// the client saw only `recording` turn false. The data file's name is taken by a link to
    /// /dev/full for every second the capture may start in, so its writes fail from the first flush.
    @Test func recordWaitReportsACaptureAFullDiskCutShort() throws {
        let agent = try AgentProcess(arguments: ["--simulate", AgentProcess.fixture, "--replay-speed", "20"])
        _ = try agent.connect()
        let recordings = agent.stateDirectory + "/recordings"
        try FileManager.default.createDirectory(atPath: recordings, withIntermediateDirectories: true)
        let names = DateFormatter()
        names.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        names.timeZone = TimeZone(identifier: "UTC")
        let now = Date()
        for second in -5...60 {
            try FileManager.default.createSymbolicLink(atPath: recordings + "/" + names.string(from: now + Double(second)) + "-full.csv.gz",
                                                       withDestinationPath: "/dev/full")
        }
        let waited = try runTool(AgentProcess.stepctlPath, ["--socket", agent.socketPath, "record", "--minutes", "1", "--label", "full", "--wait"])
        #expect(waited.status == 1, "\(waited.output) \(waited.error)")
        #expect(!waited.output.contains("recorded"), "\(waited.output)")
        #expect(waited.error.contains("stopped early after") && waited.error.contains("is incomplete"), "\(waited.error)")
        #expect(waited.error.contains("No space left on device") && waited.error.contains("free space"), "\(waited.error)")
        let status = try agent.waitForStatus { _ in true }
        #expect(status.value(atPath: "last_recording.error")?.stringValue?.contains("ENOSPC") == true, "\(status.jsonText)")
        #expect(agent.terminate() == 0)
    }

    @Test func bundleOfATenMinuteSimulatedRunHoldsTheAgentsFilesOnly() throws {
        // About 10 simulated minutes of walking at 20x, counted in samples, not waited for in seconds.
        let agent = try AgentProcess(arguments: ["--simulate", AgentProcess.fixture, "--replay-speed", "20"])
        _ = try agent.connect()
        let started = try runTool(AgentProcess.stepctlPath, ["--socket", agent.socketPath, "record", "--minutes", "30",
                                                             "--label", "field-run", "--json"])
        #expect(started.status == 0, "record: \(started.error)")
        // Every sample delivered after this status went into the capture, which started before it;
        // waiting for 21,000 more, and for the capture to hold most of the run, makes the counts
        // below follow from the samples whatever the machine's speed.
        let beforeCapture = try agent.waitForStatus { _ in true }.value(atPath: "sensor.samples")?.intValue ?? 0
        _ = try agent.waitForStatus(timeout: 300) {
            ($0.value(atPath: "sensor.samples")?.intValue ?? 0) >= max(beforeCapture + 21_000, 3 * beforeCapture)
        }
        let stopped = try runTool(AgentProcess.stepctlPath, ["--socket", agent.socketPath, "record", "--stop", "--json"])
        #expect(stopped.status == 0, "record --stop: \(stopped.error)")
        let stoppedJSON = try JSONParser.parse(Array(stopped.output.utf8))
        #expect((stoppedJSON["samples"]?.intValue ?? 0) >= 21_000, "\(stopped.output)")
        // Counted after the capture stopped, so it covers every step in the recording.
        let stepsCounted = try agent.waitForStatus { _ in true }.value(atPath: "steps.since_start")?.intValue ?? 0
        #expect(stepsCounted > 500, "10 simulated minutes of walking gave \(stepsCounted) steps")

        // A file the agent did not write, and a link out of the state directory: neither may leave.
        try "secret".write(toFile: agent.directory + "/outside.txt", atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: agent.stateDirectory + "/ledger/escape.txt",
                                                   withDestinationPath: agent.directory + "/outside.txt")

        let bundle = agent.directory + "/bundle.tar.gz"
        let made = try runTool(AgentProcess.stepctlPath, ["--socket", agent.socketPath, "bundle", "-o", bundle])
        #expect(made.status == 0, "bundle: \(made.error)")
        let listing = try runTool("/bin/tar", ["-tzf", bundle])
        #expect(listing.status == 0, "tar cannot read the bundle: \(listing.error)")
        let names = listing.output.split(separator: "\n").map(String.init)
        #expect(names.contains("stepd-bundle/status.json"))
        #expect(names.contains("stepd-bundle/version.txt"))
        #expect(names.contains("stepd-bundle/manifest.json"))
        #expect(names.contains { $0.hasPrefix("stepd-bundle/ledger/") && $0.hasSuffix(".steps") }, "\(names)")
        #expect(names.contains { $0.hasPrefix("stepd-bundle/recordings/") && $0.hasSuffix("field-run.csv.gz") })
        #expect(names.contains { $0.hasPrefix("stepd-bundle/recordings/") && $0.hasSuffix("field-run.json") })
        #expect(!names.contains { $0.contains("escape") || $0.contains("outside") }, "\(names)")
        #expect(names.allSatisfy { $0.hasPrefix("stepd-bundle/") && !$0.contains("..") })

        // The status inside is the agent's, and the recording reproduces what the device counted.
        let extract = agent.directory + "/x"
        try FileManager.default.createDirectory(atPath: extract, withIntermediateDirectories: true)
        #expect(try runTool("/bin/tar", ["-xzf", bundle, "-C", extract]).status == 0)
        let statusInside = try JSONParser.parse(Array(try Data(contentsOf: URL(fileURLWithPath: extract + "/stepd-bundle/status.json"))))
        #expect(statusInside.value(atPath: "sensor.model")?.stringValue == "mpu6050")
        let recordings = try FileManager.default.contentsOfDirectory(atPath: extract + "/stepd-bundle/recordings")
        let csv = try #require(recordings.first { $0.hasSuffix(".csv.gz") })
        let sidecar = try JSONParser.parse(Array(try Data(contentsOf: URL(fileURLWithPath:
            extract + "/stepd-bundle/recordings/" + csv.replacingOccurrences(of: ".csv.gz", with: ".json")))))
        #expect(sidecar["chip"]?.stringValue == "mpu6050")
        #expect(sidecar["label"]?.stringValue == "field-run")
        #expect(sidecar["finished"] == true)
        let analyzed = try runTool(AgentProcess.stepctlPath, ["analyze", "--json", extract + "/stepd-bundle/recordings/" + csv])
        #expect(analyzed.status == 0, "analyze: \(analyzed.error)")
        let line = try JSONParser.parse(Array(analyzed.output.split(separator: "\n").first.map { Array($0.utf8) } ?? []))
        let reproduced = line["steps"]?.intValue ?? 0
        // The capture holds at least two thirds of the samples counted, and none after the count.
        #expect(reproduced > stepsCounted / 2 && reproduced <= stepsCounted + 20, "analyze \(reproduced) vs agent \(stepsCounted)")
        #expect(agent.terminate() == 0)
    }

    @Test func bundleWithoutAnAgentDatesEveryMemberAndSaysWhyItCannotBeWritten() throws {
        let directory = NSTemporaryDirectory() + "stepd-bundle-" + UUID().uuidString.prefix(8)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory + "/state/ledger", withIntermediateDirectories: true)
        try "x".write(toFile: directory + "/state/ledger/2026-11-24.steps", atomically: true, encoding: .utf8)
        let bundle = directory + "/bundle.tar.gz"
        let common = ["--socket", directory + "/no-agent.sock", "bundle", "--state-dir", directory + "/state", "--journal-lines", "0"]
        let made = try runTool(AgentProcess.stepctlPath, common + ["-o", bundle])
        #expect(made.status == 0, "bundle: \(made.error)")
        let extract = directory + "/x"
        try FileManager.default.createDirectory(atPath: extract, withIntermediateDirectories: true)
        #expect(try runTool("/bin/tar", ["-xzf", bundle, "-C", extract]).status == 0)
        // tar restores each member's time: the manifest was dated 1970-01-01.
        for member in ["manifest.json", "status.json", "version.txt"] {
            let attributes = try FileManager.default.attributesOfItem(atPath: extract + "/stepd-bundle/" + member)
            let modified = try #require(attributes[.modificationDate] as? Date)
            #expect(abs(modified.timeIntervalSinceNow) < 3600, "\(member) is dated \(modified)")
        }
        // A full disk: the message names the reason (it said only "cannot finish /dev/full").
        let full = try runTool(AgentProcess.stepctlPath, common + ["-o", "/dev/full"])
        #expect(full.status != 0)
        #expect(full.error.contains("No space left on device (ENOSPC)"), "\(full.error)")
    }

    /// The bundle held each recording unpacked under its `.csv.gz` name (read through the
    /// recording reader), and skipped a capture whose gzip a full disk had cut short as "not
    /// readable": the one file a developer needed. Every member is now the file's bytes on disk.
    @Test func bundleHoldsTheFilesByteForByte() throws {
        let directory = NSTemporaryDirectory() + "stepd-bundle-" + UUID().uuidString.prefix(8)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory + "/state/recordings", withIntermediateDirectories: true)
        let fixture = try Data(contentsOf: URL(fileURLWithPath: AgentProcess.fixture))
        #expect(fixture.prefix(2) == Data([0x1F, 0x8B]))
        let files = ["20261207T100000Z-walk.csv.gz": fixture, "20261207T110000Z-cut.csv.gz": fixture.prefix(fixture.count / 2)]
        for (name, bytes) in files { try bytes.write(to: URL(fileURLWithPath: directory + "/state/recordings/" + name)) }
        let bundle = directory + "/bundle.tar.gz"
        let made = try runTool(AgentProcess.stepctlPath, ["--socket", directory + "/no-agent.sock", "bundle", "--state-dir",
                                                          directory + "/state", "--journal-lines", "0", "-o", bundle])
        #expect(made.status == 0, "bundle: \(made.error)")
        #expect(!made.output.contains("skipped"), "\(made.output)")
        let extract = directory + "/x"
        try FileManager.default.createDirectory(atPath: extract, withIntermediateDirectories: true)
        #expect(try runTool("/bin/tar", ["-xzf", bundle, "-C", extract]).status == 0)
        for (name, bytes) in files {
            let inside = try? Data(contentsOf: URL(fileURLWithPath: extract + "/stepd-bundle/recordings/" + name))
            #expect(inside == bytes, "\(name): \(inside.map { "\($0.count) bytes" } ?? "missing") in the bundle, \(bytes.count) on disk")
        }
    }
}

/// `stepctl analyze` reported a recording whose time jumps back as a segment ending before it
/// starts ("unknown(low) 5.0-2.0s") and analyzed a one-sample file `stepd --simulate` refuses:
/// both are now errors naming the file (and line), exit 1, like the replay.
@Suite struct AnalyzeInputTests {
    @Test func backwardTimeAndSingleSamplesAreRefusedLikeTheReplay() throws {
        let directory = try makeTemporaryDirectory("stepctl-analyze")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let joined = directory + "/joined.csv"
        let rows = (0...200).map { "\(Double($0) * 0.025),0,0,1" } + (0...80).map { "\(Double($0) * 0.025),0.5,0,1" }
        try ("t,x,y,z\n" + rows.joined(separator: "\n") + "\n").write(toFile: joined, atomically: true, encoding: .utf8)
        let one = directory + "/one.csv"
        try "t,x,y,z\n0,0,0,1\n".write(toFile: one, atomically: true, encoding: .utf8)
        for (file, expected) in [(joined, joined + ":203: t goes back from 5 to 0 s"), (one, one + ": holds fewer than two samples")] {
            let analyzed = try runTool(AgentProcess.stepctlPath, ["analyze", file])
            #expect(analyzed.status == 1, "\(file): \(analyzed.output)")
            #expect(analyzed.error.contains(expected), "\(analyzed.error)")
            let replayed = try runTool(AgentProcess.stepdPath, ["--simulate", file, "--check"])
            #expect(replayed.status == 78 && replayed.error.contains(expected), "\(replayed.error)")
        }
    }
}

/// A binary file (here a tiny PNG-like header with an escape sequence and a NUL) was quoted in
/// the error, raw bytes and terminal escapes included: now it is called binary, the same for
/// `stepctl analyze` and `stepd --simulate`, which read through one reader.
@Suite struct AnalyzeBinaryInputTests {
    @Test func aBinaryFileIsCalledBinaryAndNotEchoed() throws {
        let directory = try makeTemporaryDirectory("stepctl-binary")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/photo.png"
        let bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x1B, 0x5B, 0x32, 0x4A, 0x00, 0xFF, 0x0A, 0x41]
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        let expected = file + ": binary data, not a recording: expected text (plain or gzip) starting with the header 't,x,y,z'"
        let analyzed = try runTool(AgentProcess.stepctlPath, ["analyze", file])
        #expect(analyzed.status == 1, "\(analyzed.output)")
        #expect(analyzed.error.contains(expected), "\(analyzed.error)")
        // Nothing was analyzed, so no table (its header stood over nothing).
        #expect(analyzed.output.isEmpty, "\(analyzed.output)")
        let withEmbedded = try runTool(AgentProcess.stepctlPath, ["analyze", file, "--embedded"])
        #expect(withEmbedded.status == 1 && withEmbedded.output.hasPrefix("file ") && withEmbedded.output.contains("\nembedded "), "\(withEmbedded.output)")
        let replayed = try runTool(AgentProcess.stepdPath, ["--simulate", file, "--check"])
        #expect(replayed.status == 78 && replayed.error.contains(expected), "\(replayed.error)")
        for output in [analyzed.error, replayed.error] {
            #expect(!output.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{0}" || $0 == "\u{FFFD}" || $0 == "\u{1A}" }, "\(output.debugDescription)")
        }
    }
}

/// Option combinations and values stepctl used to drop silently or send to the agent: refused as
/// a bad command line (64) before connecting, here to a socket nobody serves.
@Suite struct StepctlUsageTests {
    let socket = NSTemporaryDirectory() + "stepctl-nobody-" + UUID().uuidString.prefix(8) + ".sock"

    @Test(arguments: [
        (["record", "--stop", "--minutes", "5"], "--minutes applies to starting a recording, not to --stop"),
        (["record", "--stop", "--label", "x", "--wait"], "--label, --wait apply to starting a recording, not to --stop"),
        (["samples", "add", "--source", "app:phone", "--start", "-1h", "--steps", "10", "--sync-version", "2"],
         "--sync-version needs --sync-identifier"),
        // Exited 1 after asking the agent, which refused the value.
        (["sync", "export", "--limit", "0"], "--limit must be between 1 and 10000, got 0"),
        (["sync", "export", "--limit", "20000"], "--limit must be between 1 and 10000, got 20000"),
        (["sync", "export", "--anchor=-5"], "--anchor must be 0 or more (a next_anchor), got -5"),
        (["watch", "--update-on", "0"], "--update-on must be between 1 and 100000, got 0"),
        (["record", "--minutes", "241"], "--minutes must be 1 to 240, got 241"),
        (["history", "--tz", "Mars/Olympus"], "--tz Mars/Olympus: unknown time zone 'Mars/Olympus'"),
        // An unset shell variable: status and samples list showed UTC, the others exited 1 after
        // the agent refused "time_zone": "".
        (["status", "--tz", ""], "--tz needs a zone, got an empty one"),
        (["samples", "list", "--tz", ""], "--tz needs a zone, got an empty one"),
        (["today", "--tz", ""], "--tz needs a zone, got an empty one"),
        // Bad --last and times exited 1, as when the agent refuses a request.
        (["history", "--last", "xyz"], "--last xyz: use a duration such as 7d, 12h or 90m"),
        (["steps", "--from", "yesterday"], "--from yesterday: not a time"),
        (["steps", "--from", "-1h", "--to", "-2h"], "--to must be after --from"),
        (["samples", "add", "--source", "app:phone", "--start", "noon", "--steps", "1"], "--start noon: not a time"),
        // Exited 1 after connecting, with the agent's "\"end\" must be after \"start\"": the protocol's
        // field names, not the flags; the same rules (SampleInput.spanProblem) name the flags.
        (["samples", "add", "--source", "app:phone", "--start", "-1h", "--end", "-2h", "--steps", "1"], "--end must be after --start"),
        (["samples", "add", "--source", "app:phone", "--start", "-30d", "--end", "-1d", "--steps", "1"],
         "one sample may span at most 86400 s (--start to --end)"),
        (["samples", "add", "--source", "app:phone", "--start", "-10s", "--steps", "600"], "600 steps in 10 s is more than 5 steps/s"),
    ])
    func refusedBeforeConnecting(arguments: [String], message: String) throws {
        let result = try runTool(AgentProcess.stepctlPath, ["--socket", socket] + arguments)
        #expect(result.status == 64, "\(result.error)")
        #expect(result.error.contains(message), "\(result.error)")
    }

    /// More buckets than one answer holds: the agent's "per request ... interval" named nothing
    /// the user typed; refused before connecting, naming --last and --by.
    @Test(arguments: [["history", "--by", "minute", "--last", "7d"], ["stats", "--by", "minute", "--last", "7d"]])
    func tooManyBucketsNameTheOptions(arguments: [String]) throws {
        let result = try runTool(AgentProcess.stepctlPath, ["--socket", socket] + arguments)
        #expect(result.status == 64, "\(result.error)")
        #expect(result.error.contains("--last 7d by minute is 1008"), "\(result.error)")
        #expect(result.error.contains("buckets; at most 10000 fit one answer: use --by hour or a shorter --last"), "\(result.error)")
        let fits = try runTool(AgentProcess.stepctlPath, ["--socket", socket] + arguments.dropLast() + ["6d"])
        #expect(fits.error.contains("stepd is not running"), "\(fits.error)")
    }

    /// Periods longer than one answer covers were refused by the agent as "range of 40 days is
    /// too long; at most 31 days per request", after connecting; now before, naming --last.
    @Test(arguments: [(["activity", "--history", "--last", "40d"], "--last 40d is longer than 31 days"),
                      (["samples", "list", "--last", "4000d"], "--last 4000d is longer than 3660 days"),
                      (["history", "--by", "day", "--last", "4000d"], "--last 4000d is longer than 3660 days"),
                      (["stats", "--last", "3660d"], "--last 3660d is longer than 3659 days")])
    func periodsLongerThanOneAnswerNameLast(arguments: [String], message: String) throws {
        let result = try runTool(AgentProcess.stepctlPath, ["--socket", socket] + arguments)
        #expect(result.status == 64, "\(result.error)")
        #expect(result.error.contains(message + ", the longest period one answer covers"), "\(result.error)")
    }

    /// The same commands without the stray option get as far as connecting (and fail there).
    /// A negative offset is a zone, not an option: "--tz -05:00" was "Missing value for '--tz <zone>'" (64).
    @Test func aNegativeOffsetIsAZone() throws {
        for arguments in [["today", "--tz", "-05:00"], ["history", "--tz", "-0530", "--by", "day"], ["status", "--tz", "-3"]] {
            let result = try runTool(AgentProcess.stepctlPath, ["--socket", socket] + arguments)
            #expect(result.status == 1 && result.error.contains("stepd is not running"), "\(arguments): \(result.error)")
        }
    }

    @Test func withoutTheStrayOptionTheyConnect() throws {
        for arguments in [["record", "--stop"], ["samples", "add", "--source", "app:phone", "--start", "-1h", "--steps", "10",
                                                 "--sync-identifier", "a", "--sync-version", "2"]] {
            let result = try runTool(AgentProcess.stepctlPath, ["--socket", socket] + arguments)
            #expect(result.status != 64 && result.status != 0, "\(arguments): \(result.error)")
        }
    }
}
