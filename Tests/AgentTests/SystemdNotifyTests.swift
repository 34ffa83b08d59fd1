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

    /// Datagrams received within `seconds`, each with the monotonic time it arrived.
    func collect(for seconds: Double) -> [(time: Double, text: String)] {
        var received: [(Double, String)] = []
        let end = Date().addingTimeInterval(seconds)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while Date() < end {
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let wait = Int32(max(1, end.timeIntervalSinceNow * 1000))
            guard poll(&descriptor, 1, wait) > 0 else { continue }
            let n = recv(fd, &buffer, buffer.count, 0)
            if n > 0 { received.append((Date().timeIntervalSince1970, String(decoding: buffer[0..<n], as: UTF8.self))) }
        }
        return received
    }
}

@Suite(.serialized) struct SystemdNotifyTests {
    @Test func readyStatusAndWatchdogPingsReachTheNotifySocket() throws {
        let directory = NSTemporaryDirectory() + "stepd-notify-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let notify = try NotifySocket(directory: directory)
        let agent = try AgentProcess(arguments: ["--simulate", "builtin", "--replay-speed", "4"],
                                     environment: ["NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": "1000000"])
        let messages = notify.collect(for: 8).map(\.text)
        #expect(agent.terminate() == 0)
        let ready = messages.first { $0.contains("READY=1") }
        #expect(ready != nil, "no READY=1 among \(messages)")
        #expect(ready?.contains("STATUS=sensor mpu6050 ok") == true, "READY came with \(ready ?? "nothing")")
        // WatchdogSec=1 s: pings every half interval, so 8 s give well over 5 of them.
        #expect(messages.filter { $0 == "WATCHDOG=1" }.count >= 5, "pings: \(messages)")
        #expect(messages.contains { $0.hasPrefix("STATUS=") || $0.contains("\nSTATUS=") })
    }

    @Test func aStalledSamplingLoopStopsThePings() throws {
        let directory = NSTemporaryDirectory() + "stepd-stall-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let notify = try NotifySocket(directory: directory)
        let started = Date().timeIntervalSince1970
        let agent = try AgentProcess(arguments: ["--simulate", "builtin", "--test-stall-after", "3"],
                                     environment: ["NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": "1000000"])
        let messages = notify.collect(for: 7)
        agent.kill9()
        let pings = messages.filter { $0.text == "WATCHDOG=1" }.map { $0.time - started }
        #expect(pings.contains { $0 < 3 }, "no pings before the stall: \(pings)")
        // The loop hangs at 3 s; allow one ping in flight, then silence for the rest.
        #expect(!pings.contains { $0 > 4.5 }, "pings after the stall: \(pings)")
    }
}
