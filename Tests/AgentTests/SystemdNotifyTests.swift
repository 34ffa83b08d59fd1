import Foundation
import Glibc
import Testing

/// A datagram socket the test owns, standing in for systemd's notify socket.
final class NotifySocket {
    let path: String
    let fd: Int32

    init(directory: String) throws {
        path = directory + "/notify.sock"
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { throw AgentTestError("socket: \(errno)") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0 else { throw AgentTestError("bind \(path): \(errno)") }
    }

    deinit { close(fd) }

    /// Datagrams in the order they arrived, until `done` holds for them (checked after each) or
    /// `timeout` seconds pass; the timeout only bounds a broken run, no assertion depends on it.
    func collect(timeout: Double = 60, until done: ([String]) -> Bool) -> [String] {
        var received: [String] = []
        let end = Date().addingTimeInterval(timeout)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !done(received), Date() < end {
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let wait = Int32(max(1, end.timeIntervalSinceNow * 1000))
            guard poll(&descriptor, 1, wait) > 0 else { continue }
            let n = recv(fd, &buffer, buffer.count, 0)
            if n > 0 { received.append(String(decoding: buffer[0..<n], as: UTF8.self)) }
        }
        return received
    }
}

/// sd_notify as systemd sees it. Nothing here is timed: the tests read the order of the datagrams
/// on the notify socket (one socket, so the order is the agent's) and count them.
@Suite(.serialized) struct SystemdNotifyTests {
    static let stallMarker = "STATUS=sampling loop stalled on purpose (--test-stall-after)"

    @Test func readyStatusAndWatchdogPingsReachTheNotifySocket() throws {
        let directory = NSTemporaryDirectory() + "stepd-notify-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let notify = try NotifySocket(directory: directory)
        let agent = try AgentProcess(arguments: ["--simulate", "builtin"],
                                     environment: ["NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": "1000000"])
        let messages = notify.collect { received in
            received.contains { $0.contains("READY=1") } && received.filter { $0 == "WATCHDOG=1" }.count >= 5
        }
        #expect(agent.terminate() == 0)
        let ready = try #require(messages.firstIndex { $0.contains("READY=1") }, "no READY=1 among \(messages)")
        // READY means the sensor is configured and the socket listens: the sensor is not lost.
        #expect(messages[ready].contains("STATUS=sensor mpu6050 "), "READY came with \(messages[ready])")
        #expect(!messages[ready].contains(" lost,"), "READY came with \(messages[ready])")
        // "A documented example is a test": the STATUS line docs/operations.md shows
        // (`Status: "sensor mpu6050 ok, 4312 steps today, walking"`) has the agent's form.
        let status = try #require(messages[ready].split(separator: "\n").first { $0.hasPrefix("STATUS=") }?.dropFirst(7))
        #expect(Self.shape(String(status)) == Self.shape(try Self.documentedStatus()), "READY came with \(status)")
        // Pings only while the sampling path runs, which starts before READY is sent.
        #expect(messages.filter { $0 == "WATCHDOG=1" }.count >= 5, "pings: \(messages)")
        #expect(messages.contains { $0.hasPrefix("STATUS=") || $0.contains("\nSTATUS=") })
    }

    /// Without a sensor the agent reports READY after 10 s (docs/operations.md). The loop slept
    /// until its next re-probe, so READY came about 16 s after the start (or whenever a client
    /// woke the agent). The one timed check here: 10 s plus a margin for a busy machine.
    @Test func readyWithoutASensorComesAfterTenSeconds() throws {
        let directory = try makeTemporaryDirectory("stepd-notify")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let board = try writeAbsentSensorBoard(in: directory)
        let notify = try NotifySocket(directory: directory)
        let started = Date()
        let agent = try AgentProcess(arguments: ["--board", board], environment: ["NOTIFY_SOCKET": notify.path])
        let messages = notify.collect(timeout: 40) { received in received.contains { $0.contains("READY=1") } }
        let elapsed = Date().timeIntervalSince(started)
        #expect(agent.terminate() == 0)
        let ready = try #require(messages.first { $0.contains("READY=1") }, "no READY=1 among \(messages)")
        #expect(ready.contains(" lost,"), "READY came with \(ready)")
        #expect(elapsed >= 9.5 && elapsed < 13, "READY after \(elapsed) s")
    }

    /// The `Status: "..."` example of docs/operations.md.
    static func documentedStatus() throws -> String {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let text = try String(contentsOf: repository.appendingPathComponent("docs/operations.md"), encoding: .utf8)
        let line = try #require(text.components(separatedBy: "`Status: \"").dropFirst().first, "docs/operations.md shows no Status line")
        return try #require(line.components(separatedBy: "\"`").first)
    }

    /// A STATUS line with its counts, health and activity replaced by placeholders.
    static func shape(_ status: String) -> String {
        let words = ["ok", "degraded", "lost", "stationary", "walking", "running", "automotive", "cycling", "unknown"]
        return status.split(separator: " ", omittingEmptySubsequences: false).map { word -> String in
            let bare = word.hasSuffix(",") ? word.dropLast() : word
            let comma = word.hasSuffix(",") ? "," : ""
            if !bare.isEmpty, bare.allSatisfy(\.isNumber) { return "N" + comma }
            if words.contains(String(bare)) { return "W" + comma }
            return String(word)
        }.joined(separator: " ")
    }

    @Test func aStalledSamplingLoopStopsThePings() throws {
        let directory = NSTemporaryDirectory() + "stepd-stall-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let notify = try NotifySocket(directory: directory)
        let agent = try AgentProcess(arguments: ["--simulate", "builtin", "--test-stall-after", "2"],
                                     environment: ["NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": "1000000"])
        let untilStall = notify.collect { $0.contains(Self.stallMarker) }
        let stall = try #require(untilStall.firstIndex(of: Self.stallMarker), "the agent never stalled: \(untilStall)")
        // Three WatchdogSec= periods of silence, with the agent still alive: a ping in them would
        // be a ping from a hung loop. Counted, not timed: the limit only ends the wait.
        let afterStall = notify.collect(timeout: 3) { $0.contains("WATCHDOG=1") }
        #expect(agent.process.isRunning, "the stalled agent exited: \(agent.stderrText())")
        agent.kill9()
        #expect(untilStall[..<stall].contains("WATCHDOG=1"), "no pings before the stall: \(untilStall)")
        #expect(!untilStall[stall...].contains("WATCHDOG=1") && !afterStall.contains("WATCHDOG=1"),
                "pings after the stall: \(untilStall[stall...]) then \(afterStall)")
    }
}
