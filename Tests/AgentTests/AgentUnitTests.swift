import Foundation
import Boards
import ChipEmulation
import MotionCore
import Recordings
@testable import SensorChips
import Testing
import StepJSON
import StepProtocol
import StepdModel
@testable import StepdAgent

@Suite struct AgentOptionsTests {
    func parse(_ arguments: [String]) -> AgentOptions.ParseOutcome {
        AgentOptions.parse(arguments, defaultStateDirectory: "/state", defaultSocketPath: "/sock")
    }

    @Test func defaultsApplyWithoutFlags() {
        guard case .run(let options) = parse([]) else { Issue.record("expected run"); return }
        #expect(options.stateDirectory == "/state")
        #expect(options.socketPath == "/sock")
        #expect(options.boardPath == nil && options.simulateRecording == nil)
        #expect(options.logLevel == .info)
    }

    @Test func interfaceFlagsParse() {
        guard case .run(let options) = parse(["--simulate", "w.csv.gz", "--replay-speed", "50", "--state-dir", "/d",
                                              "--socket=/s.sock", "--log-level", "debug", "--chip", "lis3dh"])
        else { Issue.record("expected run"); return }
        #expect(options.simulateRecording == "w.csv.gz")
        #expect(options.replaySpeed == 50)
        #expect(options.stateDirectory == "/d")
        #expect(options.socketPath == "/s.sock")
        #expect(options.logLevel == .debug)
        #expect(options.simulateChip == .lis3dh)
    }

    /// The board file took replay speeds in (0, 1000] and the flag 0.01-10000: `--replay-speed
    /// 5000` ran, `replay_speed = 5000` was refused, and 0.001 the other way round.
    @Test func theReplaySpeedFlagAndTheBoardFileTakeTheSameSpeeds() {
        for speed in ["0.001", "0.01", "1000", "5000", "10000", "10001"] {
            let flagTakesIt = if case .run = parse(["--simulate", "builtin", "--replay-speed", speed]) { true } else { false }
            let board = Result { try BoardParser.parse(text: "name = \"s\"\nbus = \"simulated\"\nreplay_speed = \(speed)", fileName: "b.toml") }
            let boardTakesIt = (try? board.get()) != nil
            #expect(flagTakesIt == boardTakesIt, "\(speed): flag \(flagTakesIt), board \(boardTakesIt)")
            #expect(flagTakesIt == (Double(speed).map(Board.replaySpeeds.contains) ?? false), "\(speed)")
            // Both refusals name the same range.
            if case .failure(let message) = parse(["--replay-speed", speed]) {
                #expect(message.contains("from 0.01 to 10000"), "\(message)")
            }
            if case .failure(let error) = board {
                #expect("\(error)".contains("from 0.01 to 10000"), "\(error)")
            }
        }
    }

    @Test func badInputSaysWhatToFix() {
        #expect(parse(["--replay-speed", "fast"]) == .failure("--replay-speed takes a number from 0.01 to 10000, got 'fast'"))
        #expect(parse(["--replay-speed"]) == .failure("--replay-speed needs a value"))
        #expect(parse(["--bogus"]) == .failure("unknown option '--bogus' (see stepd --help)"))
        #expect(parse(["--log-level", "loud"]) == .failure("--log-level takes error, warning, notice, info or debug, got 'loud'"))
        #expect(parse(["--chip", "bmi160"]) == .failure("--chip takes mpu6050 or lis3dh, got 'bmi160'"))
        #expect(parse(["--board", "b.toml", "--simulate", "x.csv"])
            == .failure("--board and --simulate exclude each other: --simulate replaces the board with a simulated one"))
        #expect(parse(["--help"]) == .help)
        #expect(parse(["--version"]) == .version)
        #expect(parse(["--print-manpage"]) == .manual)
        #expect(parse(["--check=yes"]) == .failure("--check takes no value"))
        #expect(parse(["--log-level=warn"]) == .run({
            var expected = AgentOptions(stateDirectory: "/state", socketPath: "/sock")
            expected.logLevel = .warning
            return expected
        }()))
        #expect(parse(["--retention-days", "0"]) == .failure("--retention-days takes a number from 1 to 36500, got '0'"))
    }

    /// An empty value (an unset shell variable) was taken as is: --state-dir "" put the ledger
    /// in /ledger, --metrics-dir "" wrote /stepd.prom, --socket "" failed only after the ledger
    /// was opened, saying "File name too long" and exiting 73.
    @Test func emptyValuesAndOverlongSocketPathsAreBadCommandLines() {
        for flag in AgentOptions.flags.flatMap(\.names) where !["--help", "-h", "--version", "--print-manpage", "--check"].contains(flag) {
            #expect(parse([flag, ""]) == .failure("\(flag) needs a value, got an empty one"))
            #expect(parse([flag + "="]) == .failure("\(flag) needs a value, got an empty one"))
        }
        let longest = "/" + String(repeating: "s", count: 106)
        guard case .run(let options) = parse(["--socket", longest]) else { Issue.record("107 bytes refused"); return }
        #expect(options.socketPath == longest)
        #expect(parse(["--socket", longest + "s"]) == .failure("--socket takes a path of 1 to 107 bytes, got 108: choose a shorter one"))
    }

    /// A relative --state-dir was kept relative and reported so in `status`: `stepctl bundle`,
    /// run from another folder, then packed an empty one.
    @Test func relativePathsAreMadeAbsoluteAgainstTheWorkingDirectory() {
        guard case .run(let parsed) = parse(["--state-dir", "./state", "--socket", "s.sock", "--metrics-dir", ".",
                                             "--simulate", "rec/w.csv.gz"])
        else { Issue.record("expected run"); return }
        let options = parsed.resolvingPaths(against: "/home/tester/")
        #expect(options.stateDirectory == "/home/tester/state")
        #expect(options.socketPath == "/home/tester/s.sock")
        #expect(options.metricsDirectory == "/home/tester")
        #expect(options.simulateRecording == "/home/tester/rec/w.csv.gz")
        guard case .run(let absolute) = parse(["--board", "/etc/b.toml", "--state-dir", "/d"]) else { Issue.record("expected run"); return }
        #expect(absolute.resolvingPaths(against: "/x") == absolute)
        guard case .run(let builtIn) = parse(["--simulate", "builtin"]) else { Issue.record("expected run"); return }
        #expect(builtIn.resolvingPaths(against: "/x").simulateRecording == "builtin")
        // A socket path that would no longer fit a sockaddr_un stays relative (it binds the same file).
        let deep = "/" + String(repeating: "d", count: 100)
        #expect(parsed.resolvingPaths(against: deep).socketPath == "s.sock")
    }

    /// stepd took heights up to 2.5 m, `stepctl analyze` and the stride model up to 2.6 m: both
    /// commands now read `WearerHeight.metres`, the range the stride model honours.
    @Test func heightRangeIsTheStrideModels() {
        guard case .run(let options) = parse(["--height", "2.6"]) else { Issue.record("2.6 m refused"); return }
        #expect(options.userHeight == 2.6)
        #expect(parse(["--height", "2.61"]) == .failure("--height takes a number from 0.5 to 2.6, got '2.61'"))
        #expect(StrideModel(height: WearerHeight.metres.upperBound).height == WearerHeight.metres.upperBound)
        #expect(StrideModel(height: WearerHeight.metres.lowerBound).height == WearerHeight.metres.lowerBound)
        #expect(StrideModel(height: WearerHeight.metres.upperBound.nextUp).height == StrideModel.defaultHeight)
        #expect(StrideModel(height: WearerHeight.metres.lowerBound.nextDown).height == StrideModel.defaultHeight)
        #expect(StrideModel(height: .nan).height == StrideModel.defaultHeight)
        #expect(StrideModel(height: .infinity).height == StrideModel.defaultHeight)
    }

    /// A fault schedule is checked while the command line is parsed, so a mistake is a usage
    /// error (exit 64) naming the flag.
    @Test func faultScheduleIsParsedWithTheFlags() {
        guard case .run(let options) = parse(["--inject-faults", "reset@30,nack@60x20"]) else { Issue.record("expected run"); return }
        #expect(options.faultSchedule == (try? FaultSchedule(parsing: "reset@30,nack@60x20")))
        guard case .failure(let message) = parse(["--inject-faults", "reset@"]) else { Issue.record("expected failure"); return }
        #expect(message.hasPrefix("--inject-faults: fault schedule term 'reset@'"))
    }
}

/// `--help` and stepd(8) are both rendered from `AgentOptions.flags`: every flag parses and
/// appears in both, the hidden test hook in neither.
@Suite struct AgentFlagTableTests {
    @Test func namesAreUnique() {
        let names = AgentOptions.flags.flatMap(\.names)
        #expect(Set(names).count == names.count)
    }

    @Test func everyVisibleFlagIsInHelpAndManual() {
        let usage = AgentOptions.usage
        let manual = AgentManual.roff()
        for flag in AgentOptions.flags {
            for name in flag.names {
                let inUsage = usage.contains(name + " ") || usage.contains(name + ",") || usage.contains(name + "\n")
                let inManual = manual.contains("\\fB" + AgentManual.text(name) + "\\fR")
                #expect(inUsage == !flag.hidden, "\(name) in --help: \(inUsage)")
                #expect(inManual == !flag.hidden, "\(name) in stepd(8): \(inManual)")
            }
            if !flag.hidden {
                let firstWords = flag.help.split(separator: " ").prefix(3).joined(separator: " ")
                #expect(usage.contains(firstWords), "help of \(flag.synopsis) missing from --help")
                #expect(manual.contains(AgentManual.text(firstWords)), "help of \(flag.synopsis) missing from stepd(8)")
            }
        }
    }

    /// `--help` named $XDG_RUNTIME_DIR and ~/.local/state but not where the socket and the ledger
    /// go without them: /tmp/stepd-<uid>/. The paths it names are the ones the agent picks.
    @Test func helpAndManualNameTheTmpFallbackPaths() {
        let usage = AgentOptions.usage
        let manual = AgentManual.roff()
        let uid: UInt32 = 1234
        let socket = DefaultPaths.socketPath(environment: [:], uid: uid)
        let state = DefaultPaths.stateDirectory(environment: ["HOME": "/"], uid: uid)
        for (path, variables) in [(socket, ["$STEPD_SOCKET", "$XDG_RUNTIME_DIR"]), (state, ["$STEPD_STATE_DIR", "$XDG_STATE_HOME"])] {
            let shown = path.replacingOccurrences(of: "stepd-\(uid)", with: "stepd-<uid>")
            #expect(shown.hasPrefix("/tmp/stepd-<uid>/"), "\(path)")
            #expect(usage.contains(shown), "--help does not name \(shown)")
            #expect(manual.contains(AgentManual.text(shown)), "stepd(8) does not name \(shown)")
            for variable in variables { #expect(usage.contains(variable), "--help does not name \(variable)") }
        }
    }

    @Test func everyFlagIsUnderstoodByTheParser() {
        for flag in AgentOptions.flags {
            for name in flag.names {
                let outcome = AgentOptions.parse([name], defaultStateDirectory: "/s", defaultSocketPath: "/p")
                switch flag.action {
                case .set: #expect(outcome == .failure("\(name) needs a value"))
                case .toggle: if case .run = outcome {} else { Issue.record("\(name): \(outcome)") }
                case .help: #expect(outcome == .help)
                case .version: #expect(outcome == .version)
                case .manual: #expect(outcome == .manual)
                }
            }
        }
    }

    @Test func helpLinesFitAndManualIsWellFormed() {
        for line in AgentOptions.usage.split(separator: "\n") {
            #expect(line.count <= 100, "too long: \(line)")
        }
        let manual = AgentManual.roff(version: "9.9")
        #expect(manual.hasPrefix(".TH STEPD 8 \"\" \"stepd 9.9\""))
        for section in ["NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "FILES", "ENVIRONMENT", "EXIT STATUS", "SEE ALSO"] {
            #expect(manual.contains("\n.SH \(section)\n"), "no \(section)")
        }
        for status in AgentExitStatus.allCases {
            #expect(manual.contains(".TP\n\(status.rawValue)\n"))
        }
        // No text line may start with a control character it did not mean.
        for line in manual.split(separator: "\n") where line.hasPrefix("'") {
            Issue.record("line starts with a quote: \(line)")
        }
        #expect(AgentManual.text(".hidden -x \\") == "\\&.hidden \\-x \\e")
    }
}

@Suite struct JournalLoggerTests {
    @Test func journaldLinesCarryThePriorityPrefix() {
        let logger = JournalLogger(threshold: .debug, stderrIsTerminal: false)
        #expect(logger.line(.error, "sensor lost") == "<3>sensor lost")
        #expect(logger.line(.debug, "checkpoint") == "<7>checkpoint")
        #expect(logger.line(.warning, "two\nlines") == "<4>two | lines")
    }

    @Test func terminalLinesSpellTheLevel() {
        let logger = JournalLogger(threshold: .info, stderrIsTerminal: true)
        #expect(logger.line(.notice, "ready") == "stepd[notice]: ready")
    }
}

@Suite struct SystemdNotifierTests {
    @Test func watchdogIntervalFollowsEnvironment() {
        #expect(SystemdNotifier(environment: ["WATCHDOG_USEC": "4000000"]).watchdogInterval == 4)
        #expect(SystemdNotifier(environment: ["WATCHDOG_USEC": "4000000", "WATCHDOG_PID": "1"], pid: 2).watchdogInterval == nil)
        #expect(SystemdNotifier(environment: ["WATCHDOG_USEC": "4000000", "WATCHDOG_PID": "7"], pid: 7).watchdogInterval == 4)
        #expect(SystemdNotifier(environment: [:]).watchdogInterval == nil)
        #expect(!SystemdNotifier(environment: [:]).isActive)
    }

    @Test func abstractSocketNamesStartWithNul() throws {
        let address = try #require(SystemdNotifier.makeAddress("@stepd/notify"))
        let first = withUnsafeBytes(of: address.storage.sun_path) { $0[0] }
        #expect(first == 0)
        #expect(Int(address.length) == 2 + "@stepd/notify".utf8.count)
        #expect(SystemdNotifier.makeAddress(String(repeating: "x", count: 200)) == nil)
        let path = try #require(SystemdNotifier.makeAddress("/run/systemd/notify"))
        #expect(Int(path.length) == 2 + "/run/systemd/notify".utf8.count + 1)
    }
}

@Suite struct MetricsFormatTests {
    @Test func rendersEveryFleetMetric() {
        let snapshot = AgentSnapshot(
            boardName: "rpi \"zero\"",
            sensor: .init(model: .mpu6050, address: 0x68, bus: "/dev/i2c-1", health: .degraded, samples: 1200,
                          readErrors: 3, overflows: 1, reinits: 2, resetsDetected: 1, gaps: 1, effectiveRate: 40,
                          lastError: nil, rangeG: 4),
            stepsToday: 4321, stepsSinceStart: 99, distanceSinceStart: 70, activity: .init(kind: .walking, confidence: .high, start: 0),
            ledgerHealthState: "ok", ledgerRecords: 12, ledgerBytes: 2048, unsavedSteps: 7, lastCheckpointAge: 12.5,
            uptime: 60, clients: 2, recording: false)
        let text = MetricsFormat.render(snapshot)
        let lines = Set(text.split(separator: "\n").map(String.init))
        #expect(lines.contains("stepd_steps_today 4321"))
        #expect(lines.contains("stepd_sensor_health{state=\"degraded\"} 1"))
        #expect(lines.contains("stepd_sensor_health{state=\"ok\"} 0"))
        #expect(lines.contains("stepd_sensor_errors_total 3"))
        #expect(lines.contains("stepd_sensor_overflows_total 1"))
        #expect(lines.contains("stepd_sensor_reinits_total 2"))
        #expect(lines.contains("stepd_ledger_bytes 2048"))
        #expect(lines.contains("stepd_ledger_last_checkpoint_age_seconds 12.5"))
        #expect(text.contains("board=\"rpi \\\"zero\\\"\""))
        // Every sample line belongs to a metric announced by HELP and TYPE.
        for line in lines where !line.hasPrefix("#") {
            let name = String(line.prefix { $0 != "{" && $0 != " " })
            #expect(lines.contains { $0.hasPrefix("# TYPE \(name) ") }, "no TYPE for \(name)")
        }
        // "A documented example is a test": the metrics docs/operations.md lists are the ones written.
        let written = Set(lines.filter { $0.hasPrefix("# TYPE ") }.map { String($0.split(separator: " ")[2]) })
        #expect(written == documentedMetrics(), "written: \(written.sorted())")
    }

    /// The names in docs/operations.md's "Metrics:" list (`stepd_info{version,board,chip}`, ...).
    func documentedMetrics() -> Set<String> {
        let repository = String(#filePath.split(separator: "/").dropLast(3).joined(separator: "/"))
        guard let text = try? String(contentsOfFile: "/" + repository + "/docs/operations.md", encoding: .utf8),
              let list = text.components(separatedBy: "Metrics:").dropFirst().first?.components(separatedBy: "\n\n").first else { return [] }
        let items = list.components(separatedBy: "`").enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
        return Set(items.filter { $0.hasPrefix("stepd_") }.map { String($0.prefix { $0 != "{" }) })
    }
}

@Suite struct ExitStatusTests {
    /// The statuses stepd(8) says are not restarted are the unit's RestartPreventExitStatus=
    /// (docs/operations.md: 64 and 78), so a usage error such as --replay-speed with a real
    /// board stops the service instead of restarting it every few seconds.
    @Test func theUnitPreventsRestartsForTheStatusesSaidNotToRestart() throws {
        let repository = String(#filePath.split(separator: "/").dropLast(3).joined(separator: "/"))
        let unit = try String(contentsOfFile: "/" + repository + "/systemd/stepd.service", encoding: .utf8)
        let line = try #require(unit.split(separator: "\n").first { $0.hasPrefix("RestartPreventExitStatus=") })
        let prevented = Set(line.dropFirst("RestartPreventExitStatus=".count).split(separator: " ").compactMap { Int32($0) })
        let notRestarted = Set(AgentExitStatus.allCases.filter { $0.meaning.contains("Not restarted") }.map(\.rawValue))
        #expect(prevented == notRestarted && prevented == [64, 78], "\(prevented) vs \(notRestarted)")
    }
}

@Suite struct BuiltInBoardTests {
    /// Issue 12, defect 8: without --board or --simulate the agent must not fall back to the
    /// simulated sensor (it wrote fake steps into the real ledger as this device's).
    @Test func noBoardAndNoSimulationRefusesNamingBothFlags() {
        let options = AgentOptions(stateDirectory: "/s", socketPath: "/p")
        guard case .failure(let problem) = AgentLauncher.sensorPlan(options: options, defaultBoardPath: "/nonexistent/board.toml") else {
            Issue.record("ran without a board")
            return
        }
        #expect(problem.message.contains("--board"))
        #expect(problem.message.contains("--simulate"))
    }

    @Test func noFlagsUsesTheDefaultBoardFile() throws {
        let repository = String(#filePath.split(separator: "/").dropLast(3).joined(separator: "/"))
        let options = AgentOptions(stateDirectory: "/s", socketPath: "/p")
        guard case .success(let plan) = AgentLauncher.sensorPlan(options: options, defaultBoardPath: "/" + repository + "/boards/simulated.toml") else {
            Issue.record("default board not used")
            return
        }
        #expect(plan.boardFile == "/" + repository + "/boards/simulated.toml")
    }

    @Test func builtInBoardMatchesTheShippedFile() throws {
        var options = AgentOptions(stateDirectory: "/s", socketPath: "/p")
        options.simulateRecording = AgentLauncher.builtInSimulation
        guard case .success(let plan) = AgentLauncher.sensorPlan(options: options, defaultBoardPath: "/nonexistent/board.toml") else {
            Issue.record("built-in plan failed")
            return
        }
        #expect(plan.boardName == "simulated")
        #expect(plan.settings.chip == .mpu6050)
        #expect(plan.settings.address == 0x68)

        let repository = String(#filePath.split(separator: "/").dropLast(3).joined(separator: "/"))
        var shipped = try BoardLoader.load(path: "/" + repository + "/boards/simulated.toml")
        var builtIn = try BoardParser.parse(text: AgentLauncher.builtInBoardText, fileName: "<built-in simulated board>")
        shipped.source = ""
        builtIn.source = ""
        shipped.description = nil
        builtIn.description = nil
        #expect(shipped == builtIn)
    }
}

/// Log lines kept for a test to read.
final class CollectedLog: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [(LogLevel, String)] = []
    var logger: EventLogger { EventLogger { [self] level, message in lock.withLock { entries.append((level, message)) } } }
    var lines: [(LogLevel, String)] { lock.withLock { entries } }
}

@Suite struct RawCaptureTests {
    /// A capture on a full disk (its file is /dev/full here) logged the path twice, zlib's
    /// "<fd:6>" for the file, then "could not be finished: gzclose returned -1", and its sidecar
    /// called the cut-short file finished.
    @Test func aFullDiskStopsTheCaptureWithOneErrorAndAnIncompleteSidecar() throws {
        let directory = NSTemporaryDirectory() + "stepd-capture-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let wall = 1_795_519_845.0   // the file name follows from it: 20261124T113045Z-full
        let base = directory + "/20261124T113045Z-full"
        try FileManager.default.createSymbolicLink(atPath: base + ".csv.gz", withDestinationPath: "/dev/full")
        let log = CollectedLog()
        let capture = RawCapture(directory: directory, maxBytes: 1 << 30, logger: log.logger)
        let metadata = RawCapture.Metadata(board: "test", chip: "mpu6050", rateHz: 40, label: "full", agentVersion: "0")
        _ = try capture.start(minutes: 10, label: "full", metadata: metadata, monotonicNow: 0, wallNow: wall)
        var random = SystemRandomNumberGenerator()
        for second in 0..<600 where capture.isRecording {
            capture.append((0..<40).map { index in
                AccelSample(t: Double(second) + Double(index) / 40, x: .random(in: -2...2, using: &random),
                            y: .random(in: -2...2, using: &random), z: .random(in: -2...2, using: &random))
            })
        }
        #expect(!capture.isRecording)
        let errors = log.lines.filter { $0.0 == .error }.map(\.1)
        #expect(errors.count == 1, "\(errors)")
        let error = errors.first ?? ""
        #expect(error.contains("No space left on device (ENOSPC)") && !error.contains("<fd:"), "\(error)")
        #expect(error.components(separatedBy: base + ".csv.gz").count == 2, "the path once: \(error)")
        let sidecar = try JSONParser.parse(Array(try Data(contentsOf: URL(fileURLWithPath: base + ".json"))))
        #expect(sidecar["finished"] == false)
        #expect(sidecar["error"]?.stringValue?.contains("ENOSPC") == true, "\(sidecar.jsonText)")
    }
}

extension RawCaptureTests {
    /// The recordings cap was enforced only when a capture started and stopped, so a long capture
    /// grew past --recordings-max-mb. Now the oldest recordings make room while it runs, and a
    /// capture that alone would pass the cap stops there, saying why.
    @Test func aCaptureThatWouldPassTheCapStopsThere() throws {
        let directory = try makeTemporaryDirectory("stepd-capture")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let old = directory + "/20000101T000000Z-old"
        try Data(count: 300_000).write(to: URL(fileURLWithPath: old + ".csv.gz"))
        try Data("{}\n".utf8).write(to: URL(fileURLWithPath: old + ".json"))
        let cap = 1_048_576
        let log = CollectedLog()
        let capture = RawCapture(directory: directory, maxBytes: cap, logger: log.logger)
        let metadata = RawCapture.Metadata(board: "test", chip: "mpu6050", rateHz: 40, label: "long", agentVersion: "0")
        let file = try capture.start(minutes: 60, label: "long", metadata: metadata, monotonicNow: 0, wallNow: 1_795_519_845)
        var random = SystemRandomNumberGenerator()
        for second in 0..<3600 where capture.isRecording {
            capture.append((0..<40).map { index in
                AccelSample(t: Double(second) + Double(index) / 40, x: .random(in: -2...2, using: &random),
                            y: .random(in: -2...2, using: &random), z: .random(in: -2...2, using: &random))
            })
        }
        #expect(!capture.isRecording, "the capture ran on past the cap")
        #expect(!FileManager.default.fileExists(atPath: old + ".csv.gz") && !FileManager.default.fileExists(atPath: old + ".json"),
                "the older recording makes room first")
        let sizes = try FileManager.default.contentsOfDirectory(atPath: directory).map { name in
            (try FileManager.default.attributesOfItem(atPath: directory + "/" + name)[.size] as? Int) ?? 0
        }
        #expect(sizes.reduce(0, +) <= cap, "\(sizes)")
        #expect(sizes.reduce(0, +) > cap / 2, "stopped long before the cap: \(sizes)")
        let outcome = try #require(capture.lastOutcome)
        #expect(outcome.file == file && outcome.samples > 10_000)
        #expect(outcome.error?.contains("cap of 1 MB (stepd --recordings-max-mb)") == true, "\(String(describing: outcome.error))")
        #expect(log.lines.contains { $0.0 == .warning && $0.1.contains("would pass the recordings cap of 1 MB") }, "\(log.lines)")
        let sidecar = try JSONParser.parse(Array(try Data(contentsOf: URL(fileURLWithPath: String(file.dropLast(7)) + ".json"))))
        #expect(sidecar["finished"] == false && sidecar["error"]?.stringValue?.contains("cap") == true, "\(sidecar.jsonText)")
        // The file itself is whole: it was finished, not cut off by a failed write.
        #expect(try RecordingReader.read(path: file).count == outcome.samples)
    }
}

@Suite struct LocalTimeZoneNameTests {
    @Test func theNameIsGivenOnlyWhenItLoadsAsTheAgentsZone() {
        let berlin = LocalTimeZone.rule(environment: ["TZ": "Europe/Berlin"], logger: .silent)
        #expect(LocalTimeZone.name(of: berlin, environment: ["TZ": "Europe/Berlin"]) == "Europe/Berlin")
        #expect(LocalTimeZone.name(of: berlin, environment: ["TZ": ":Europe/Berlin"]) == "Europe/Berlin")
        // A zone that fell back to UTC (or any other mismatch) is not named after $TZ.
        #expect(LocalTimeZone.name(of: .utc, environment: ["TZ": "Europe/Berlin"]) == nil)
        #expect(LocalTimeZone.name(of: berlin, environment: ["TZ": "Mars/Olympus"]) == nil)
        // Without $TZ: the zone /etc/localtime links to, when it is such a link.
        let system = LocalTimeZone.rule(environment: [:], logger: .silent)
        let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/etc/localtime")) ?? ""
        let parts = target.split(separator: "/")
        let expected = parts.lastIndex(of: "zoneinfo").map { parts[($0 + 1)...].joined(separator: "/") }
        #expect(LocalTimeZone.name(of: system, environment: [:]) == expected, "/etc/localtime -> \(target)")
    }
}

@Suite struct OwnerRecordTests {
    let boot = "159dd004-4c42-4275-a069-d3f9173edcda"

    @Test func aRecordReadsBackAsWritten() {
        let record = OwnerRecord(pid: 4321, bootID: boot, startTime: 6_105_671)
        #expect(String(decoding: record.encoded, as: UTF8.self) == "stepd-owner 1\npid 4321\nboot \(boot)\nstart 6105671\n")
        #expect(OwnerRecord(parsing: record.encoded) == record)
    }

    @Test func anythingElseIsNoRecord() {
        let good = "stepd-owner 1\npid 4321\nboot \(boot)\nstart 6105671\n"
        for text in ["", "\n", String(good.dropLast()), String(good.prefix(20)), good + "x\n",
                     good.replacingOccurrences(of: "pid 4321", with: "pid -4"),
                     good.replacingOccurrences(of: "pid 4321", with: "pid 0"),
                     good.replacingOccurrences(of: "pid 4321", with: "pid "),
                     good.replacingOccurrences(of: "start 6105671", with: "start x"),
                     good.replacingOccurrences(of: "stepd-owner 1", with: "stepd-owner 2"),
                     good.replacingOccurrences(of: boot, with: "not a boot id")] {
            #expect(OwnerRecord(parsing: Array(text.utf8)) == nil, "\(text.debugDescription)")
        }
    }

    /// Field 22 counted from the last ')': a command name may hold spaces and parentheses.
    @Test func theStartTimeIsField22OfProcStat() {
        let tail = "S 1 1 1 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 6105671 1000 10 18446744073709551615"
        #expect(OwnerRecord.startTime(fromStat: "4321 (stepd) " + tail) == 6_105_671)
        #expect(OwnerRecord.startTime(fromStat: "4321 (a) b (c) ) " + tail) == 6_105_671)
        #expect(OwnerRecord.startTime(fromStat: "4321 (stepd) S 1 1") == nil)
        #expect(OwnerRecord.startTime(fromStat: "no parenthesis") == nil)
    }

    @Test func aRecordIsLiveOnlyForItsPidOnThisBootWithItsStartTime() {
        let record = OwnerRecord(pid: 4321, bootID: boot, startTime: 600)
        func judge(_ bytes: [UInt8]?, running: [Int32: UInt64], ownPID: Int32 = 99, bootID: String? = nil) -> OwnerVerdict {
            OwnerVerdict.judge(bytes, bootID: bootID ?? boot, ownPID: ownPID) { running[$0] }
        }
        #expect(judge(nil, running: [:]) == .absent)
        #expect(judge(Array("junk".utf8), running: [:]) == .garbage)
        #expect(judge(record.encoded, running: [4321: 600]) == .live(record))
        #expect(judge(record.encoded, running: [:]) == .stale(record, reason: "pid 4321 no longer runs"))
        #expect(judge(record.encoded, running: [4321: 601]) == .stale(record, reason: "pid 4321 is now another process"))
        #expect(judge(record.encoded, running: [4321: 600], bootID: "00000000-0000-0000-0000-000000000000")
                == .stale(record, reason: "written on an earlier boot"))
        #expect(judge(record.encoded, running: [4321: 600], ownPID: 4321) == .stale(record, reason: "its pid is this process's"))
    }
}
