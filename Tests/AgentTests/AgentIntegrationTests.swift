import Foundation
import StepJSON
import SensorChips
import StepSocket
import Testing
@testable import StepdAgent

/// The real agent over its real socket and files. Nothing here depends on how fast this machine
/// is: the tests wait for counters, then assert on counters and on what the agent logs and
/// reports. How well the sample rate is measured is a measurement: `TimelineTests` on a simulated
/// clock and `stepbench sensor --clock-table --check` in scripts/test.
@Suite(.serialized) struct AgentIntegrationTests {
    /// A measured rate the sample timeline did not clamp: strictly inside its bound around the
    /// nominal rate. A sensor clock that ran at the wrong speed (replay speed not applied, say)
    /// would hold the estimate at the bound.
    static func isUnclamped(_ rate: Double?, nominal: Double) -> Bool {
        guard let rate else { return false }
        return abs(rate / nominal - 1) < SampleTimeline.maxClockError
    }

    /// Health only moves away from ok for an incident, and incidents are counted.
    static func healthIsExplained(_ status: JSONValue) -> Bool {
        let incidents = ["sensor.errors", "sensor.overflows", "sensor.reinits"].reduce(0) {
            $0 + (status.value(atPath: $1)?.intValue ?? 0)
        }
        switch status.value(atPath: "sensor.health")?.stringValue {
        case "ok": return true
        case "degraded": return incidents > 0
        default: return false
        }
    }

    @Test func statusReportsTheEmulatedChipAndSamplesFlow() throws {
        let agent = try AgentProcess(arguments: ["--simulate", AgentProcess.fixture, "--replay-speed", "10"])
        let status = try agent.waitForStatus { ($0.value(atPath: "sensor.samples")?.intValue ?? 0) > 200 }
        #expect(status.value(atPath: "sensor.model")?.stringValue == "mpu6050")
        #expect(status.value(atPath: "protocol_version")?.intValue == 2)
        // No fault injected: nothing failed on the bus and the chip was configured once.
        #expect(status.value(atPath: "sensor.errors")?.intValue == 0)
        #expect(status.value(atPath: "sensor.reinits")?.intValue == 0)
        #expect(Self.healthIsExplained(status), "\(status.jsonText)")
        // The emulated chip runs 10x faster and the sensor clock with it, so it sees 40 Hz.
        #expect(Self.isUnclamped(status.value(atPath: "sensor.rate_hz")?.doubleValue, nominal: 40), "\(status.jsonText)")
        #expect(agent.terminate() == 0)
        let log = agent.stderrText()
        #expect(log.contains("sensor: MPU-6050 configured: 40 Hz,"), "\(log)")
    }

    /// `--state-dir state` came back as "state" in `status`, so `stepctl bundle` run from
    /// another folder packed an empty one: the agent reports (and uses) the absolute path.
    @Test func aRelativeStateDirectoryIsReportedAbsolute() throws {
        let folder = NSTemporaryDirectory() + "stepd-cwd-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let agent = try AgentProcess(arguments: ["--simulate", "builtin"], stateDirectory: "relative-state",
                                     currentDirectory: folder)
        let status = try agent.waitForStatus { $0.value(atPath: "state_directory") != nil }
        let reported = status.value(atPath: "state_directory")?.stringValue ?? ""
        #expect(reported.hasPrefix("/") && reported.hasSuffix("/relative-state"), "\(status.jsonText)")
        #expect(FileManager.default.fileExists(atPath: folder + "/relative-state"))
        #expect(agent.terminate() == 0)
    }

    /// SIGUSR1 (or SIGUSR2) from a tester killed the agent on the spot, its unsaved steps lost:
    /// they are now logged and ignored, and SIGPWR stops it cleanly like SIGTERM.
    @Test func strayUserSignalsAreIgnoredAndSIGPWRStopsCleanly() throws {
        let agent = try AgentProcess(arguments: ["--simulate", AgentProcess.fixture, "--replay-speed", "10"])
        _ = try agent.waitForStatus { ($0.value(atPath: "steps.since_start")?.intValue ?? 0) > 0 }
        for number in [SIGUSR1, SIGUSR2] { kill(agent.process.processIdentifier, number) }
        // Enough turns of the loop for the signalfd to have been read.
        Thread.sleep(forTimeInterval: 0.5)
        #expect(agent.process.isRunning)
        _ = try agent.waitForStatus { ($0.value(atPath: "steps.since_start")?.intValue ?? 0) > 0 }
        kill(agent.process.processIdentifier, SIGPWR)
        agent.process.waitUntilExit()
        #expect(agent.process.terminationReason == .exit && agent.process.terminationStatus == 0)
        let log = agent.stderrText()
        #expect(log.contains("SIGUSR1 ignored") && log.contains("SIGUSR2 ignored"), "\(log)")
        #expect(log.contains("received SIGPWR: saving steps and stopping"), "\(log)")
    }

    @Test func lis3dhIsDeliveredAt40Hz() throws {
        let agent = try AgentProcess(arguments: ["--simulate", AgentProcess.fixture, "--chip", "lis3dh", "--replay-speed", "10"])
        let status = try agent.waitForStatus {
            ($0.value(atPath: "sensor.samples")?.intValue ?? 0) > 200 && $0.value(atPath: "sensor.delivered_hz")?.doubleValue != nil
        }
        #expect(status.value(atPath: "sensor.model")?.stringValue == "lis3dh")
        #expect(status.value(atPath: "sensor.reinits")?.intValue == 0)
        #expect(Self.healthIsExplained(status), "\(status.jsonText)")
        // rate_hz is the chip's own rate as measured on the sensor clock: the LIS3DH runs at 50 Hz,
        // which 40 Hz (what is delivered) is not, within the bound.
        #expect(Self.isUnclamped(status.value(atPath: "sensor.rate_hz")?.doubleValue, nominal: 50), "\(status.jsonText)")
        #expect(agent.terminate() == 0)
        let log = agent.stderrText()
        #expect(log.contains("sensor: LIS3DH configured: 50 Hz resampled to 40 Hz,"), "\(log)")
    }

    @Test func aChipClockFivePercentFastIsMeasuredNotLost() throws {
        let agent = try AgentProcess(arguments: ["--simulate", AgentProcess.fixture, "--replay-speed", "10",
                                                 "--sensor-clock-error", "5"])
        let status = try agent.waitForStatus { ($0.value(atPath: "sensor.samples")?.intValue ?? 0) > 400 }
        #expect(status.value(atPath: "sensor_description")?.stringValue?.hasSuffix("at 10.0x, chip clock +5.0 %") == true,
                "\(status.jsonText)")
        // Not lost: 5 % is inside what the timeline absorbs, so no gap, re-anchor or re-init.
        #expect(status.value(atPath: "sensor.reinits")?.intValue == 0)
        #expect(Self.healthIsExplained(status), "\(status.jsonText)")
        #expect(Self.isUnclamped(status.value(atPath: "sensor.rate_hz")?.doubleValue, nominal: 40), "\(status.jsonText)")
        #expect(agent.terminate() == 0)
    }

    @Test func sigtermSavesEveryCountedStep() throws {
        let agent = try AgentProcess(arguments: ["--simulate", AgentProcess.fixture, "--replay-speed", "20"])
        _ = try agent.waitForStatus { ($0.value(atPath: "steps.since_start")?.intValue ?? 0) > 150 }
        #expect(agent.terminate() == 0)
        let report = try ledgerHoldsTheCountedSteps(agent, log: agent.stderrText())
        // "deleted" (a count here, a boolean on exported records) has its consistent name beside it.
        #expect(report["deleted_count"]?.intValue == 0 && report["deleted"]?.intValue == 0)
    }

    /// After the agent stopped: the ledger verifies clean and holds exactly the steps its
    /// "stopped:" line in `log` (its stderr, read once) counted (none lost, none doubled). Returns `ledger verify --json`.
    func ledgerHoldsTheCountedSteps(_ agent: AgentProcess, log: String) throws -> JSONValue {
        let counted = try #require(log.split(separator: "\n").compactMap { line -> Int? in
            guard let range = line.range(of: "stopped: ") else { return nil }
            return Int(line[range.upperBound...].prefix { $0.isNumber })
        }.last, "no 'stopped:' line in \(log)")
        let verify = try runTool(AgentProcess.stepctlPath, ["ledger", "verify", "--state-dir", agent.stateDirectory, "--json"])
        #expect(verify.status == 0, "verify failed: \(verify.output) \(verify.error)")
        let report = try JSONParser.parse(Array(verify.output.utf8))
        #expect(report["steps"]?.intValue == counted, "ledger \(verify.output) vs counted \(counted)")
        #expect(report["corrupt"]?.intValue == 0)
        #expect(report["duplicates"]?.intValue == 0)
        return report
    }

    @Test func injectedResetOverflowAndVanishAreRecovered() throws {
        let agent = try AgentProcess(arguments: ["--simulate", AgentProcess.fixture, "--replay-speed", "10",
                                                 "--inject-faults", "reset@20,overflow@40,vanish@60+3"])
        let status = try agent.waitForStatus(timeout: 40) {
            ($0.value(atPath: "sensor.reinits")?.intValue ?? 0) >= 2 && $0.value(atPath: "sensor.health")?.stringValue != "lost"
                && ($0.value(atPath: "sensor.overflows")?.intValue ?? 0) >= 1
        }
        #expect((status.value(atPath: "sensor.errors")?.intValue ?? 0) > 0)
        // A field tester's view: status named the fault, the journal shows the sensor come back
        // to ok, and the ledger neither lost nor doubled a step across the gaps.
        #expect(status.value(atPath: "sensor.last_error")?.stringValue?.contains("ENXIO") == true, "\(status)")
        _ = try agent.waitForStatus(timeout: 30) { $0.value(atPath: "sensor.health")?.stringValue == "ok" }
        // Beside "ok", the error's advice (check the wiring) read as a fault still there.
        let shown = try runTool(AgentProcess.stepctlPath, ["--socket", agent.socketPath, "status"])
        #expect(shown.output.contains("(the sensor has recovered since)"), "\(shown.output)")
        #expect(agent.terminate() == 0)
        let journal = agent.stderrText()
        #expect(journal.contains("sensor health lost -> degraded (chip re-initialised)"), "\(journal)")
        #expect(journal.contains("sensor health degraded -> ok (no fault for 10 s since: "), "\(journal)")
        _ = try ledgerHoldsTheCountedSteps(agent, log: journal)
    }

    /// accept(2) failing with EMFILE left the connection queued and the listener readable, so
    /// the loop polled it again at once and spun; it was not logged either. Now the listener sits
    /// out a turn, the log says what to raise, and clients are served once descriptors free up.
    @Test func runningOutOfDescriptorsIsLoggedAndOutlived() throws {
        let agent = try AgentProcess(arguments: ["--simulate", "builtin"])
        let first = try agent.connect()
        _ = try first.call(.status)
        let pid = agent.process.processIdentifier
        let open = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count
        let limit = try runTool("/usr/bin/prlimit", ["--pid", String(pid), "--nofile=\(open + 1):\(open + 1)"])
        #expect(limit.status == 0, "\(limit.error)")
        let waiting = try (0..<4).map { _ in try UnixSocketClient(path: agent.socketPath) }
        Thread.sleep(forTimeInterval: 1.5)
        _ = try runTool("/usr/bin/prlimit", ["--pid", String(pid), "--nofile=1024:1024"])
        waiting.forEach { $0.close() }
        let later = try agent.connect()
        #expect(try later.call(.status)["protocol_version"] == 2)
        #expect(agent.terminate() == 0)
        let log = agent.stderrText()
        #expect(log.contains("refusing new clients: out of file descriptors (") && log.contains("raise LimitNOFILE= or close clients"), "\(log)")
    }

    /// A watch the agent closed said only "stepd closed the connection"; a slow reader is cut off
    /// the same way as at a stop, so it says both and where to look.
    @Test func aWatchTheAgentEndsSaysWhy() throws {
        let agent = try AgentProcess(arguments: ["--simulate", "builtin"])
        _ = try agent.connect()
        let watch = Process()
        watch.executableURL = URL(fileURLWithPath: AgentProcess.stepctlPath)
        watch.arguments = ["--socket", agent.socketPath, "watch"]
        let out = Pipe()
        let err = Pipe()
        watch.standardOutput = out
        watch.standardError = err
        try watch.run()
        defer { if watch.isRunning { watch.terminate(); watch.waitUntilExit() } }
        var shown = Data()
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline, !String(decoding: shown, as: UTF8.self).contains("watching ") {
            shown += out.fileHandleForReading.availableData
        }
        #expect(agent.terminate() == 0)
        watch.waitUntilExit()
        let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(watch.terminationStatus == 1, "\(message)")
        #expect(message.contains("watch ended: stepd closed the connection: the agent stopped, or this watch left more than 1 MiB of updates unread"),
                "\(message)")
    }

    @Test func brokenBoardFileExitsWithAMessageNamingFileAndKey() throws {
        let directory = NSTemporaryDirectory() + "stepd-board-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let board = directory + "/bad.toml"
        try "name = \"x\"\nbus = \"/dev/i2c-1\"\nrange_g = 3\n".write(toFile: board, atomically: true, encoding: .utf8)
        let result = try runTool(AgentProcess.stepdPath, ["--board", board, "--state-dir", directory + "/s", "--socket", directory + "/s.sock"])
        #expect(result.status == 78)
        #expect(result.error.contains("bad.toml"), "\(result.error)")
        #expect(result.error.contains("range_g"), "\(result.error)")
    }

    /// A board's recording that cannot be replayed is named with the board file's line, like
    /// every other board error; a one-sample recording used to pass (--simulate refused it).
    @Test func boardRecordingErrorsNameTheLine() throws {
        let directory = NSTemporaryDirectory() + "stepd-board-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try "t,x,y,z\n0,0,0,1\n".write(toFile: directory + "/one.csv", atomically: true, encoding: .utf8)
        for (recording, expected) in [("missing.csv", "cannot open"), ("one.csv", "holds fewer than two samples")] {
            let board = directory + "/sim.toml"
            try "name = \"x\"\nbus = \"simulated\"\nrecording = \"\(recording)\"\n".write(toFile: board, atomically: true, encoding: .utf8)
            let result = try runTool(AgentProcess.stepdPath, ["--board", board, "--check"])
            #expect(result.status == 78, "\(recording): \(result.output)")
            #expect(result.error.contains(board + ":3: recording: "), "\(result.error)")
            #expect(result.error.contains(expected), "\(result.error)")
        }
    }

    /// --check used to pass a group that does not exist; the start that followed then failed.
    @Test(arguments: ["--socket-group", "--admin-group"])
    func checkRefusesAGroupThatDoesNotExist(flag: String) throws {
        let result = try runTool(AgentProcess.stepdPath, ["--simulate", "builtin", "--check", flag, "stepd-no-such-group"])
        #expect(result.status == 78)
        #expect(result.error.contains("\(flag) stepd-no-such-group: no such group"), "\(result.error)")
        #expect(!result.output.hasPrefix("ok"), "\(result.output)")
    }

    /// --check passed a bus no i2c-dev node can have (the start then failed to open it).
    @Test func checkRefusesAnImpossibleI2CBus() throws {
        let directory = NSTemporaryDirectory() + "stepd-bus-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let board = directory + "/board.toml"
        try "name = \"x\"\nbus = \"/dev/i2c-99999999999999999999\"\nchip = \"mpu6050\"\n".write(toFile: board, atomically: true, encoding: .utf8)
        let result = try runTool(AgentProcess.stepdPath, ["--board", board, "--check"])
        #expect(result.status == 78, "\(result.output)")
        #expect(result.error.contains(board + ":2: bus: "), "\(result.error)")
        #expect(!result.output.hasPrefix("ok"), "\(result.output)")
    }

    /// A mistyped --inject-faults is a command-line error (64, like any flag value), not a
    /// board-file one (78).
    @Test func injectFaultsSyntaxErrorIsAUsageError() throws {
        let result = try runTool(AgentProcess.stepdPath, ["--simulate", "builtin", "--check", "--inject-faults", "reset@"])
        #expect(result.status == 64, "\(result.error)")
        #expect(result.error.contains("--inject-faults: fault schedule term 'reset@'"), "\(result.error)")
    }

    /// A period reaching back before 1970 used to go to the agent, which answered about a
    /// negative "start" the user never typed; stepctl now names the option (before connecting).
    @Test(arguments: [["history", "--last", "99999999d"], ["stats", "--last", "99999999d"], ["activity", "--history", "--last", "99999999d"],
                      ["samples", "list", "--last", "99999999d"], ["steps", "--from", "-99999999d"]])
    func periodsBefore1970NameTheOption(arguments: [String]) throws {
        let result = try runTool(AgentProcess.stepctlPath, ["--socket", "/nonexistent/stepd.sock"] + arguments)
        let option = arguments[arguments.count - 2]
        #expect(result.status != 0)
        #expect(result.error.contains("\(option) -99999999d") || result.error.contains("\(option) 99999999d"), "\(result.error)")
        #expect(!result.error.contains("not running"), "\(result.error)")
    }

    /// `--distance nan` (or inf) used to add the sample without a distance: JSON has no such
    /// number and the request dropped it. Refused before connecting.
    @Test(arguments: ["nan", "inf"])
    func sampleDistanceMustBeANumberOfMetres(distance: String) throws {
        let result = try runTool(AgentProcess.stepctlPath, ["--socket", "/nonexistent/stepd.sock", "samples", "add", "--source", "app:t",
                                                            "--start", "-10m", "--steps", "5", "--distance", distance])
        #expect(result.status == 64, "\(result.error)")
        #expect(result.error.contains("--distance takes metres"), "\(result.error)")
    }

    /// stepctl --socket "" said "socket path  failed: File name too long" (exit 1); the path's
    /// limit is now a usage error naming the option, before connecting.
    @Test(arguments: ["", "/" + String(repeating: "s", count: 200)])
    func stepctlSocketPathOutsideTheAddressLimit(path: String) throws {
        let result = try runTool(AgentProcess.stepctlPath, ["--socket", path, "status"])
        #expect(result.status == 64, "\(result.error)")
        #expect(result.error.contains("--socket takes a path of 1 to 107 bytes, got \(path.utf8.count)"), "\(result.error)")
        let timeout = try runTool(AgentProcess.stepctlPath, ["--timeout", "0", "status"])
        #expect(timeout.error.contains("--timeout takes more than 0 and at most 600 seconds"), "\(timeout.error)")
    }

    /// The ledger line of `stepctl status` read "1 records, 1 unsaved steps".
    @Test func statusSaysOneRecordInTheSingular() throws {
        let agent = try AgentProcess(arguments: ["--simulate", "builtin", "--replay-speed", "0.01"])
        let client = try agent.connect()
        let start = (Date().timeIntervalSince1970 - 3600).rounded()
        _ = try client.call("samples.add", ["source": "app:phone", "start": .double(start), "end": .double(start + 600), "steps": 500])
        _ = try agent.waitForStatus { $0.value(atPath: "ledger.records")?.intValue == 1 }
        let shown = try runTool(AgentProcess.stepctlPath, ["--socket", agent.socketPath, "status"])
        #expect(shown.output.contains(", 1 record, "), "\(shown.output)")
        #expect(!shown.output.contains("1 records"), "\(shown.output)")
        #expect(agent.terminate() == 0)
    }

    /// A model file stepbench cannot read was named twice: "stepbench daily-life: x.json: x.json:
    /// cannot open: ...".
    @Test(arguments: [["daily-life", "--folds"], ["daily-life", "--model"]])
    func stepbenchNamesAnUnreadableModelFileOnce(arguments: [String]) throws {
        let directory = try makeTemporaryDirectory("stepbench-model")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let missing = directory + "/missing.json"
        let result = try runTool(AgentProcess.stepbenchPath, arguments + [missing])
        #expect(result.status == 1, "\(result.error)")
        #expect(result.error.contains("stepbench daily-life: \(missing): cannot open"), "\(result.error)")
        #expect(result.error.components(separatedBy: missing).count == 2, "the path once: \(result.error)")
    }

    /// An empty --state-dir (an unset shell variable) made bundle pack /ledger and /recordings
    /// instead of the agent's files, and ledger verify read /ledger.
    @Test(arguments: [["bundle", "-o", "BUNDLE", "--state-dir", ""], ["bundle", "-o", ""], ["ledger", "verify", "--state-dir", ""]])
    func stepctlRefusesEmptyPaths(arguments: [String]) throws {
        let bundle = NSTemporaryDirectory() + "stepd-empty-" + UUID().uuidString.prefix(8) + ".tar.gz"
        let result = try runTool(AgentProcess.stepctlPath, ["--socket", "/nonexistent/stepd.sock"]
                                 + arguments.map { $0 == "BUNDLE" ? bundle : $0 })
        defer { try? FileManager.default.removeItem(atPath: bundle) }
        #expect(result.status == 64, "\(result.error)")
        #expect(result.error.contains("got an empty one"), "\(result.error)")
        #expect(!FileManager.default.fileExists(atPath: bundle))
    }

    /// One agent per state directory: a second one (its own socket, the first's state) exits 73
    /// with a message naming the directory, the first's pid and what to do, instead of running
    /// recovery on the files the first is appending to. The owner record pins no file there: a
    /// descriptor open under the state directory keeps an operator from unmounting its file
    /// system for fsck, or remounting it read-only (EBUSY). A clean stop removes the record; a
    /// kill -9 leaves it, and the next agent finds it stale (its pid is gone).
    @Test func aSecondAgentOnTheSameStateDirectoryIsRefused() throws {
        let first = try AgentProcess(arguments: ["--simulate", "builtin", "--replay-speed", "20"])
        _ = try first.connect()
        let second = try AgentProcess(arguments: ["--simulate", "builtin"], stateDirectory: first.stateDirectory + "/.")
        try Self.waitForExit(second)
        #expect(second.process.terminationStatus == 73)
        let message = second.stderrText()
        #expect(message.contains("another stepd (pid \(first.process.processIdentifier)) is using the state directory \(first.stateDirectory)/."), "\(message)")
        #expect(message.contains("stop that one or pass another --state-dir"), "\(message)")
        #expect(first.process.isRunning)
        let canonicalState = URL(fileURLWithPath: first.stateDirectory).resolvingSymlinksInPath().path
        let pinned = try Self.openFiles(of: first.process.processIdentifier).filter {
            $0 == canonicalState || $0.hasPrefix(canonicalState + "/")
        }
        #expect(pinned.isEmpty, "stepd holds \(pinned) open under its state directory")
        #expect(first.terminate() == 0)
        let ownerPath = first.stateDirectory + "/stepd.owner"
        #expect(!FileManager.default.fileExists(atPath: ownerPath), "a clean stop leaves its owner record")
        let third = try AgentProcess(arguments: ["--simulate", "builtin"], stateDirectory: first.stateDirectory)
        _ = try third.connect()
        // Killed with -9 it runs no clean-up: its record stays, naming a pid that is gone.
        third.kill9()
        #expect(try Self.ownerPID(in: first.stateDirectory) == third.process.processIdentifier)
        let fourth = try AgentProcess(arguments: ["--simulate", "builtin"], stateDirectory: first.stateDirectory)
        _ = try fourth.connect()
        #expect(try Self.ownerPID(in: first.stateDirectory) == fourth.process.processIdentifier)
        #expect(fourth.terminate() == 0)
        let verify = try runTool(AgentProcess.stepctlPath, ["ledger", "verify", "--state-dir", first.stateDirectory])
        #expect(verify.status == 0, "\(verify.output)\(verify.error)")
    }

    /// A record names a live process by pid, boot id and start time. The test process itself is
    /// alive: a record naming it on this boot keeps stepd from starting; the same record from
    /// another boot (the machine restarted, the pid was reused) is stale and replaced.
    @Test func anOwnerRecordOfAnotherBootIsStale() throws {
        let directory = NSTemporaryDirectory() + "stepd-owner-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let ownerPath = directory + "/stepd.owner"
        let pid = getpid()
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        let started = try #require(OwnerRecord.startTime(fromStat: stat))
        let boot = try String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let otherBoot = boot == "00000000-0000-0000-0000-000000000000" ? "11111111-1111-1111-1111-111111111111"
                                                                       : "00000000-0000-0000-0000-000000000000"

        try "stepd-owner 1\npid \(pid)\nboot \(boot)\nstart \(started)\n".write(toFile: ownerPath, atomically: true, encoding: .utf8)
        let refused = try AgentProcess(arguments: ["--simulate", "builtin"], stateDirectory: directory)
        try Self.waitForExit(refused)
        #expect(refused.process.terminationStatus == 73)
        #expect(refused.stderrText().contains("another stepd (pid \(pid)) is using the state directory \(directory)"))

        try "stepd-owner 1\npid \(pid)\nboot \(otherBoot)\nstart \(started)\n".write(toFile: ownerPath, atomically: true, encoding: .utf8)
        let agent = try AgentProcess(arguments: ["--simulate", "builtin"], stateDirectory: directory)
        _ = try agent.connect()
        #expect(try Self.ownerPID(in: directory) == agent.process.processIdentifier)
        #expect(agent.terminate() == 0)
    }

    /// A file that is no owner record (torn by a power cut, written by hand) does not keep the
    /// agent from starting: it is replaced by the agent's own record.
    @Test func aGarbageOwnerRecordIsReplaced() throws {
        let directory = NSTemporaryDirectory() + "stepd-owner-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try "stepd-owner 1\npid 12\0\u{1}garbage".write(toFile: directory + "/stepd.owner", atomically: true, encoding: .utf8)
        let agent = try AgentProcess(arguments: ["--simulate", "builtin"], stateDirectory: directory)
        _ = try agent.connect()
        #expect(try Self.ownerPID(in: directory) == agent.process.processIdentifier)
        #expect(agent.terminate() == 0)
        #expect(!FileManager.default.fileExists(atPath: directory + "/stepd.owner"))
        let names = try FileManager.default.contentsOfDirectory(atPath: directory)
        #expect(!names.contains { $0.hasPrefix("stepd.owner.") }, "leftovers: \(names)")
    }

    static func waitForExit(_ agent: AgentProcess, timeout: Double = 20) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while agent.process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        try #require(!agent.process.isRunning, "stepd on \(agent.stateDirectory) is still running")
    }

    /// The pid in `<state>/stepd.owner`, read as text (the format docs/operations.md shows).
    static func ownerPID(in stateDirectory: String) throws -> Int32? {
        let text = try String(contentsOfFile: stateDirectory + "/stepd.owner", encoding: .utf8)
        return text.split(separator: "\n").first { $0.hasPrefix("pid ") }.flatMap { Int32($0.dropFirst(4)) }
    }

    /// What each descriptor of process `pid` points to (/proc/PID/fd): paths, `socket:[…]`, ….
    static func openFiles(of pid: Int32) throws -> [String] {
        let directory = "/proc/\(pid)/fd"
        return try FileManager.default.contentsOfDirectory(atPath: directory).compactMap {
            try? FileManager.default.destinationOfSymbolicLink(atPath: directory + "/" + $0)
        }
    }

    /// --replay-speed (and the other emulated-chip flags) with a real board: the flag is what is
    /// wrong, so exit 64 (usage) with what to do, not 78 (a bad board file) as before.
    @Test(arguments: [["--replay-speed", "2"], ["--inject-faults", "reset@20"], ["--sensor-clock-error", "2"]])
    func simulatorFlagsWithARealBoardAreUsageErrors(flag: [String]) throws {
        let repository = String(#filePath.split(separator: "/").dropLast(3).joined(separator: "/"))
        let board = "/" + repository + "/boards/rpi4-lis3dh.toml"
        let result = try runTool(AgentProcess.stepdPath, ["--board", board, "--check"] + flag)
        #expect(result.status == 64, "\(result.error)")
        #expect(result.error.contains("\(flag[0])"), "\(result.error)")
        #expect(result.error.contains("\(board) is a real sensor on /dev/i2c-1"), "\(result.error)")
        #expect(result.error.contains("--simulate builtin|RECORDING"), "\(result.error)")
    }

    @Test func badFlagsExitWithUsageStatus() throws {
        let result = try runTool(AgentProcess.stepdPath, ["--replay-speed", "-3"])
        #expect(result.status == 64)
        #expect(result.error.contains("--replay-speed"))
    }
}
