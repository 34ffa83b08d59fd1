import Glibc
import POSIXLayer
import StepdModel

/// Board files: parse and validate (pure).
public enum BoardParser {
    public static let allowedKeys = [
        "name", "description", "bus", "chip", "address", "range_g", "axis_remap", "data_ready_chip",
        "data_ready_line", "recording", "replay_speed", "burst_interval_s",
    ]

    /// Parses `text`; `fileName` names the file in errors and is the base of a relative
    /// `recording` path.
    public static func parse(text: String, fileName: String) throws(BoardError) -> Board {
        let entries = try TOMLSubsetParser.parse(text: text, fileName: fileName)
        var values: [String: BoardEntry] = [:]
        for entry in entries {
            guard allowedKeys.contains(entry.key) else {
                throw BoardError(file: fileName, line: entry.line, key: entry.key,
                                 message: "unknown key; allowed keys: \(allowedKeys.joined(separator: ", "))")
            }
            values[entry.key] = entry
        }
        func fail(_ key: String, _ message: String) -> BoardError {
            BoardError(file: fileName, line: values[key]?.line, key: key, message: message)
        }
        func string(_ key: String) throws(BoardError) -> String? {
            guard let entry = values[key] else { return nil }
            guard case .string(let s) = entry.value else { throw fail(key, "expected a string in double quotes, found \(entry.value.typeName)") }
            return s
        }
        func integer(_ key: String) throws(BoardError) -> Int? {
            guard let entry = values[key] else { return nil }
            guard case .integer(let v) = entry.value else { throw fail(key, "expected an integer, found \(entry.value.typeName)") }
            return v
        }
        func number(_ key: String) throws(BoardError) -> Double? {
            guard let entry = values[key] else { return nil }
            switch entry.value {
            case .integer(let v): return Double(v)
            case .float(let v): return v
            default: throw fail(key, "expected a number, found \(entry.value.typeName)")
            }
        }

        guard let name = try string("name") else {
            throw BoardError(file: fileName, line: nil, key: "name", message: "missing; every board needs name = \"...\"")
        }
        guard !name.isEmpty else { throw fail("name", "must not be empty") }
        let description = try string("description")

        guard let busText = try string("bus") else {
            throw BoardError(file: fileName, line: nil, key: "bus",
                             message: "missing; use \"simulated\" or an i2c-dev node such as \"/dev/i2c-1\"")
        }
        let bus: Board.Bus
        if busText == "simulated" {
            bus = .simulated
        } else if busText.hasPrefix("/dev/i2c-"), busText.count > 9, busText.dropFirst(9).allSatisfy({ $0.isASCII && $0.isNumber }) {
            // i2c-dev names its nodes after the adapter number in plain decimal and makes none
            // past its minor range, so "/dev/i2c-01" or "/dev/i2c-99999999" can never exist:
            // refused here, where `stepd --check` sees it, not at the first open.
            let number = busText.dropFirst(9)
            guard number == "0" || !number.hasPrefix("0"), let adapter = Int(number), adapter < Board.i2cAdapterLimit else {
                throw fail("bus", "'\(busText)' is no i2c-dev node: the adapter number is a decimal from 0 to \(Board.i2cAdapterLimit - 1) without leading zeros, such as \"/dev/i2c-1\" (i2cdetect -l lists the adapters)")
            }
            bus = .linux(path: busText)
        } else {
            throw fail("bus", "'\(busText)' is not allowed; use \"simulated\" or an i2c-dev node such as \"/dev/i2c-1\"")
        }

        var chip: ChipModel?
        let chipText = try string("chip")
        if let chipText {
            guard let model = ChipModel(rawValue: chipText) else {
                throw fail("chip", "'\(chipText)' is not supported; use \(ChipModel.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: " or "))")
            }
            chip = model
        } else if bus == .simulated {
            chip = .simulatedDefault
        }

        var address: UInt8?
        if let value = try integer("address") {
            guard (0x08...0x77).contains(value) else {
                throw fail("address", "\(value) is outside the 7-bit range 0x08..0x77 (\(usualAddresses))")
            }
            // Each chip answers only at the addresses its pin selects: a LIS3DH board copied from
            // an MPU-6050 one (address = 0x68) passed --check and then never found its chip.
            if chipText != nil, let model = chip, !model.descriptor.addresses.contains(UInt8(value)) {
                throw fail("address", "0x\(String(value, radix: 16)) is not an address the \(model.displayName) answers at; use \(model.descriptor.addresses.map { "0x" + String($0, radix: 16) }.joined(separator: " or ")) (its address pin picks one), or leave address out to probe both")
            }
            address = UInt8(value)
        }

        let rangeG = try integer("range_g") ?? 4
        let ranges = ChipModel.rangesG(for: chip)
        guard ranges.contains(rangeG) else {
            throw fail("range_g", "\(rangeG) is not allowed\(forChip(chip)); use \(ChipDescriptor.allowedList(ranges))")
        }

        var axisRemap = AxisRemap.identity
        if let entry = values["axis_remap"] {
            guard case .stringArray(let terms) = entry.value else {
                throw fail("axis_remap", "expected an array of three axes such as [\"y\", \"-x\", \"z\"], found \(entry.value.typeName)")
            }
            guard let remap = AxisRemap(terms) else {
                throw fail("axis_remap", "\(terms) is not allowed; give three of \"x\", \"y\", \"z\", each once, optionally with '-', e.g. [\"y\", \"-x\", \"z\"]")
            }
            axisRemap = remap
        }

        let readyChip = try string("data_ready_chip")
        let readyLine = try integer("data_ready_line")
        var dataReady: Board.DataReadyLine?
        switch (readyChip, readyLine) {
        case (nil, nil):
            break
        case (let chipName?, let line?):
            guard !chipName.isEmpty else { throw fail("data_ready_chip", "must name a GPIO chip such as \"gpiochip0\"") }
            guard (0...1023).contains(line) else { throw fail("data_ready_line", "\(line) is not a line offset; use 0 to 1023 (gpioinfo lists them)") }
            guard bus != .simulated else { throw fail("data_ready_chip", "a simulated board has no GPIO line; remove data_ready_chip and data_ready_line") }
            dataReady = Board.DataReadyLine(chip: chipName, line: line)
        case (nil, _):
            throw fail("data_ready_line", "set data_ready_chip too (both or neither), e.g. data_ready_chip = \"gpiochip0\"")
        case (_, nil):
            throw fail("data_ready_chip", "set data_ready_line too (both or neither), e.g. data_ready_line = 17")
        }

        var recording: String?
        if let path = try string("recording") {
            guard bus == .simulated else { throw fail("recording", "only simulated boards replay a recording; remove it or set bus = \"simulated\"") }
            guard !path.isEmpty else { throw fail("recording", "must not be empty; leave it out to use the embedded default recording") }
            recording = resolve(path, against: fileName)
        }
        let replaySpeed = try number("replay_speed")
        if let speed = replaySpeed {
            guard bus == .simulated else { throw fail("replay_speed", "only simulated boards have a replay speed; remove it") }
            let allowed = Board.replaySpeeds
            guard allowed.contains(speed) else {
                throw fail("replay_speed", "\(speed) is not allowed; use a number from \(DecimalText.shortest(allowed.lowerBound)) to \(DecimalText.shortest(allowed.upperBound))")
            }
        }
        let burstInterval = try number("burst_interval_s")
        if let interval = burstInterval {
            let allowed = ChipModel.burstIntervals(for: chip)
            guard allowed.contains(interval) else {
                throw fail("burst_interval_s", "\(interval) is not allowed; use \(allowed.lowerBound) to \(allowed.upperBound) (\(fifoSpans(chip)))")
            }
        }
        return Board(name: name, description: description, bus: bus, chip: chip, address: address, rangeG: rangeG,
                     axisRemap: axisRemap, dataReady: dataReady, recording: recording, replaySpeed: replaySpeed,
                     burstInterval: burstInterval, source: fileName, recordingLine: values["recording"]?.line)
    }

    /// " for the LIS3DH", or nothing when the chip is probed.
    static func forChip(_ chip: ChipModel?) -> String { chip.map { " for the \($0.displayName)" } ?? "" }

    /// "MPU-6050: 0x68/0x69, LIS3DH: 0x18/0x19"
    static var usualAddresses: String {
        ChipModel.allCases.map { model in
            model.displayName + ": " + model.descriptor.addresses.map { "0x" + String($0, radix: 16) }.joined(separator: "/")
        }.joined(separator: ", ")
    }

    /// Why the burst interval is bounded: how long the FIFO of `chip` (or of each chip a probe
    /// may find) holds.
    static func fifoSpans(_ chip: ChipModel?) -> String {
        func span(_ model: ChipModel) -> String {
            "the \(model.displayName) FIFO holds \(fixedDecimal(model.descriptor.fifoSpan))"
        }
        guard let chip else {
            let spans = ChipModel.allCases.sorted { $0.descriptor.fifoSpan < $1.descriptor.fifoSpan }.map(span)
            return "with chip unset any of these may be found: " + spans.joined(separator: ", ")
        }
        return span(chip)
    }

    /// Seconds with two decimals ("0.64 s"), without Foundation.
    static func fixedDecimal(_ seconds: Double) -> String {
        let hundredths = Int((seconds * 100).rounded())
        let fraction = hundredths % 100
        return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction) s"
    }

    /// A relative path is relative to the folder of the board file.
    static func resolve(_ path: String, against fileName: String) -> String {
        guard !path.hasPrefix("/"), let slash = fileName.lastIndex(of: "/") else { return path }
        return String(fileName[...slash]) + path
    }
}

/// Reads board files from disk.
public enum BoardLoader {
    /// Board files are small; anything larger is not a board file.
    static let maxSize = 64 * 1024

    public static func load(path: String) throws(BoardError) -> Board {
        let text = try readFile(path)
        return try BoardParser.parse(text: text, fileName: path)
    }

    static func readFile(_ path: String) throws(BoardError) -> String {
        let file: FileDescriptor
        do throws(Errno) {
            file = try FileDescriptor.open(path, O_RDONLY)
        } catch {
            let reason = error == .noSuchFile ? "no such file; the shipped boards are in boards/" : error.description
            throw BoardError(file: path, line: nil, key: nil, message: "cannot open: \(reason)")
        }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n: Int
            do throws(Errno) {
                n = try buffer.withUnsafeMutableBytes { raw in Result { () throws(Errno) in try file.read(into: raw) } }.get()
            } catch {
                throw BoardError(file: path, line: nil, key: nil, message: "cannot read: \(error)")
            }
            if n == 0 { break }
            bytes += buffer[0..<n]
            if bytes.count > maxSize {
                throw BoardError(file: path, line: nil, key: nil, message: "larger than \(maxSize / 1024) KiB: not a board file")
            }
        }
        // Control bytes or invalid UTF-8: an image, a gzip, an executable. Quoting its first line
        // as "expected key = value, found '...'" wrote raw bytes to the terminal and the journal.
        guard !TextBytes.isBinary(bytes), let text = String(validating: bytes, as: UTF8.self) else {
            throw BoardError(file: path, line: nil, key: nil, message: "binary data, not a board file: expected UTF-8 text of key = value lines (see boards/)")
        }
        return text
    }
}
