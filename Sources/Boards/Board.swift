import StepdModel

/// What a board file describes: where the accelerometer is and how it is mounted.
public struct Board: Sendable, Equatable {
    public enum Bus: Sendable, Equatable {
        /// An emulated chip replaying a recording.
        case simulated
        /// A Linux i2c-dev node such as /dev/i2c-1.
        case linux(path: String)
    }

    public struct DataReadyLine: Sendable, Equatable {
        /// "gpiochip0" or a /dev/gpiochipN path.
        public var chip: String
        public var line: Int
        public init(chip: String, line: Int) {
            self.chip = chip
            self.line = line
        }
    }

    /// i2c-dev's I2C_MINORS (MINORMASK + 1): adapters numbered from here on get no /dev/i2c-N.
    public static let i2cAdapterLimit = 1 << 20

    public var name: String
    public var description: String?
    public var bus: Bus
    /// nil on a real bus: probe both chips. A simulated board defaults to the MPU-6050.
    public var chip: ChipModel?
    public var address: UInt8?
    public var rangeG: Int
    public var axisRemap: AxisRemap
    public var dataReady: DataReadyLine?
    /// Simulated boards: the recording, resolved against the board file's folder; nil = the
    /// embedded default recording.
    public var recording: String?
    /// The line of `recording` in the board file, for errors found when it is read.
    public var recordingLine: Int?
    /// Simulated boards: how much faster than real time the chip runs, within `replaySpeeds`.
    public var replaySpeed: Double?
    public var burstInterval: Double?
    /// The file the board came from ("<text>" when parsed from a string).
    public var source: String

    public init(name: String, description: String? = nil, bus: Bus, chip: ChipModel? = nil, address: UInt8? = nil,
                rangeG: Int = 4, axisRemap: AxisRemap = .identity, dataReady: DataReadyLine? = nil,
                recording: String? = nil, replaySpeed: Double? = nil, burstInterval: Double? = nil,
                source: String = "<built-in>", recordingLine: Int? = nil) {
        self.name = name
        self.description = description
        self.bus = bus
        self.chip = chip
        self.address = address
        self.rangeG = rangeG
        self.axisRemap = axisRemap
        self.dataReady = dataReady
        self.recording = recording
        self.replaySpeed = replaySpeed
        self.burstInterval = burstInterval
        self.source = source
        self.recordingLine = recordingLine
    }

    public var isSimulated: Bool { bus == .simulated }

    /// The speeds a simulated chip replays at, for the board file's `replay_speed` and `stepd
    /// --replay-speed` alike (the file took (0, 1000] and the flag 0.01-10000, so a speed that
    /// ran from the command line was refused in the board). 0.01 is the nearly still sensor of
    /// docs/protocol.md's examples; 10000 leaves room above scripts/soak's week at 1000x.
    public static let replaySpeeds: ClosedRange<Double> = 0.01...10_000

    /// The bus as written in the file.
    public var busName: String {
        switch bus {
        case .simulated: return "simulated"
        case .linux(let path): return path
        }
    }
}

/// A board file problem: where, which key, what is allowed.
public struct BoardError: Error, Sendable, Equatable, CustomStringConvertible {
    public var file: String
    public var line: Int?
    public var key: String?
    public var message: String

    public init(file: String, line: Int?, key: String?, message: String) {
        self.file = file
        self.line = line
        self.key = key
        self.message = message
    }

    public var description: String {
        var text = file
        if let line { text += ":\(line)" }
        text += ": "
        if let key { text += "\(key): " }
        return text + message
    }
}
