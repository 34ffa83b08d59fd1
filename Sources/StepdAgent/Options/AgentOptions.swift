import StepdModel

/// Everything `stepd` can be told on its command line. Parsed by hand rather than with
/// ArgumentParser: that library links FoundationEssentials, which costs the daemon ~6 MB of RSS.
public struct AgentOptions: Sendable, Equatable {
    public var boardPath: String?
    public var simulateRecording: String?
    public var simulateChip: ChipModel?
    public var replaySpeed: Double?
    public var stateDirectory: String
    public var socketPath: String
    public var socketGroup: String?
    public var adminGroup: String?
    public var logLevel: LogLevel = .info
    public var metricsDirectory: String?
    public var metricsInterval: Double = 15
    public var userHeight: Double?
    public var faultSchedule: String?
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
        case failure(String)
    }

    public static let usage = """
    USAGE: stepd [options]

    Runs the step and motion agent: samples the accelerometer, counts steps, classifies activity,
    keeps the step ledger and answers clients on a Unix socket. With no --board or --simulate it
    uses /etc/stepd/board.toml, and refuses to start when that file does not exist.

    OPTIONS:
      --board FILE             Board file (see boards/); selects bus, chip, range, axis remap.
      --simulate RECORDING     Simulated board replaying RECORDING (t,x,y,z CSV, plain or gzip);
                               "builtin" replays the shipped walking recording.
      --chip mpu6050|lis3dh    Chip emulated by --simulate (default mpu6050).
      --replay-speed N         The emulated chip runs N times faster than real time (default 1).
      --state-dir DIR          Ledger, recordings and metrics state (default: $STATE_DIRECTORY,
                               /var/lib/stepd as root, else ~/.local/state/stepd).
      --socket PATH            Unix socket to serve (default: $RUNTIME_DIRECTORY/stepd.sock,
                               /run/stepd/stepd.sock as root, else $XDG_RUNTIME_DIR/stepd/stepd.sock).
      --socket-group NAME      Group that owns the socket (mode 0660); default: the agent's group.
      --admin-group NAME       Members may call write methods (samples.*, ledger.ack, recording.*).
      --log-level LEVEL        error, warning, notice, info (default) or debug.
      --metrics-dir DIR        Write stepd.prom there (node_exporter textfile collector format).
      --metrics-interval S     Seconds between metrics files (default 15).
      --height M               User height in metres for the stride model.
      --inject-faults SPEC     Emulated chip faults, e.g. reset@30,nack@60x20 (see docs/hardware-path.md).
      --retention-days N       Keep synced ledger files this long (default 365).
      --ledger-max-mb N        Disk cap for ledger files (default 64).
      --recordings-max-mb N    Disk cap for raw recordings (default 256).
      --check                  Validate the board file or recording, print what would run, and exit.
      --version                Print the version.
      -h, --help               Show this help.
    """

    /// Parses `arguments` (without the program name). `defaults` supplies the state directory and
    /// socket path that apply when the flags are absent, so this stays free of environment reads.
    public static func parse(_ arguments: [String], defaultStateDirectory: String, defaultSocketPath: String)
        -> ParseOutcome
    {
        var options = AgentOptions(stateDirectory: defaultStateDirectory, socketPath: defaultSocketPath)
        var index = 0

        func value(_ flag: String) -> Result<String, ParseFailure> {
            guard index + 1 < arguments.count else { return .failure(ParseFailure("\(flag) needs a value")) }
            index += 1
            return .success(arguments[index])
        }
        func number(_ flag: String, _ text: String, range: ClosedRange<Double>) -> Result<Double, ParseFailure> {
            guard let parsed = Double(text), parsed.isFinite, range.contains(parsed) else {
                return .failure(ParseFailure("\(flag) takes a number from \(format(range.lowerBound)) to \(format(range.upperBound)), got '\(text)'"))
            }
            return .success(parsed)
        }

        while index < arguments.count {
            var argument = arguments[index]
            // Accept --flag=value as well as --flag value.
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                let flag = String(argument[..<equals])
                let inline = String(argument[argument.index(after: equals)...])
                var rewritten = arguments
                rewritten.replaceSubrange(index...index, with: [flag, inline])
                return parse(rewritten, defaultStateDirectory: defaultStateDirectory, defaultSocketPath: defaultSocketPath)
            }
            do {
                switch argument {
                case "-h", "--help": return .help
                case "--version": return .version
                case "--check": options.checkOnly = true
                case "--board": options.boardPath = try value(argument).get()
                case "--simulate": options.simulateRecording = try value(argument).get()
                case "--chip":
                    let text = try value(argument).get()
                    guard let chip = ChipModel(rawValue: text) else {
                        return .failure("--chip takes mpu6050 or lis3dh, got '\(text)'")
                    }
                    options.simulateChip = chip
                case "--replay-speed":
                    options.replaySpeed = try number(argument, value(argument).get(), range: 0.01...10_000).get()
                case "--state-dir": options.stateDirectory = try value(argument).get()
                case "--socket": options.socketPath = try value(argument).get()
                case "--socket-group": options.socketGroup = try value(argument).get()
                case "--admin-group": options.adminGroup = try value(argument).get()
                case "--log-level":
                    let text = try value(argument).get()
                    guard let level = LogLevel(name: text) else {
                        return .failure("--log-level takes error, warning, notice, info or debug, got '\(text)'")
                    }
                    options.logLevel = level
                case "--metrics-dir": options.metricsDirectory = try value(argument).get()
                case "--metrics-interval":
                    options.metricsInterval = try number(argument, value(argument).get(), range: 1...86_400).get()
                case "--height": options.userHeight = try number(argument, value(argument).get(), range: 0.5...2.5).get()
                case "--inject-faults": options.faultSchedule = try value(argument).get()
                case "--retention-days":
                    options.retentionDays = Int(try number(argument, value(argument).get(), range: 1...36_500).get())
                case "--ledger-max-mb":
                    options.ledgerMaxMegabytes = Int(try number(argument, value(argument).get(), range: 1...1_000_000).get())
                case "--recordings-max-mb":
                    options.recordingsMaxMegabytes = Int(try number(argument, value(argument).get(), range: 1...1_000_000).get())
                case "--test-stall-after":
                    options.stallAfter = try number(argument, value(argument).get(), range: 0...1_000_000).get()
                default:
                    argument = argument.hasPrefix("-") ? "unknown option '\(argument)'" : "unexpected argument '\(argument)'"
                    return .failure("\(argument) (see stepd --help)")
                }
            } catch {
                return .failure(error.message)
            }
            index += 1
        }
        if options.boardPath != nil, options.simulateRecording != nil {
            return .failure("--board and --simulate exclude each other: --simulate replaces the board with a simulated one")
        }
        if options.simulateChip != nil, options.boardPath != nil {
            return .failure("--chip applies to --simulate or the built-in simulated board; a board file names its chip")
        }
        return .run(options)
    }
}

struct ParseFailure: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

private func format(_ value: Double) -> String {
    value == value.rounded() ? String(Int(value)) : String(value)
}
