import Foundation
import StepJSON
import StepSocket
import Testing

/// The real agent over its real socket and files.
@Suite(.serialized) struct AgentIntegrationTests {
    @Test func statusReportsTheEmulatedChipAndSamplesFlow() throws {
        let agent = try AgentProcess(arguments: ["--simulate", AgentProcess.fixture, "--replay-speed", "10"])
        let status = try agent.waitForStatus { ($0.value(atPath: "sensor.samples")?.intValue ?? 0) > 200 }
        #expect(status.value(atPath: "sensor.model")?.stringValue == "mpu6050")
        #expect(status.value(atPath: "sensor.health")?.stringValue == "ok")
        #expect(status.value(atPath: "protocol_version")?.intValue == 2)
        let rate = status.value(atPath: "sensor.rate_hz")?.doubleValue ?? 0
        // The emulated chip runs 10x faster, so the sensor clock sees 40 Hz.
        #expect(abs(rate - 40) < 2, "rate \(rate)")
        #expect(agent.terminate() == 0)
    }

    @Test func lis3dhIsDeliveredAt40Hz() throws {
        let agent = try AgentProcess(arguments: ["--simulate", AgentProcess.fixture, "--chip", "lis3dh", "--replay-speed", "10"])
        let status = try agent.waitForStatus { ($0.value(atPath: "sensor.samples")?.intValue ?? 0) > 200 }
        #expect(status.value(atPath: "sensor.model")?.stringValue == "lis3dh")
        let delivered = status.value(atPath: "sensor.delivered_hz")?.doubleValue ?? 0
        #expect(abs(delivered - 40) < 2, "delivered \(delivered) Hz")
        // rate_hz is the chip's own rate as measured: the LIS3DH runs at 50 Hz.
        let rate = status.value(atPath: "sensor.rate_hz")?.doubleValue ?? 0
        #expect(abs(rate - 50) < 0.5, "rate \(rate)")
        #expect(agent.terminate() == 0)
    }

    @Test func aChipClockFivePercentFastIsMeasuredNotLost() throws {
        let agent = try AgentProcess(arguments: ["--simulate", AgentProcess.fixture, "--replay-speed", "10",
                                                 "--sensor-clock-error", "5"])
        let status = try agent.waitForStatus { ($0.value(atPath: "sensor.samples")?.intValue ?? 0) > 400 }
        let rate = status.value(atPath: "sensor.rate_hz")?.doubleValue ?? 0
        #expect(abs(rate - 42) < 0.5, "rate \(rate)")
        #expect(agent.terminate() == 0)
    }

    @Test func sigtermSavesEveryCountedStep() throws {
        let agent = try AgentProcess(arguments: ["--simulate", AgentProcess.fixture, "--replay-speed", "20"])
        _ = try agent.waitForStatus { ($0.value(atPath: "steps.since_start")?.intValue ?? 0) > 150 }
        #expect(agent.terminate() == 0)
        let log = agent.stderrText()
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
    }

    @Test func injectedResetOverflowAndVanishAreRecovered() throws {
        let agent = try AgentProcess(arguments: ["--simulate", AgentProcess.fixture, "--replay-speed", "10",
                                                 "--inject-faults", "reset@20,overflow@40,vanish@60+3"])
        let status = try agent.waitForStatus(timeout: 40) {
            ($0.value(atPath: "sensor.reinits")?.intValue ?? 0) >= 2 && $0.value(atPath: "sensor.health")?.stringValue != "lost"
                && ($0.value(atPath: "sensor.overflows")?.intValue ?? 0) >= 1
        }
        #expect((status.value(atPath: "sensor.errors")?.intValue ?? 0) > 0)
        #expect(agent.terminate() == 0)
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

    @Test func badFlagsExitWithUsageStatus() throws {
        let result = try runTool(AgentProcess.stepdPath, ["--replay-speed", "-3"])
        #expect(result.status == 64)
        #expect(result.error.contains("--replay-speed"))
    }
}
