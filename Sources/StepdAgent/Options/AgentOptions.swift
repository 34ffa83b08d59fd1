import Boards
import POSIXLayer
import ChipEmulation
import CivilTime
import StepProtocol
import StepdModel

/// Everything `stepd` can be told on its command line. Parsed by hand rather than with
/// ArgumentParser: that library links FoundationEssentials, which costs the daemon ~6 MB of RSS.
/// The flags themselves are one table, `AgentOptions.flags`, which parsing, `--help` and the
/// stepd(8) manual page all read, so the three cannot disagree.
public struct AgentOptions: Sendable, Equatable {
    public var boardPath: String?
    public var simulateRecording: String?
    public var simulateChip: ChipModel?
    public var replaySpeed: Double?
    /// `--simulate-start`: the agent's calendar begins at this instant (UTC seconds) and runs on
    /// the emulated chip's clock.
    public var simulatedStart: Double?
    public var stateDirectory: String
    public var socketPath: String
    public var socketGroup: String?
    public var adminGroup: String?
    public var logLevel: LogLevel = .info
    public var metricsDirectory: String?
    public var metricsInterval: Double = 15
    public var userHeight: Double?
    public var faultSchedule: FaultSchedule?
    /// The simulated chip's oscillator error (percent) and drift (percent per minute).
    public var sensorClockError: Double?
    public var sensorClockDrift: Double?
    public var retentionDays: Int = 365
    public var ledgerMaxMegabytes: Int = 64
    public var recordingsMaxMegabytes: Int = 256
    /// Validate the board (or recording) and exit, like `nginx -t`.
    public var checkOnly = false
    /// Test hook: after this many seconds the sampling loop hangs, so watchdog handling can be tested.
    public var stallAfter: Double?

    public init(stateDirectory: String, socketPath: String) {
        self.stateDirectory = stateDirectory
        self.socketPath = socketPath
    }

    public enum ParseOutcome: Equatable {
        case run(AgentOptions)
        case help
        case version
        case manual
        case failure(String)
    }

    /// What stepd does, the first paragraph of both `--help` and the manual page.
    public static let summary = """
        Runs the step and motion agent: samples the accelerometer, counts steps, classifies activity, \
        keeps the step ledger and answers clients on a Unix socket. With no --board or --simulate it \
        uses /etc/stepd/board.toml, and refuses to start when that file does not exist.
        """

    /// Every flag, in the order `--help` and the manual list them. Adding a flag is one entry here.
    public static let flags: [AgentFlag] = [
        .option("--board", "FILE", "Board file (see /usr/share/stepd/boards); selects bus, chip, range, axis remap.") {
            $0.boardPath = $1.text
        },
        .option("--simulate", "RECORDING", """
            Simulated board replaying RECORDING (t,x,y,z CSV, plain or gzip); "builtin" replays the \
            shipped walking recording (an emulated MPU-6050 unless --chip says otherwise).
            """) {
            $0.simulateRecording = $1.text
        },
        .option("--chip", ChipModel.allCases.map(\.rawValue).joined(separator: "|"),
                "Chip emulated by --simulate (default \(ChipModel.simulatedDefault.rawValue)).") {
            $0.simulateChip = try $1.converted(ChipModel.init(rawValue:), expecting: ChipModel.allCases.map(\.rawValue).joined(separator: " or "))
        },
        .option("--replay-speed", "N", """
            The emulated chip runs N times faster than real time, \(DecimalText.shortest(Board.replaySpeeds.lowerBound)) to \
            \(DecimalText.shortest(Board.replaySpeeds.upperBound)) as a board's replay_speed (default: the board's, else 1).
            """) {
            $0.replaySpeed = try $1.number(in: Board.replaySpeeds)
        },
        .option("--simulate-start", "TIME", """
            With a simulated sensor: the agent's clock starts at TIME (UTC seconds, or ISO-8601 with \
            Z or an offset, e.g. 2026-10-21T00:00:00Z) and runs at the replay speed, so days, DST \
            changes and retention pass as fast as the replay (scripts/soak).
            """) {
            guard let start = Double($1.text).flatMap({ $0.isFinite && $0 >= 0 && $0 < 253_402_300_800 ? $0 : nil })
                ?? LocalTime.parseISO8601($1.text, zone: .utc) else {
                throw ParseFailure("--simulate-start takes UTC seconds or an ISO-8601 time such as 2026-10-21T00:00:00Z, got '\($1.text)'")
            }
            $0.simulatedStart = start
        },
        .option("--state-dir", "DIR", "Ledger, recordings and metrics state (default: \(DefaultPaths.stateDirectoryRule)).") {
            $0.stateDirectory = $1.text
        },
        .option("--socket", "PATH", "Unix socket to serve (default: \(DefaultPaths.socketPathRule)).") {
            // Refused here, as a bad command line (64), not after the ledger was opened (73).
            guard UnixSocketAddress(path: $1.text) != nil else {
                throw ParseFailure("--socket takes a path of 1 to \(UnixSocketAddress.maxPathBytes) bytes, got \($1.text.utf8.count): choose a shorter one")
            }
            $0.socketPath = $1.text
        },
        .option("--socket-group", "NAME", "Group that owns the socket (mode 0660); default: the agent's group.") {
            $0.socketGroup = $1.text
        },
        .option("--admin-group", "NAME", "Members may call write methods (samples.*, ledger.ack, recording.*).") {
            $0.adminGroup = $1.text
        },
        .option("--log-level", "LEVEL", "error, warning, notice, info (default) or debug.") {
            $0.logLevel = try $1.converted(LogLevel.init(name:), expecting: "error, warning, notice, info or debug")
        },
        .option("--metrics-dir", "DIR", "Write stepd.prom there (node_exporter textfile collector format).") {
            $0.metricsDirectory = $1.text
        },
        .option("--metrics-interval", "S", "Seconds between metrics files (default 15).") {
            $0.metricsInterval = try $1.number(in: 1...86_400)
        },
        .option("--height", "M", "User height in metres for the stride model.") {
            $0.userHeight = try $1.number(in: WearerHeight.metres)
        },
        .option("--inject-faults", "SPEC", "Emulated chip faults, e.g. reset@30,nack@60x20 (see docs/hardware-path.md).") {
            // Parsed here, not when the sensor is built: a mistyped schedule is a command-line
            // error (exit 64), like any other flag value, not a broken board file (78).
            do {
                $0.faultSchedule = try FaultSchedule(parsing: $1.text)
            } catch {
                throw ParseFailure("--inject-faults: \(error)")
            }
        },
        .option("--sensor-clock-error", "PCT", "The emulated chip's oscillator is PCT percent fast (negative: slow), within ±15.") {
            $0.sensorClockError = try $1.number(in: -15...15)
        },
        .option("--sensor-clock-drift", "PCT", "The emulated oscillator's error changes by PCT percent per minute (held at ±15 %).") {
            $0.sensorClockDrift = try $1.number(in: -5...5)
        },
        .option("--retention-days", "N", "Keep synced ledger files this long (default 365).") {
            $0.retentionDays = try $1.whole(in: 1...36_500)
        },
        .option("--ledger-max-mb", "N", "Disk cap for ledger files (default 64).") {
            $0.ledgerMaxMegabytes = try $1.whole(in: 1...1_000_000)
        },
        .option("--recordings-max-mb", "N", "Disk cap for raw recordings (default 256); the oldest go first, and a capture that alone reaches it stops.") {
            $0.recordingsMaxMegabytes = try $1.whole(in: 1...1_000_000)
        },
        .toggle("--check", "Validate the board file or recording, print what would run, and exit.") {
            $0.checkOnly = true
        },
        .option("--test-stall-after", "S", "Test hook: the sampling loop hangs after S seconds, once the watchdog was pinged (watchdog tests).",
                hidden: true) { $0.stallAfter = try $1.number(in: 0...1_000_000) },
        AgentFlag(names: ["--print-manpage"], help: "Print the stepd(8) manual page (roff) and exit.", action: .manual),
        AgentFlag(names: ["--version"], help: "Print the version.", action: .version),
        AgentFlag(names: ["-h", "--help"], help: "Show this help.", action: .help),
    ]

    public static var usage: String {
        var lines = ["USAGE: stepd [options]", ""]
        lines += wrap(summary, width: 100)
        lines += ["", "OPTIONS:"]
        let column = 27
        for flag in flags where !flag.hidden {
            let label = "  " + flag.synopsis
            let help = wrap(flag.help, width: 100 - column)
            let first = label.count < column - 1
                ? label + String(repeating: " ", count: column - label.count) + (help.first ?? "")
                : label
            lines.append(first)
            let rest = label.count < column - 1 ? help.dropFirst() : help[...]
            lines += rest.map { String(repeating: " ", count: column) + $0 }
        }
        return lines.joined(separator: "\n")
    }

    /// Parses `arguments` (without the program name). `defaults` supplies the state directory and
    /// socket path that apply when the flags are absent, so this stays free of environment reads.
    public static func parse(_ arguments: [String], defaultStateDirectory: String, defaultSocketPath: String)
        -> ParseOutcome
    {
        var options = AgentOptions(stateDirectory: defaultStateDirectory, socketPath: defaultSocketPath)
        var index = 0
        while index < arguments.count {
            var argument = arguments[index]
            var inline: String?
            // Accept --flag=value as well as --flag value.
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                inline = String(argument[argument.index(after: equals)...])
                argument = String(argument[..<equals])
            }
            guard let flag = flags.first(where: { $0.names.contains(argument) }) else {
                let what = argument.hasPrefix("-") ? "unknown option '\(argument)'" : "unexpected argument '\(argument)'"
                return .failure("\(what) (see stepd --help)")
            }
            switch flag.action {
            case .help: return .help
            case .version: return .version
            case .manual: return .manual
            case .toggle(let apply):
                if inline != nil { return .failure("\(argument) takes no value") }
                apply(&options)
            case .set(let apply):
                let text: String
                if let inline {
                    text = inline
                } else {
                    guard index + 1 < arguments.count else { return .failure("\(argument) needs a value") }
                    index += 1
                    text = arguments[index]
                }
                // An empty value is almost always an unset shell variable ("--state-dir $DIR"):
                // taken as is, "" + "/ledger" would put the ledger (or the metrics) at the root.
                guard !text.isEmpty else { return .failure("\(argument) needs a value, got an empty one") }
                do {
                    try apply(&options, FlagValue(flag: argument, text: text))
                } catch let failure as ParseFailure {
                    return .failure(failure.message)
                } catch {
                    return .failure("\(argument): \(error)")
                }
            }
            index += 1
        }
        if options.boardPath != nil, options.simulateRecording != nil {
            return .failure("--board and --simulate exclude each other: --simulate replaces the board with a simulated one")
        }
        if options.simulatedStart != nil, options.boardPath != nil {
            return .failure("--simulate-start applies to --simulate or the built-in simulated board: a real sensor runs on the real clock")
        }
        if options.simulateChip != nil, options.boardPath != nil {
            return .failure("--chip applies to --simulate or the built-in simulated board; a board file names its chip")
        }
        return .run(options)
    }
}

extension AgentOptions {
    /// These options with every relative path made absolute against `workingDirectory`. The
    /// agent reports its paths (`status` shows the state directory, the log the socket) to
    /// clients that run elsewhere: `stepctl bundle` from another folder packed an empty one when
    /// `--state-dir state` came back as "state". "builtin" names no file and stays as it is.
    public func resolvingPaths(against workingDirectory: String) -> AgentOptions {
        func absolute(_ path: String) -> String {
            if path.hasPrefix("/") { return path }
            var relative = Substring(path)
            while relative.hasPrefix("./") { relative = relative.dropFirst(2).drop { $0 == "/" } }
            let base = workingDirectory.hasSuffix("/") ? String(workingDirectory.dropLast()) : workingDirectory
            if relative.isEmpty || relative == "." { return base.isEmpty ? "/" : base }
            return base + "/" + relative
        }
        var resolved = self
        resolved.stateDirectory = absolute(stateDirectory)
        resolved.metricsDirectory = metricsDirectory.map(absolute)
        resolved.boardPath = boardPath.map(absolute)
        if let recording = simulateRecording, recording != AgentLauncher.builtInSimulation {
            resolved.simulateRecording = absolute(recording)
        }
        // A socket path is bound to a sockaddr_un of 108 bytes: a relative one that fits may not
        // once the folder is prefixed. It then stays relative, which binds the same file, as the
        // agent never changes its working directory.
        let socket = absolute(socketPath)
        if UnixSocketAddress(path: socket) != nil { resolved.socketPath = socket }
        return resolved
    }
}

/// One flag of stepd's command line: its names, its value, its help and what it does.
public struct AgentFlag: Sendable {
    public enum Action: Sendable {
        /// Takes a value (`--flag VALUE` or `--flag=VALUE`).
        case set(@Sendable (inout AgentOptions, FlagValue) throws -> Void)
        /// Takes none.
        case toggle(@Sendable (inout AgentOptions) -> Void)
        case help, version, manual
    }

    public let names: [String]
    /// The value's placeholder in help and manual (`FILE`); nil for flags without a value.
    public let valueName: String?
    public let help: String
    /// Test hooks: parsed, but neither in `--help` nor in the manual.
    public let hidden: Bool
    public let action: Action

    public init(names: [String], valueName: String? = nil, help: String, hidden: Bool = false, action: Action) {
        self.names = names
        self.valueName = valueName
        self.help = help
        self.hidden = hidden
        self.action = action
    }

    static func option(_ name: String, _ valueName: String, _ help: String, hidden: Bool = false,
                       _ apply: @escaping @Sendable (inout AgentOptions, FlagValue) throws -> Void) -> AgentFlag
    {
        AgentFlag(names: [name], valueName: valueName, help: help, hidden: hidden, action: .set(apply))
    }

    static func toggle(_ name: String, _ help: String, _ apply: @escaping @Sendable (inout AgentOptions) -> Void) -> AgentFlag {
        AgentFlag(names: [name], help: help, action: .toggle(apply))
    }

    /// `-h, --help` or `--board FILE`, as the help column shows it.
    public var synopsis: String {
        names.joined(separator: ", ") + (valueName.map { " " + $0 } ?? "")
    }
}

/// A flag's value as typed, with the conversions the table uses; errors name the flag.
public struct FlagValue: Sendable {
    public let flag: String
    public let text: String

    func number(in range: ClosedRange<Double>) throws(ParseFailure) -> Double {
        guard let parsed = Double(text), parsed.isFinite, range.contains(parsed) else {
            throw ParseFailure("\(flag) takes a number from \(DecimalText.shortest(range.lowerBound)) to \(DecimalText.shortest(range.upperBound)), got '\(text)'")
        }
        return parsed
    }

    func whole(in range: ClosedRange<Int>) throws(ParseFailure) -> Int {
        Int(try number(in: Double(range.lowerBound)...Double(range.upperBound)))
    }

    func converted<Value>(_ convert: (String) -> Value?, expecting: String) throws(ParseFailure) -> Value {
        guard let value = convert(text) else { throw ParseFailure("\(flag) takes \(expecting), got '\(text)'") }
        return value
    }
}

public struct ParseFailure: Error {
    public let message: String
    init(_ message: String) { self.message = message }
}


/// Greedy word wrap; a single word longer than `width` gets a line of its own.
func wrap(_ text: String, width: Int) -> [String] {
    var lines: [String] = []
    var line = ""
    for word in text.split(separator: " ") {
        if line.isEmpty {
            line = String(word)
        } else if line.count + 1 + word.count <= width {
            line += " " + word
        } else {
            lines.append(line)
            line = String(word)
        }
    }
    if !line.isEmpty { lines.append(line) }
    return lines
}
