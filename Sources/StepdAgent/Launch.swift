import Boards
import CStepdShim
import ChipEmulation
import CivilTime
import Glibc
import LedgerStore
import RPCDispatch
import POSIXLayer
import Recordings
import SensorChips
import StepProtocol
import StepSocket
import StepdModel

/// Exit statuses from sysexits.h, so a unit can tell a bad configuration (do not restart) from a
/// crash (restart): the service file sets `RestartPreventExitStatus=64 78`.
public enum AgentExitStatus: Int32, CaseIterable, Sendable {
    case success = 0
    case failure = 1
    case usage = 64
    case cannotCreate = 73
    case configuration = 78

    /// What the status tells an operator (listed in stepd(8)).
    public var meaning: String {
        switch self {
        case .success: return "Stopped by SIGTERM, SIGINT or SIGPWR, or --check, --help, --version found nothing wrong."
        case .failure: return "An unexpected failure; systemd restarts the service."
        case .usage: return "Bad command line (EX_USAGE); the message names the flag. Not restarted."
        case .cannotCreate: return "The state directory, ledger or socket could not be created or opened, or another stepd runs on the state directory (EX_CANTCREAT); the message names it."
        case .configuration: return "Bad board file or recording, no board file at all, or a --socket-group or --admin-group that does not exist (EX_CONFIG); the message says what to fix. Not restarted."
        }
    }
}

/// Turns a command line into a running agent, or into one error line that says what to fix.
public enum AgentLauncher {
    public static func main(arguments: [String], environment: [String: String]) -> Int32 {
        let uid = getuid()
        let outcome = AgentOptions.parse(
            arguments,
            defaultStateDirectory: DefaultPaths.stateDirectory(environment: environment, uid: uid),
            defaultSocketPath: DefaultPaths.socketPath(environment: environment, uid: uid))
        let options: AgentOptions
        switch outcome {
        case .help:
            print(AgentOptions.usage)
            return AgentExitStatus.success.rawValue
        case .version:
            print("stepd \(Agent.version)")
            return AgentExitStatus.success.rawValue
        case .manual:
            print(AgentManual.roff(), terminator: "")
            return AgentExitStatus.success.rawValue
        case .failure(let message):
            fail("\(message)")
            return AgentExitStatus.usage.rawValue
        case .run(let parsed):
            guard let workingDirectory = currentDirectory() else {
                fail("cannot read the current directory: \(Errno(errno)) (start stepd from a folder that exists)")
                return AgentExitStatus.failure.rawValue
            }
            options = parsed.resolvingPaths(against: workingDirectory)
        }

        let journal = JournalLogger(threshold: options.logLevel)
        let logger = journal.eventLogger

        let plan: SensorPlan
        switch sensorPlan(options: options, defaultBoardPath: defaultBoardPath) {
        case .success(let made): plan = made
        case .failure(let problem):
            logger.error(problem.message)
            return problem.status.rawValue
        }

        if options.simulatedStart != nil, !plan.isSimulated {
            logger.error("--simulate-start applies to a simulated sensor only: \(plan.boardFile ?? "the board") is a real sensor, which runs on the real clock; drop it or pass --simulate builtin|RECORDING")
            return AgentExitStatus.usage.rawValue
        }

        // Before --check answers, so a group that does not exist fails the check (scripts/install
        // runs it first) instead of the start after it.
        var unknownGroup: String?
        func groupID(_ name: String?, flag: String) -> UInt32? {
            guard let name, unknownGroup == nil else { return nil }
            guard let gid = SystemGroupLookup.groupID(named: name) else {
                unknownGroup = "\(flag) \(name): no such group (create it or pass another)"
                return nil
            }
            return gid
        }
        let socketGroup = groupID(options.socketGroup, flag: "--socket-group")
        let adminGroup = groupID(options.adminGroup, flag: "--admin-group")
        if let unknownGroup {
            logger.error(unknownGroup)
            return AgentExitStatus.configuration.rawValue
        }

        if options.checkOnly {
            print("ok: board \(plan.boardName)\(plan.boardFile.map { " (\($0))" } ?? ""), \(plan.describeSource())")
            return AgentExitStatus.success.rawValue
        }

        do throws(FileSystemError) {
            try FileSystem.makeDirectories(options.stateDirectory)
        } catch {
            logger.error("cannot create the state directory \(options.stateDirectory): \(Errno(error.errno)) (pass --state-dir DIR or fix its permissions)")
            return AgentExitStatus.cannotCreate.rawValue
        }
        let socketDirectory = FileSystem.parent(of: options.socketPath)
        do throws(FileSystemError) {
            try FileSystem.makeDirectories(socketDirectory)
        } catch {
            logger.error("cannot create the socket directory \(socketDirectory): \(Errno(error.errno)) (pass --socket PATH)")
            return AgentExitStatus.cannotCreate.rawValue
        }

        // Before the ledger is opened: its recovery would cut the tail another agent is writing.
        let owner: StateDirectoryOwner?
        switch StateDirectoryOwner.claim(stateDirectory: options.stateDirectory, logger: logger) {
        case .claimed(let claimed):
            owner = claimed
        case .unrecorded(let reason):
            logger.warning("cannot record this agent as the state directory's owner (\(reason)); running without the one-agent check")
            owner = nil
        case .taken(let other):
            logger.error("another stepd (pid \(other.pid)) is using the state directory \(options.stateDirectory): stop that one or pass another --state-dir")
            return AgentExitStatus.cannotCreate.rawValue
        }
        defer { owner?.release(logger: logger) }

        var ledgerOptions = LedgerOptions()
        // Steps from a simulated sensor are not this device's: they go under their own source,
        // so a simulated run never adds to (or is merged as) the device's real history.
        if plan.isSimulated { ledgerOptions.deviceSourceId = simulatedSourceId }
        ledgerOptions.retentionDays = options.retentionDays
        ledgerOptions.diskCapBytes = options.ledgerMaxMegabytes << 20
        ledgerOptions.hardDiskCapBytes = max(ledgerOptions.diskCapBytes * 2, ledgerOptions.hardDiskCapBytes)
        let localTimeZone = LocalTimeZone.rule(environment: environment, logger: logger)
        ledgerOptions.timeZone = localTimeZone
        let ledger: LedgerService
        do {
            ledger = try LedgerService(stateDirectory: options.stateDirectory, options: ledgerOptions, logger: logger)
        } catch {
            logger.error("cannot open the ledger in \(options.stateDirectory): \(error)")
            return AgentExitStatus.cannotCreate.rawValue
        }

        // Scanning a year of ledger files allocates several times what the ledger keeps, and glibc
        // keeps freed heap pages resident: hand them back once (measured: ~4.6 MB of RSS).
        _ = stepd_release_free_memory()

        let signals: SignalDescriptor
        do {
            signals = try SignalDescriptor(signals: AgentSignals.numbers)
        } catch {
            logger.error("\(error)")
            return AgentExitStatus.failure.rawValue
        }

        let sensor = SensorPath(plan: plan, logger: logger)
        logger.info("sensor: \(sensor.description)")
        var wallClock = AgentWallClock.real
        if let start = options.simulatedStart {
            wallClock = .simulated(startingAt: start, following: sensor.clock)
            logger.notice("clock: simulated, from \(LocalTime(utc: start, zone: .utc)?.text(.iso8601) ?? String(start)) at \(sensor.speed)x (--simulate-start); the ledger is stamped on it")
        }
        let metrics = options.metricsDirectory.map { MetricsTextfile(directory: $0, logger: logger) }
        let agent = Agent(options: options, logger: logger, notifier: SystemdNotifier(environment: environment),
                          sensor: sensor, ledger: ledger, localTimeZone: localTimeZone, signals: signals,
                          metrics: metrics, wallClock: wallClock)

        do {
            let server = try RPCServer(
                options: UnixSocketServerOptions(path: options.socketPath, groupID: socketGroup),
                service: AgentService(agent: agent),
                permissions: PermissionPolicy(agentUID: uid, adminGroupID: adminGroup),
                logger: logger)
            server.wallClock = { wallClock.now() }
            agent.attach(server: server)
        } catch {
            logger.error("cannot serve \(options.socketPath): \(error)")
            return AgentExitStatus.cannotCreate.rawValue
        }
        return agent.run()
    }

    /// Why no sensor plan could be made: a bad board file or recording (78), or a flag that
    /// does not fit the board (64: the command line is what to change, as for any bad flag).
    struct PlanProblem: Error {
        let message: String
        var status: AgentExitStatus = .configuration
    }

    /// The board used when neither --board nor --simulate is given (scripts/install puts it there).
    public static let defaultBoardPath = "/etc/stepd/board.toml"
    /// `--simulate builtin`: the built-in simulated board replaying the embedded recording.
    public static let builtInSimulation = "builtin"
    /// The detector source id of simulated runs (`detector:simulated`).
    public static let simulatedSourceId = "simulated"

    /// The sensor source from `--simulate`, `--board`, or else `defaultBoardPath`; without any
    /// of them the agent refuses to start rather than count simulated steps as real ones.
    static func sensorPlan(options: AgentOptions, defaultBoardPath: String) -> Result<SensorPlan, PlanProblem> {
        let faults = options.faultSchedule
        if let recording = options.simulateRecording, recording != builtInSimulation {
            let samples: [AccelSample]
            do {
                samples = try RecordingReader.readReplayable(path: recording)
            } catch {
                return .failure(PlanProblem(message: "--simulate: \(error)"))
            }
            let chip = options.simulateChip ?? .simulatedDefault
            return .success(SensorPlan(
                boardName: "simulated \(chip.rawValue)", boardFile: nil,
                source: .simulated(model: chip, samples: samples, recordingName: recording,
                                   speed: options.replaySpeed ?? 1, faults: faults),
                settings: SensorSettings(chip: chip), clockErrorPercent: options.sensorClockError ?? 0,
                clockDriftPercentPerMinute: options.sensorClockDrift ?? 0))
        }
        if options.simulateRecording == nil {
            let path = options.boardPath ?? defaultBoardPath
            guard options.boardPath != nil || access(defaultBoardPath, F_OK) == 0 else {
                return .failure(PlanProblem(message: "no sensor configured: \(defaultBoardPath) does not exist; pass --board FILE for a real sensor (scripts/install puts one there) or --simulate builtin|RECORDING for a simulated one"))
            }
            let board: Board
            do {
                board = try BoardLoader.load(path: path)
            } catch {
                return .failure(PlanProblem(message: "\(error)"))
            }
            return plan(for: board, file: path, options: options, faults: faults)
        }
        let builtIn: Board
        do {
            builtIn = try BoardParser.parse(text: builtInBoardText, fileName: "<built-in simulated board>")
        } catch {
            return .failure(PlanProblem(message: "the built-in board does not parse: \(error)"))
        }
        return plan(for: builtIn, file: nil, options: options, faults: faults)
    }

    /// The board of `--simulate builtin`; the same as
    /// boards/simulated.toml (a test holds them equal), so the agent runs from any directory.
    static let builtInBoardText = """
        name = "simulated"
        description = "Emulated MPU-6050 at 0x68 replaying the embedded walking recording"
        bus = "simulated"
        chip = "mpu6050"
        address = 0x68
        range_g = 4
        replay_speed = 1.0
        burst_interval_s = 1.0
        """

    static func plan(for board: Board, file: String?, options: AgentOptions, faults: FaultSchedule?)
        -> Result<SensorPlan, PlanProblem>
    {
        let settings = SensorSettings(chip: board.chip, address: board.address, rangeG: board.rangeG,
                                      axisRemap: board.axisRemap, burstInterval: board.burstInterval)
        // BoardParser has held burst_interval_s to the chip's table; a simulated chip other than
        // the board's gets its own default below.
        switch board.bus {
        case .simulated:
            var samples = EmbeddedRecording.samples
            var name = "the embedded walking recording"
            if let recording = board.recording {
                // Named like BoardParser's errors (file:line: key: ...), with what to change.
                let place = (file ?? "board") + (board.recordingLine.map { ":\($0)" } ?? "") + ": recording"
                do {
                    samples = try RecordingReader.readReplayable(path: recording)
                    name = recording
                } catch {
                    return .failure(PlanProblem(message: "\(place): \(error); fix the file or the path (a relative path is relative to the board file's folder)"))
                }
            }
            let chip = options.simulateChip ?? board.chip ?? .simulatedDefault
            var simulated = settings
            if chip != board.chip {
                // The board's burst interval and address were chosen for its own chip (the
                // LIS3DH FIFO holds 0.64 s, the MPU-6050's 4 s): let the driver pick for this one.
                simulated.burstInterval = nil
                simulated.address = nil
            }
            simulated.chip = chip
            return .success(SensorPlan(
                boardName: board.name, boardFile: file,
                source: .simulated(model: chip, samples: samples, recordingName: name,
                                   speed: options.replaySpeed ?? board.replaySpeed ?? 1, faults: faults),
                settings: simulated, clockErrorPercent: options.sensorClockError ?? 0,
                clockDriftPercentPerMinute: options.sensorClockDrift ?? 0))
        case .linux(let devicePath):
            // Flags meant for an emulated chip: the command line is wrong, not the board (64).
            let realSensor = "\(file ?? "the board") is a real sensor on \(devicePath)"
            let remedy = "drop it, or pass --simulate builtin|RECORDING for a simulated sensor"
            if options.replaySpeed != nil {
                return .failure(PlanProblem(message: "--replay-speed applies to simulated sensors only: \(realSensor), which runs in real time; \(remedy)", status: .usage))
            }
            if faults != nil {
                return .failure(PlanProblem(message: "--inject-faults works only with a simulated sensor: \(realSensor); \(remedy)", status: .usage))
            }
            if options.sensorClockError != nil || options.sensorClockDrift != nil {
                return .failure(PlanProblem(message: "--sensor-clock-error and --sensor-clock-drift work only with a simulated sensor: \(realSensor), which has its own clock; \(remedy)", status: .usage))
            }
            return .success(SensorPlan(
                boardName: board.name, boardFile: file,
                source: .linux(devicePath: devicePath, dataReady: board.dataReady.map { ($0.chip, $0.line) }),
                settings: settings))
        }
    }

    /// getcwd(3); nil when the folder was removed or its path does not fit PATH_MAX.
    private static func currentDirectory() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func fail(_ message: String) {
        try? FileDescriptor(borrowing: STDERR_FILENO).writeAll(Array("stepd: \(message)\n".utf8))
    }
}
