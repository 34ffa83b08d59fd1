import Foundation
import Boards
import StepdModel
import Testing

/// The repository's boards/ folder, found from this file's path.
let boardsFolder: String = {
    var path = #filePath
    for _ in 0..<3 {
        guard let slash = path.lastIndex(of: "/") else { break }
        path = String(path[..<slash])
    }
    return path + "/boards"
}()

@Suite("Board files")
struct BoardTests {
    @Test func simulatedBoard() throws {
        let board = try BoardLoader.load(path: boardsFolder + "/simulated.toml")
        #expect(board.name == "simulated")
        #expect(board.bus == .simulated)
        #expect(board.chip == .mpu6050)
        #expect(board.address == 0x68)
        #expect(board.rangeG == 4)
        #expect(board.axisRemap == .identity)
        #expect(board.recording == nil)
        #expect(board.replaySpeed == 1)
        #expect(board.dataReady == nil)
    }

    @Test func piZeroBoard() throws {
        let board = try BoardLoader.load(path: boardsFolder + "/rpi-zero2w-mpu6050.toml")
        #expect(board.bus == .linux(path: "/dev/i2c-1"))
        #expect(board.chip == .mpu6050)
        #expect(board.address == 0x68)
        #expect(board.axisRemap == AxisRemap(["y", "-x", "z"]))
        #expect(board.burstInterval == 1.0)
        #expect(board.dataReady == nil)  // commented out: optional
    }

    @Test func pi4Board() throws {
        let board = try BoardLoader.load(path: boardsFolder + "/rpi4-lis3dh.toml")
        #expect(board.bus == .linux(path: "/dev/i2c-1"))
        #expect(board.chip == .lis3dh)
        #expect(board.address == 0x18)
        #expect(board.burstInterval == 0.5)
    }

    /// The shipped board as Notepad saves it (byte order mark, CR LF): it read as one comment
    /// line ("name: missing"), and a byte order mark alone as "expected key = value, found '# ...'".
    @Test(arguments: [("\u{FEFF}", "\n"), ("", "\r\n"), ("\u{FEFF}", "\r\n")])
    func windowsLineEndingsAndByteOrderMark(prefix: String, newline: String) throws {
        let text = try String(contentsOfFile: boardsFolder + "/rpi4-lis3dh.toml", encoding: .utf8)
        let shipped = try BoardParser.parse(text: text, fileName: "windows.toml")
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let windows = prefix + lines.joined(separator: newline)
        #expect(try BoardParser.parse(text: windows, fileName: "windows.toml") == shipped)
        // Line numbers still count the file's lines.
        do {
            _ = try BoardParser.parse(text: windows + "colour = 1" + newline, fileName: "windows.toml")
            Issue.record("an unknown key accepted")
        } catch {
            #expect("\(error)".hasPrefix("windows.toml:\(lines.count): colour: unknown key"), "\(error)")
        }
    }

    @Test func everyValueKind() throws {
        let text = """
        # comment
        name = "bench \\"one\\""   # trailing comment
        bus = "/dev/i2c-0"
        address = 0X19
        range_g = 16
        axis_remap = [ "-z", "x" , "+y" ]
        data_ready_chip = "gpiochip0"
        data_ready_line = 1_7
        burst_interval_s = 2.5e-1
        """
        let board = try BoardParser.parse(text: text, fileName: "b.toml")
        #expect(board.name == "bench \"one\"")
        #expect(board.chip == nil)
        #expect(board.address == 0x19)
        #expect(board.rangeG == 16)
        #expect(board.axisRemap.apply(x: 1, y: 2, z: 3) == (-3, 1, 2))
        #expect(board.dataReady == Board.DataReadyLine(chip: "gpiochip0", line: 17))
        #expect(board.burstInterval == 0.25)
    }

    @Test func recordingIsRelativeToTheBoardFile() throws {
        let board = try BoardParser.parse(text: "name = \"s\"\nbus = \"simulated\"\nrecording = \"walk.csv.gz\"\nreplay_speed = 20",
                                          fileName: "/etc/stepd/boards/sim.toml")
        #expect(board.recording == "/etc/stepd/boards/walk.csv.gz")
        #expect(board.replaySpeed == 20)
    }

    static let broken: [(String, String)] = [
        ("name = \"x\"\nbus = \"simulated\"\ncolour = \"red\"",
         "f.toml:3: colour: unknown key; allowed keys: name, description, bus, chip, address, range_g, axis_remap, data_ready_chip, data_ready_line, recording, replay_speed, burst_interval_s"),
        ("name = \"x\"\nbus = \"simulated\"\nrange_g = 3",
         "f.toml:3: range_g: 3 is not allowed for the MPU-6050; use 2, 4, 8 or 16"),
        ("name = \"x\"\nbus = \"simulated\"\nrange_g = \"4\"",
         "f.toml:3: range_g: expected an integer, found a string"),
        ("name = \"x\"\nbus = \"simulated\"\nname = \"y\"",
         "f.toml:3: name: duplicate key (first set on line 1); set it once"),
        ("name = \"x\"\nbus = \"simulated\"\nchip = \"bmi160\"",
         "f.toml:3: chip: 'bmi160' is not supported; use \"mpu6050\" or \"lis3dh\""),
        ("name = \"x\"\nbus = \"i2c-1\"",
         "f.toml:2: bus: 'i2c-1' is not allowed; use \"simulated\" or an i2c-dev node such as \"/dev/i2c-1\""),
        // An adapter number i2c-dev can never have: past its minor range, or with a leading zero.
        ("name = \"x\"\nbus = \"/dev/i2c-99999999999999999999\"",
         "f.toml:2: bus: '/dev/i2c-99999999999999999999' is no i2c-dev node: the adapter number is a decimal from 0 to 1048575 without leading zeros, such as \"/dev/i2c-1\" (i2cdetect -l lists the adapters)"),
        ("name = \"x\"\nbus = \"/dev/i2c-1048576\"",
         "f.toml:2: bus: '/dev/i2c-1048576' is no i2c-dev node: the adapter number is a decimal from 0 to 1048575 without leading zeros, such as \"/dev/i2c-1\" (i2cdetect -l lists the adapters)"),
        ("name = \"x\"\nbus = \"/dev/i2c-01\"",
         "f.toml:2: bus: '/dev/i2c-01' is no i2c-dev node: the adapter number is a decimal from 0 to 1048575 without leading zeros, such as \"/dev/i2c-1\" (i2cdetect -l lists the adapters)"),
        ("bus = \"simulated\"",
         "f.toml: name: missing; every board needs name = \"...\""),
        ("name = \"x\"",
         "f.toml: bus: missing; use \"simulated\" or an i2c-dev node such as \"/dev/i2c-1\""),
        ("name = \"x\"\nbus = \"/dev/i2c-1\"\naddress = 0x80",
         "f.toml:3: address: 128 is outside the 7-bit range 0x08..0x77 (MPU-6050: 0x68/0x69, LIS3DH: 0x18/0x19)"),
        // A chip answers only at its own addresses: a LIS3DH board copied from an MPU-6050 one
        // passed --check and then never found its chip ("No device acknowledged ... at 0x68").
        ("name = \"x\"\nbus = \"/dev/i2c-1\"\nchip = \"lis3dh\"\naddress = 0x68",
         "f.toml:4: address: 0x68 is not an address the LIS3DH answers at; use 0x18 or 0x19 (its address pin picks one), or leave address out to probe both"),
        ("name = \"x\"\nbus = \"simulated\"\nchip = \"mpu6050\"\naddress = 0x19",
         "f.toml:4: address: 0x19 is not an address the MPU-6050 answers at; use 0x68 or 0x69 (its address pin picks one), or leave address out to probe both"),
        ("name = \"x\"\nbus = \"/dev/i2c-1\"\naxis_remap = [\"x\", \"x\", \"z\"]",
         "f.toml:3: axis_remap: [\"x\", \"x\", \"z\"] is not allowed; give three of \"x\", \"y\", \"z\", each once, optionally with '-', e.g. [\"y\", \"-x\", \"z\"]"),
        ("name = \"x\"\nbus = \"/dev/i2c-1\"\naxis_remap = \"yxz\"",
         "f.toml:3: axis_remap: expected an array of three axes such as [\"y\", \"-x\", \"z\"], found a string"),
        ("name = \"x\"\nbus = \"/dev/i2c-1\"\ndata_ready_line = 17",
         "f.toml:3: data_ready_line: set data_ready_chip too (both or neither), e.g. data_ready_chip = \"gpiochip0\""),
        ("name = \"x\"\nbus = \"/dev/i2c-1\"\ndata_ready_chip = \"gpiochip0\"",
         "f.toml:3: data_ready_chip: set data_ready_line too (both or neither), e.g. data_ready_line = 17"),
        ("name = \"x\"\nbus = \"/dev/i2c-1\"\nrecording = \"a.csv\"",
         "f.toml:3: recording: only simulated boards replay a recording; remove it or set bus = \"simulated\""),
        ("name = \"x\"\nbus = \"/dev/i2c-1\"\nreplay_speed = 2",
         "f.toml:3: replay_speed: only simulated boards have a replay speed; remove it"),
        ("name = \"x\"\nbus = \"simulated\"\nreplay_speed = 0",
         "f.toml:3: replay_speed: 0.0 is not allowed; use a number from 0.01 to 10000"),
        ("name = \"x\"\nbus = \"/dev/i2c-1\"\nchip = \"lis3dh\"\nburst_interval_s = 1.0",
         "f.toml:4: burst_interval_s: 1.0 is not allowed; use 0.05 to 0.6 (the LIS3DH FIFO holds 0.64 s)"),
        ("name = \"x\"\nbus = \"simulated\"\nburst_interval_s = true",
         "f.toml:3: burst_interval_s: expected a number, found a boolean"),
        ("name = \"x\"\nbus = \"simulated\nrange_g = 4",
         "f.toml:2: bus: unterminated string: add the closing \""),
        ("name = \"x\"\nbus \"simulated\"",
         "f.toml:2: expected key = value, found 'bus \"simulated\"'"),
        ("[board]\nname = \"x\"",
         "f.toml:1: tables ([section]) are not part of board files; write plain key = value lines"),
        ("name = 'x'",
         "f.toml:1: name: use double quotes for strings"),
        ("name = \"x\"\nbus = \"simulated\"\nrange_g = 4 4",
         "f.toml:3: range_g: unexpected '4' after the value (comments start with #)"),
        ("name = \"x\"\nbus = \"simulated\"\naddress = 0xZZ",
         "f.toml:3: address: '0xZZ' is not a hex integer"),
        // A sign inside the hex digits used to parse to Int.min and trap when negated.
        ("name = \"x\"\nbus = \"simulated\"\naddress = -0x-8000000000000000",
         "f.toml:3: address: '-0x-8000000000000000' is not a hex integer"),
        // A decimal integer beyond Int used to be called "a number" by the type check.
        ("name = \"x\"\nbus = \"/dev/i2c-1\"\naddress = 99999999999999999999999",
         "f.toml:3: address: '99999999999999999999999' is too large for an integer"),
        ("name = \"x\"\nbus = \"simulated\"\nrange_g = four",
         "f.toml:3: range_g: 'four' is not a value: use \"text\", a number, true/false or [\"a\", \"b\"]"),
        ("name = \"x\"\nbus = \"simulated\"\naxis_remap = [\"x\", 1]",
         "f.toml:3: axis_remap: arrays hold double-quoted strings only, found '1'"),
        ("name = \"x\"\nbus = \"simulated\"\naxis_remap = [\"x\", \"y\"",
         "f.toml:3: axis_remap: unterminated array: add the closing ]"),
        ("name = \"x\"\n = 3",
         "f.toml:2: missing key before '='"),
        ("name = \"x\"\nbus = \"simulated\"\ndata_ready_chip = \"gpiochip0\"\ndata_ready_line = 4",
         "f.toml:3: data_ready_chip: a simulated board has no GPIO line; remove data_ready_chip and data_ready_line"),
        ("name = \"x\"\nbus = \"simulated\"\nname_x = \"a\\q\"",
         "f.toml:3: name_x: unknown escape '\\q' in string (allowed: \\\" \\\\ \\n \\t)"),
    ]

    @Test("broken board files give exact errors", arguments: broken)
    func brokenFiles(text: String, message: String) {
        #expect {
            _ = try BoardParser.parse(text: text, fileName: "f.toml")
        } throws: { error in
            let got = "\(error)"
            if got != message { Issue.record("got: \(got)") }
            return got == message
        }
    }

    /// A binary file was quoted ("expected key = value, found '\0\u{1}...'"), or called "not valid
    /// UTF-8 text": both are now named binary, without echoing the bytes.
    @Test(arguments: [[0x00, 0x01, 0x62, 0x69, 0x6E, 0x0A], [0x1F, 0x8B, 0x08, 0x00], [0x6E, 0x61, 0x6D, 0x65, 0xFF, 0x0A], [0x1B, 0x5B, 0x32, 0x4A]] as [[UInt8]])
    func binaryFileIsNamedBinary(bytes: [UInt8]) throws {
        let path = "/tmp/stepd-board-binary-\(getpid())-\(bytes[0]).toml"
        let file = try #require(fopen(path, "w"))
        fwrite(bytes, 1, bytes.count, file)
        fclose(file)
        defer { unlink(path) }
        #expect {
            _ = try BoardLoader.load(path: path)
        } throws: { error in
            "\(error)" == "\(path): binary data, not a board file: expected UTF-8 text of key = value lines (see boards/)"
        }
    }

    @Test func missingFile() {
        #expect {
            _ = try BoardLoader.load(path: "/nonexistent/board.toml")
        } throws: { error in
            "\(error)" == "/nonexistent/board.toml: cannot open: no such file; the shipped boards are in boards/"
        }
    }
}
