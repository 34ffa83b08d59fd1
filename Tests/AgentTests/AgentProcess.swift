import Foundation
import StepJSON
import StepSocket

/// A real `stepd` process on a temporary state directory and socket, for tests that must go
/// through the same binary, socket and files as a user does.
final class AgentProcess {
    let directory: String
    let socketPath: String
    let stateDirectory: String
    let process = Process()
    let stderrPipe = Pipe()

    /// Where `swift build` put the executables: beside the test bundle, or `$STEPD_BIN`'s folder.
    static var binDirectory: String {
        if let bin = ProcessInfo.processInfo.environment["STEPD_BIN"] {
            return (bin as NSString).deletingLastPathComponent
        }
        var url = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.isExecutableFile(atPath: url.appendingPathComponent("stepd").path) { return url.path }
        }
        return ".build/debug"
    }

    static var stepdPath: String { binDirectory + "/stepd" }
    static var stepctlPath: String { binDirectory + "/stepctl" }
    static var stepbenchPath: String { binDirectory + "/stepbench" }

    /// The shipped Oxford fixture used by agent tests.
    static var fixture: String {
        let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        let fixtures = here.deletingLastPathComponent().appendingPathComponent("Fixtures")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: fixtures.path)) ?? []
        let walking = names.filter { $0.hasSuffix(".csv.gz") }.sorted()
        return fixtures.appendingPathComponent(walking.first ?? "missing.csv.gz").path
    }

    /// `currentDirectory`: the folder stepd starts in (default: the test's own), for relative paths.
    /// `launcher`: a command that runs stepd, e.g. `setpriv` with another uid (the temporary folder
    /// for the socket is then writable by everyone).
    init(arguments: [String], environment: [String: String] = [:], stateDirectory: String? = nil,
         currentDirectory: String? = nil, launcher: [String] = []) throws {
        directory = NSTemporaryDirectory() + "stepd-test-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        if !launcher.isEmpty { chmod(directory, 0o777) }
        socketPath = directory + "/stepd.sock"
        self.stateDirectory = stateDirectory ?? directory + "/state"
        let stepd = ["--state-dir", self.stateDirectory, "--socket", socketPath] + arguments
        process.executableURL = URL(fileURLWithPath: launcher.first ?? AgentProcess.stepdPath)
        process.arguments = launcher.isEmpty ? stepd : Array(launcher.dropFirst()) + [AgentProcess.stepdPath] + stepd
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "NOTIFY_SOCKET")
        env.removeValue(forKey: "WATCHDOG_USEC")
        for (key, value) in environment { env[key] = value }
        process.environment = env
        process.standardError = stderrPipe
        process.standardOutput = FileHandle.nullDevice
        if let currentDirectory { process.currentDirectoryURL = URL(fileURLWithPath: currentDirectory) }
        try process.run()
    }

    deinit {
        if process.isRunning { process.terminate(); process.waitUntilExit() }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Connects once the socket accepts, within `timeout` seconds.
    func connect(timeout: Double = 20) throws -> UnixSocketClient {
        let deadline = Date().addingTimeInterval(timeout)
        var lastError: Error?
        while Date() < deadline {
            if !process.isRunning { throw AgentTestError("stepd exited with \(process.terminationStatus): \(stderrText())") }
            do {
                return try UnixSocketClient(path: socketPath)
            } catch {
                lastError = error
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw AgentTestError("socket \(socketPath) never accepted: \(String(describing: lastError))")
    }

    /// Polls `status` until `condition` holds, within `timeout` seconds; returns the last status.
    func waitForStatus(timeout: Double = 30, _ condition: (JSONValue) -> Bool) throws -> JSONValue {
        let client = try connect()
        defer { client.close() }
        let deadline = Date().addingTimeInterval(timeout)
        var status: JSONValue = .null
        while Date() < deadline {
            status = try client.call("status")
            if condition(status) { return status }
            Thread.sleep(forTimeInterval: 0.1)
        }
        throw AgentTestError("condition not reached; last status: \(String(decoding: status.serialized(), as: UTF8.self))")
    }

    func terminate() -> Int32 {
        process.terminate()
        process.waitUntilExit()
        return process.terminationStatus
    }

    func kill9() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    func stderrText() -> String {
        if process.isRunning { return "(still running)" }
        return String(decoding: stderrPipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }
}

struct AgentTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Runs a tool to completion (in `directory` when given, with `environment` added to this
/// process's) and returns its status and standard output.
func runTool(_ path: String, _ arguments: [String], in directory: String? = nil,
             environment: [String: String] = [:]) throws -> (status: Int32, output: String, error: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    if !environment.isEmpty {
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    }
    if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    let errData = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self), String(decoding: errData, as: UTF8.self))
}

/// A new empty folder under the temporary directory, named `prefix-XXXXXXXX`; the caller removes it.
func makeTemporaryDirectory(_ prefix: String) throws -> String {
    let directory = NSTemporaryDirectory() + prefix + "-" + UUID().uuidString.prefix(8)
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    return directory
}

/// A board file in `directory` for an MPU-6050 on a bus that does not exist: a real sensor that never
/// answers. Returns its path.
func writeAbsentSensorBoard(in directory: String) throws -> String {
    let board = directory + "/absent.toml"
    try "name = \"absent\"\nbus = \"/dev/i2c-1048575\"\nchip = \"mpu6050\"\n".write(toFile: board, atomically: true, encoding: .utf8)
    return board
}
