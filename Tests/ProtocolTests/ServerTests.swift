import RPCDispatch
import Foundation
import StepJSON
import StepProtocol
import StepSocket
import Testing

@Suite(.serialized) struct ServerTests {
    @Test func answersRequests() throws {
        let harness = try ServerHarness()
        defer { harness.stop() }
        let client = try UnixSocketClient(path: harness.path)
        let status = try client.call(.status)
        #expect(status["protocol_version"] == .int(stepdProtocolVersion))
        #expect(status.value(atPath: "sensor.model") == "mpu6050")
        #expect(status.value(atPath: "sensor.samples") == 400)
        #expect(status["clients"] == 1)
        #expect(status.value(atPath: "ledger.message") == .null)
        #expect(status.value(atPath: "ledger.backlog_records") == 0)
        let steps = try client.call(.stepsQuery, ["start": 1_700_000_000, "end": 1_700_000_100])
        #expect(steps["steps"] == 10)
        #expect(steps["pace_s_per_m"] == .null)
        let collection = try client.call(.stepsCollection, ["today": true, "interval": ["hours": 1]])
        #expect(collection["buckets"]?.arrayValue?.count == 1)
    }

    @Test func degradedLedgerSaysWhyInStatus() {
        let ledger = StatusResult.Ledger(health: "degraded", records: 12, unsavedSteps: 40, lastCheckpoint: 1_700_000_000,
                                         message: "cannot write 2024-06-01.steps: ... (ENOSPC)", backlogRecords: 3)
        var status = (try? FakeService().status())
        status?.ledger = ledger
        let json = status?.json
        #expect(json?.value(atPath: "ledger.health") == "degraded")
        #expect(json?.value(atPath: "ledger.message") == "cannot write 2024-06-01.steps: ... (ENOSPC)")
        #expect(json?.value(atPath: "ledger.backlog_records") == 3)
    }

    @Test func errorsAreJSONRPCErrors() throws {
        let harness = try ServerHarness()
        defer { harness.stop() }
        let client = try UnixSocketClient(path: harness.path)
        #expect(throws: ClientError.rpc(.methodNotFound("steps.frobnicate"))) { try client.call("steps.frobnicate") }
        if let e = rpcError({ _ = try client.call(.stepsQuery, ["start": "yesterday", "end": 5]) }) {
            #expect(e.code == -32602)
            #expect(e.message.contains("\"start\""))
        } else {
            Issue.record("accepted")
        }
        if let e = rpcError({ _ = try client.call(.stepsCollection, ["today": true, "interval": ["days": 1], "time_zone": "Mars/Olympus"]) }) {
            #expect(e.code == -32004)
        } else {
            Issue.record("accepted")
        }
        if let e = rpcError({ _ = try client.call(.recordingStart, ["minutes": 1]) }) {
            #expect(e.code == -32002)
        } else {
            Issue.record("accepted")
        }
        // Raw garbage: parse error with a null id, and the connection stays usable.
        try client.sendRaw(Array("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\n".utf8))
        let parseError = try #require(try client.readMessage())
        #expect(parseError.value(atPath: "error.code") == -32700)
        #expect(parseError["id"] == .null)
        try client.sendRaw([0xC3, 0x28, 0x0A])
        #expect(try client.readMessage()?.value(atPath: "error.code") == -32700)
        try client.sendRaw(Array((String(repeating: "[", count: 40) + String(repeating: "]", count: 40) + "\n").utf8))
        let deep = try #require(try client.readMessage())
        #expect(deep.value(atPath: "error.message")?.stringValue?.contains("nesting") == true)
        #expect(try client.call(.status)["protocol_version"] == .int(stepdProtocolVersion))
    }

    @Test func batchesAndNotifications() throws {
        let harness = try ServerHarness()
        defer { harness.stop() }
        let client = try UnixSocketClient(path: harness.path)
        let batch = "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"activity.current\"},{\"jsonrpc\":\"2.0\",\"method\":\"status\"},{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"nope\"}]\n"
        try client.sendRaw(Array(batch.utf8))
        let reply = try #require(try client.readMessage()?.arrayValue)
        #expect(reply.count == 2)
        #expect(reply[0].value(atPath: "result.type") == "walking")
        #expect(reply[1].value(atPath: "error.code") == -32601)
        // A JSON-RPC notification (no id) gets no answer; the next call is answered normally.
        try client.sendRaw(Array("{\"jsonrpc\":\"2.0\",\"method\":\"status\"}\n".utf8))
        #expect(try client.call(.activityCurrent)["confidence"] == "medium")
    }

    @Test func writeMethodsReachServiceForAgentUser() throws {
        let harness = try ServerHarness()
        defer { harness.stop() }
        let client = try UnixSocketClient(path: harness.path)
        let result = try client.call(.samplesAdd, ["source": "phone", "start": 1_700_000_000, "end": 1_700_000_060, "steps": 90])
        #expect(try SamplesAddResult(json: result).samples == [AddedSample(id: "s1", status: .added)])
        #expect(harness.onLoop { _, service in service.added.count } == 1)
    }

    @Test func stepSubscriptions() throws {
        let harness = try ServerHarness()
        defer { harness.stop() }
        harness.onLoop { server, service in
            service.total = 1000
            server.publishSteps(total: 1000, distanceMeters: 700)
        }
        let client = try UnixSocketClient(path: harness.path)
        let sub = try client.call(.stepsSubscribe, ["update_on": 10])
        let id = try #require(sub["subscription"]?.intValue)
        for total in 1001...1025 { harness.onLoop { server, _ in server.publishSteps(total: total, distanceMeters: 700 + Double(total - 1000)) } }
        let first = try #require(try client.nextNotification(timeout: 2))
        #expect(first.method == "steps.update")
        #expect(first.params["steps"] == 10)
        #expect(first.params["subscription"]?.intValue == id)
        #expect(first.params["distance_m"] == 10)
        let second = try #require(try client.nextNotification(timeout: 2))
        #expect(second.params["steps"] == 20)
        #expect(try client.nextNotification(timeout: 0.1) == nil)
        // Activity updates go to activity subscribers only.
        let other = try UnixSocketClient(path: harness.path)
        _ = try other.call(.activitySubscribe)
        harness.onLoop { server, _ in server.publishActivity(ActivityResult(kind: .running, confidence: .high, start: 9)) }
        #expect(try other.nextNotification(timeout: 2)?.params["type"] == "running")
        #expect(try client.nextNotification(timeout: 0.1) == nil)
        #expect(try client.call(.unsubscribe, ["subscription": .int(id)])["unsubscribed"]?.intValue == id)
        if let e = rpcError({ _ = try client.call(.unsubscribe, ["subscription": .int(id)]) }) { #expect(e.code == -32602) } else { Issue.record("double unsubscribe accepted") }
        harness.onLoop { server, _ in server.publishSteps(total: 1100) }
        #expect(try client.nextNotification(timeout: 0.1) == nil)
        // Someone else's subscription cannot be cancelled.
        let theirs = try #require(try other.call(.stepsSubscribe)["subscription"])
        #expect(throws: ClientError.self) { try client.call(.unsubscribe, ["subscription": theirs]) }
    }

    @Test func subscriptionLimits() throws {
        let harness = try ServerHarness(limits: SubscriptionLimits(perClient: 3, total: 5))
        defer { harness.stop() }
        let a = try UnixSocketClient(path: harness.path)
        for _ in 0..<3 { _ = try a.call(.stepsSubscribe) }
        #expect(throws: ClientError.rpc(.limitExceeded("at most 3 subscriptions per connection; unsubscribe first"))) {
            try a.call(.activitySubscribe)
        }
        let b = try UnixSocketClient(path: harness.path)
        for _ in 0..<2 { _ = try b.call(.activitySubscribe) }
        if let e = rpcError({ _ = try b.call(.activitySubscribe) }) { #expect(e.code == -32003) } else { Issue.record("total limit not enforced") }
        // Subscriptions die with their connection.
        a.close()
        _ = try b.call(.status)
        #expect(harness.onLoop { server, _ in server.subscriptionCount } == 2)
    }

    @Test func slowReaderIsDroppedWhileOthersAreServed() throws {
        let harness = try ServerHarness(options: { UnixSocketServerOptions(path: $0, maxQueuedBytes: 8192) })
        defer { harness.stop() }
        let slow = try UnixSocketClient(path: harness.path)
        _ = try slow.call(.stepsSubscribe)
        let good = try UnixSocketClient(path: harness.path)
        #expect(try good.call(.status)["clients"] == 2)
        // Far more notifications than the kernel buffer plus the 8 KiB queue can hold.
        harness.onLoop { server, _ in for total in 1...20_000 { server.publishSteps(total: total) } }
        #expect(harness.onLoop { server, _ in server.clientCount } == 1)
        #expect(try good.call(.status)["clients"] == 1)
        #expect(harness.log.lines.withLock { $0.contains { $0.contains("slow reader") } })
        // The dropped client reads what was delivered, then end of stream.
        var delivered = 0
        do {
            while try slow.readLine(timeout: 2) != nil { delivered += 1 }
            Issue.record("slow client not closed")
        } catch { #expect(error == .closed) }
        #expect(delivered > 0 && delivered < 20_000)
    }

    /// Issue 12, defect 1: an answer over the queue limit closed the connection with no answer
    /// (the answer itself counted as a slow reader). Now it is a -32003 error saying what to lower.
    @Test func tooLargeAnswerIsAnErrorNamingWhatToLower() throws {
        let harness = try ServerHarness()
        defer { harness.stop() }
        let client = try UnixSocketClient(path: harness.path)
        guard let error = rpcError({ _ = try client.call(.ledgerExport, ["limit": 8000]) }) else {
            Issue.record("no error for a 1.5 MB answer")
            return
        }
        #expect(error.code == RPCError.limitExceededCode)
        #expect(error.message.contains("lower \"limit\""))
        // The connection stays usable.
        #expect(try client.call(.activityCurrent)["type"] == "walking")
        // A batch whose answers together are too large: the member that would overflow says so.
        try client.sendRaw(Array("[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ledger.export\",\"params\":{\"limit\":4000}},{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ledger.export\",\"params\":{\"limit\":4000}}]\n".utf8))
        guard let reply = try client.readMessage(timeout: 10)?.arrayValue else {
            Issue.record("no batch answer")
            return
        }
        #expect(reply.count == 2)
        #expect(reply[0]["result"] != nil)
        #expect(reply[1].value(atPath: "error.code") == .int(RPCError.limitExceededCode))
    }

    /// Issue 12, defect 1: a client that sends several requests at once and then reads was
    /// dropped as a slow reader once their answers together passed 1 MiB.
    @Test func pipelinedLargeAnswersAreAllDelivered() throws {
        let harness = try ServerHarness()
        defer { harness.stop() }
        let client = try UnixSocketClient(path: harness.path)
        var burst: [UInt8] = []
        for id in 1...4 {
            burst += Array("{\"jsonrpc\":\"2.0\",\"id\":\(id),\"method\":\"ledger.export\",\"params\":{\"limit\":4500}}\n".utf8)
        }
        try client.sendRaw(burst)
        Thread.sleep(forTimeInterval: 0.5)  // the agent answers while this client is not reading
        for id in 1...4 {
            guard let answer = try client.readMessage(timeout: 10) else {
                Issue.record("answer \(id) missing")
                return
            }
            #expect(answer["id"] == .int(id))
            #expect(try LedgerExportResult(json: answer["result"] ?? .null).records.count == 4500)
        }
        #expect(!harness.log.lines.withLock { $0.contains { $0.contains("slow reader") } })
    }

    @Test func oversizedLineIsRefused() throws {
        let harness = try ServerHarness(options: { UnixSocketServerOptions(path: $0, maxLineBytes: 1024) })
        defer { harness.stop() }
        let client = try UnixSocketClient(path: harness.path)
        try client.sendRaw([UInt8](repeating: UInt8(ascii: "a"), count: 3000))
        let error = try #require(try client.readMessage())
        #expect(error.value(atPath: "error.code") == -32003)
        #expect(error.value(atPath: "error.message")?.stringValue?.contains("1024") == true)
        #expect(throws: ClientError.closed) { try client.readLine(timeout: 2) }
        let other = try UnixSocketClient(path: harness.path)
        #expect(try other.call(.status)["protocol_version"] == .int(stepdProtocolVersion))
    }

    @Test func abruptDisconnectsAndHalfLines() throws {
        let harness = try ServerHarness()
        defer { harness.stop() }
        for _ in 0..<20 {
            let c = try UnixSocketClient(path: harness.path)
            _ = try c.call(.stepsSubscribe)
            try c.sendRaw(Array("{\"jsonrpc\":\"2.0\",\"id\":1,\"meth".utf8))
            c.close()
        }
        // Fragments of one request sent separately are joined.
        let client = try UnixSocketClient(path: harness.path)
        for part in ["{\"jsonrpc\":\"2.0\",", "\"id\":5,\"method\":", "\"activity.current\"}\r\n"] {
            try client.sendRaw(Array(part.utf8))
            usleep(2000)
        }
        #expect(try client.readMessage()?["id"] == 5)
        #expect(try client.call(.status)["clients"] == 1)
        #expect(harness.onLoop { server, _ in server.subscriptionCount } == 0)
    }

    @Test func clientLimit() throws {
        let harness = try ServerHarness(options: { UnixSocketServerOptions(path: $0, maxClients: 3) })
        defer { harness.stop() }
        let clients = try (0..<3).map { _ in try UnixSocketClient(path: harness.path) }
        for c in clients { _ = try c.call(.status) }
        let refused = try UnixSocketClient(path: harness.path)
        let line = try #require(try refused.readMessage())
        #expect(line.value(atPath: "error.code") == -32003)
        #expect(line.value(atPath: "error.message")?.stringValue?.contains("too many clients") == true)
        #expect(throws: ClientError.closed) { try refused.readLine(timeout: 2) }
        clients[0].close()
        _ = try clients[1].call(.status)
        let later = try UnixSocketClient(path: harness.path)
        #expect(try later.call(.status)["clients"] == 3)
    }

    @Test func socketFileHandling() throws {
        let harness = try ServerHarness()
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

/// The RPC error a call failed with; nil when it succeeded or failed otherwise.
func rpcError(_ body: () throws -> Void) -> RPCError? {
    do {
        try body()
        return nil
    } catch {
        if case .rpc(let e)? = error as? ClientError { return e }
        return nil
    }
}
