import Foundation
import RPCDispatch
import StepJSON
import StepProtocol
import StepSocket
import Testing

/// End to end over a real Unix socket: framing, limits, slow readers, connection life. What the
/// JSON-RPC layer answers is tested in memory (`DispatchTests`).
@Suite(.serialized) struct ServerTests {
    @Test func answersRequestsOverTheSocket() throws {
        let harness = try SocketHarness()
        defer { harness.stop() }
        let client = try UnixSocketClient(path: harness.path)
        let status = try harness.call(client, .status)
        #expect(status["protocol_version"] == .int(stepdProtocolVersion))
        #expect(status["clients"] == 1)
        let steps = try harness.call(client, .stepsQuery, ["start": 1_700_000_000, "end": 1_700_000_100])
        #expect(steps["steps"] == 10)
        // Raw garbage: parse error with a null id, and the connection stays usable.
        try client.sendRaw([0xC3, 0x28, 0x0A])
        let parseError = try #require(try harness.readMessage(client))
        #expect(parseError.value(atPath: "error.code") == -32700)
        #expect(parseError["id"] == .null)
        #expect(try harness.call(client, .activityCurrent)["type"] == "walking")
    }

    @Test func stepNotificationsReachSubscribers() throws {
        let harness = try SocketHarness()
        defer { harness.stop() }
        let client = try UnixSocketClient(path: harness.path)
        let id = try #require(try harness.call(client, .stepsSubscribe, ["update_on": 10])["subscription"]?.intValue)
        for total in 1...25 { harness.server.publishSteps(total: total) }
        let first = try #require(try harness.readMessage(client))
        #expect(first["method"] == "steps.update")
        #expect(first.value(atPath: "params.subscription")?.intValue == id)
        #expect(first.value(atPath: "params.steps") == 10)
        #expect(try harness.readMessage(client)?.value(atPath: "params.steps") == 20)
        #expect(try harness.readMessage(client, seconds: 0.1) == nil)
    }

    @Test func slowReaderIsDroppedWhileOthersAreServed() throws {
        let harness = try SocketHarness(options: { UnixSocketServerOptions(path: $0, maxQueuedBytes: 8192) })
        defer { harness.stop() }
        let slow = try UnixSocketClient(path: harness.path)
        _ = try harness.call(slow, .stepsSubscribe)
        let good = try UnixSocketClient(path: harness.path)
        #expect(try harness.call(good, .status)["clients"] == 2)
        // Far more notifications than the kernel buffer plus the 8 KiB queue can hold.
        for total in 1...20_000 { harness.server.publishSteps(total: total) }
        #expect(harness.server.clientCount == 1)
        #expect(harness.server.subscriptionCount == 0)
        #expect(try harness.call(good, .status)["clients"] == 1)
        // At notice, not debug: at the default level the journal said nothing of it.
        #expect(harness.log.lines.withLock { $0.contains { $0.hasPrefix("notice: client ") && $0.contains("disconnected by the agent: slow reader") } },
                "\(harness.log.lines.withLock { $0 })")
        // The dropped client reads what was delivered, then end of stream.
        var delivered = 0
        do {
            while try slow.readLine(timeout: 2) != nil { delivered += 1 }
            Issue.record("slow client not closed")
        } catch { #expect(error == .closed) }
        #expect(delivered > 0 && delivered < 20_000)
    }

    /// Issue 12, defect 1: a client that sends several requests at once and then reads was
    /// dropped as a slow reader once their answers together passed 1 MiB. Now its requests are
    /// held (its input is not read) until it has read the earlier answers.
    @Test func pipelinedLargeAnswersAreAllDelivered() throws {
        let harness = try SocketHarness()
        defer { harness.stop() }
        let client = try UnixSocketClient(path: harness.path)
        var burst: [UInt8] = []
        for id in 1...4 {
            burst += Array("{\"jsonrpc\":\"2.0\",\"id\":\(id),\"method\":\"ledger.export\",\"params\":{\"limit\":4500}}\n".utf8)
        }
        try client.sendRaw(burst)
        // The agent serves while this client is not reading.
        for _ in 0..<20 { harness.pump() }
        for id in 1...4 {
            guard let answer = try harness.readMessage(client) else {
                Issue.record("answer \(id) missing")
                return
            }
            #expect(answer["id"] == .int(id))
            #expect(try LedgerExportResult(json: answer["result"] ?? .null).records.count == 4500)
        }
        #expect(!harness.log.lines.withLock { $0.contains { $0.contains("slow reader") } })
    }

    /// A client that sends its requests and then shuts down its writing side (`printf REQUEST |
    /// socat -t 2 - UNIX-CONNECT:...`, docs/protocol.md's shell recipes) still reads: its end of
    /// file dropped the connection with the answers the socket had not taken yet, so a large
    /// answer arrived cut short (219 of 344 KB of a samples.list) and pipelined ones not at all.
    @Test func answersOutliveTheClientsEndOfInput() throws {
        let harness = try SocketHarness()
        defer { harness.stop() }
        let client = try UnixSocketClient(path: harness.path)
        var burst: [UInt8] = []
        for id in 1...3 {
            burst += Array("{\"jsonrpc\":\"2.0\",\"id\":\(id),\"method\":\"ledger.export\",\"params\":{\"limit\":4500}}\n".utf8)
        }
        try client.sendRaw(burst)
        #expect(shutdown(client.fd, Int32(SHUT_WR)) == 0)
        // The server sees the requests and the end of file before the client reads anything.
        for _ in 0..<40 { harness.pump() }
        for id in 1...3 {
            let answer = try #require(try harness.readMessage(client), "answer \(id) missing")
            #expect(answer["id"] == .int(id))
            #expect(try LedgerExportResult(json: answer["result"] ?? .null).records.count == 4500)
        }
        // Then the connection closes.
        #expect(throws: ClientError.closed) {
            for _ in 0..<200 {
                harness.pump()
                _ = try client.readLine(timeout: 0.01)
            }
        }
        harness.settle()
        #expect(harness.server.clientCount == 0)
    }

    @Test func oversizedLineIsRefused() throws {
        let harness = try SocketHarness(options: { UnixSocketServerOptions(path: $0, maxLineBytes: 1024) })
        defer { harness.stop() }
        let client = try UnixSocketClient(path: harness.path)
        try client.sendRaw([UInt8](repeating: UInt8(ascii: "a"), count: 3000))
        let error = try #require(try harness.readMessage(client))
        #expect(error.value(atPath: "error.code") == -32003)
        #expect(error.value(atPath: "error.message")?.stringValue?.contains("1024") == true)
        #expect(throws: ClientError.closed) { try client.readLine(timeout: 2) }
        let other = try UnixSocketClient(path: harness.path)
        #expect(try harness.call(other, .status)["protocol_version"] == .int(stepdProtocolVersion))
    }

    @Test func abruptDisconnectsAndHalfLines() throws {
        let harness = try SocketHarness()
        defer { harness.stop() }
        for _ in 0..<20 {
            let c = try UnixSocketClient(path: harness.path)
            _ = try harness.call(c, .stepsSubscribe)
            try c.sendRaw(Array("{\"jsonrpc\":\"2.0\",\"id\":1,\"meth".utf8))
            c.close()
        }
        harness.settle()
        // Fragments of one request sent separately are joined.
        let client = try UnixSocketClient(path: harness.path)
        for part in ["{\"jsonrpc\":\"2.0\",", "\"id\":5,\"method\":", "\"activity.current\"}\r\n"] {
            try client.sendRaw(Array(part.utf8))
            harness.pump()
        }
        #expect(try harness.readMessage(client)?["id"] == 5)
        #expect(try harness.call(client, .status)["clients"] == 1)
        #expect(harness.server.subscriptionCount == 0)
    }

    /// docs/protocol.md: empty lines are ignored, and so is a line of only spaces, tabs and
    /// carriage returns (it was answered with a -32700 parse error).
    @Test func blankLinesGetNoAnswer() throws {
        let harness = try SocketHarness()
        defer { harness.stop() }
        let client = try UnixSocketClient(path: harness.path)
        try client.sendRaw(Array("\n   \n\t \r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"status\"}\n".utf8))
        let first = try #require(try harness.readMessage(client))
        #expect(first["id"] == 7)
        #expect(first["error"] == nil)
        #expect(try harness.readMessage(client, seconds: 0.2) == nil)
    }

    @Test func clientLimit() throws {
        let harness = try SocketHarness(options: { UnixSocketServerOptions(path: $0, maxClients: 3) })
        defer { harness.stop() }
        let clients = try (0..<3).map { _ in try UnixSocketClient(path: harness.path) }
        for c in clients { _ = try harness.call(c, .status) }
        let refused = try UnixSocketClient(path: harness.path)
        let line = try #require(try harness.readMessage(refused))
        #expect(line.value(atPath: "error.code") == -32003)
        #expect(line.value(atPath: "error.message")?.stringValue?.contains("too many clients") == true)
        #expect(throws: ClientError.closed) { try refused.readLine(timeout: 2) }
        // The agent's log said nothing of clients turned away; now once per spell of refusals.
        let again = try UnixSocketClient(path: harness.path)
        _ = try harness.readMessage(again)
        let notices = harness.log.lines.withLock { $0.filter { $0.hasPrefix("notice: refusing new clients: too many clients (limit 3)") } }
        #expect(notices.count == 1, "\(harness.log.lines.withLock { $0 })")
        clients[0].close()
        harness.settle()
        let later = try UnixSocketClient(path: harness.path)
        #expect(try harness.call(later, .status)["clients"] == 3)
    }

    @Test func socketFileHandling() throws {
        let harness = try SocketHarness()
        // A second server on a live socket is refused; the first keeps working.
        #expect(throws: SocketError.self) {
            _ = try RPCServer(options: UnixSocketServerOptions(path: harness.path), service: FakeService(),
                              permissions: PermissionPolicy(agentUID: 0, adminGroupID: nil), logger: .silent)
        }
        var info = stat()
        #expect(stat(harness.path, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o660)
        let path = harness.path
        harness.stop()
        // A stale socket file (nobody listening) is replaced.
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        _ = mkdir(harness.directory, 0o700)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, b) in path.utf8.enumerated() { raw[i] = b }
        }
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        close(fd)
        #expect(throws: ClientError.staleSocket(path: path)) { try UnixSocketClient(path: path) }
        let server = try RPCServer(options: UnixSocketServerOptions(path: path), service: FakeService(),
                                   permissions: PermissionPolicy(agentUID: 0, adminGroupID: nil), logger: .silent)
        server.close()
        #expect(access(path, F_OK) != 0)
        rmdir(harness.directory)
        #expect(throws: ClientError.notRunning(path: path)) { try UnixSocketClient(path: path) }
    }
}
