import Glibc
import RPCDispatch
import StepJSON
import StepProtocol
import StepdModel
import Testing

/// One dispatcher and its fake service, driven line by line: no socket, no thread.
struct DispatchSession {
    let dispatcher: RPCDispatcher
    let service = FakeService()
    let log = LogBox()
    static let now = 1_700_000_000.0

    init(permissions: PermissionPolicy = PermissionPolicy(agentUID: 990, adminGroupID: nil),
         limits: SubscriptionLimits = SubscriptionLimits()) {
        let log = self.log
        dispatcher = RPCDispatcher(service: service, permissions: permissions, maxLineBytes: 65_536, subscriptionLimits: limits,
                                   logger: EventLogger { level, message in log.lines.withLock { $0.append("\(level.name): \(message)") } })
    }

    /// A connection from the agent's own user (990) unless `uid` says otherwise.
    func connect(_ id: ConnectionID, uid: UInt32 = 990) {
        dispatcher.connected(id, peer: RPCCaller(pid: 100 + Int32(id), uid: uid, gid: uid))
    }

    func send(_ text: String, from id: ConnectionID = 1, unread: Int = 0, now: Double = DispatchSession.now) -> [RPCOutput] {
        dispatcher.receive(Array(text.utf8), from: id, unreadAnswerBytes: unread, now: now)
    }

    func request(_ method: String, _ params: JSONValue? = nil, id: Int64 = 7) -> String {
        String(decoding: RPCRequest(id: .number(id), method: method, params: params).json.serialized(), as: UTF8.self)
    }

    /// The one answer line `outputs` holds for `id`, parsed.
    func answer(_ outputs: [RPCOutput], to id: ConnectionID = 1) throws -> JSONValue {
        let lines = outputs.compactMap { output -> [UInt8]? in
            if case .answer(let to, let line) = output, to == id { return line }
            return nil
        }
        try #require(lines.count == 1, "expected one answer, got \(outputs)")
        return try JSONParser.parse(lines[0], limits: JSONLimits(maxBytes: 1 << 24))
    }

    /// The result of one call, or its error as `RPCError`.
    func call(_ method: RPCMethod, _ params: JSONValue? = nil, from id: ConnectionID = 1,
              now: Double = DispatchSession.now) throws -> Result<JSONValue, RPCError> {
        let reply = try answer(send(request(method.rawValue, params), from: id, now: now), to: id)
        #expect(reply["id"] == 7)
        if let error = reply["error"] { return .failure(try #require(RPCError(json: error))) }
        return .success(try #require(reply["result"]))
    }

    /// Notification lines (parsed) addressed to `id`.
    static func notifications(_ outputs: [RPCOutput], to id: ConnectionID) throws -> [JSONValue] {
        try outputs.compactMap { output -> JSONValue? in
            guard case .notification(let to, let line) = output, to == id else { return nil }
            return try JSONParser.parse(line)
        }
    }
}

extension Result where Failure == RPCError {
    var code: Int? { if case .failure(let e) = self { return e.code } else { return nil } }
    var value: Success? { try? get() }
}

@Suite struct DispatchTests {
    @Test func answersRequests() throws {
        let session = DispatchSession()
        session.connect(1)
        session.connect(2)
        let status = try #require(try session.call(.status).value)
        #expect(status["protocol_version"] == .int(stepdProtocolVersion))
        #expect(status.value(atPath: "sensor.model") == "mpu6050")
        #expect(status["clients"] == 2)
        #expect(status.value(atPath: "ledger.backlog_records") == 0)
        let steps = try #require(try session.call(.stepsQuery, ["start": 1_700_000_000, "end": 1_700_000_100]).value)
        #expect(steps["steps"] == 10)
        #expect(steps["pace_s_per_m"] == .null)
        let collection = try session.call(.stepsCollection, ["today": true, "interval": ["hours": 1]]).value
        #expect(collection?["buckets"]?.arrayValue?.count == 1)
        session.dispatcher.disconnected(2)
        #expect(try session.call(.status).value?["clients"] == 1)
        #expect(session.dispatcher.requestsServed == 4)
    }

    @Test func errorsAreJSONRPCErrors() throws {
        let session = DispatchSession()
        session.connect(1)
        let notFound = try session.answer(session.send(session.request("steps.frobnicate")))
        #expect(notFound.value(atPath: "error.code") == -32601)
        #expect(notFound.value(atPath: "error.data.methods")?.arrayValue?.count == RPCMethod.allCases.count)
        let badParams = try session.call(.stepsQuery, ["start": "yesterday", "end": 5])
        #expect(badParams.code == RPCError.invalidParamsCode)
        #expect(try session.call(.stepsCollection, ["today": true, "interval": ["days": 1], "time_zone": "Mars/Olympus"]).code
                == RPCError.validationFailedCode)
        #expect(try session.call(.recordingStart, ["minutes": 1]).code == RPCError.unavailableCode)
        // Lines that are not requests: parse errors with a null id.
        for garbage in ["{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":", "\u{1}", String(repeating: "[", count: 40) + String(repeating: "]", count: 40)] {
            let reply = try session.answer(session.send(garbage))
            #expect(reply.value(atPath: "error.code") == -32700)
            #expect(reply["id"] == .null)
        }
        let invalidUTF8 = try session.answer(session.dispatcher.receive([0xC3, 0x28], from: 1, unreadAnswerBytes: 0, now: DispatchSession.now))
        #expect(invalidUTF8.value(atPath: "error.code") == -32700)
        // A bad envelope keeps its id, so the client can match the error.
        let envelope = try session.answer(session.send("{\"jsonrpc\":\"1.0\",\"id\":\"x\",\"method\":\"status\"}"))
        #expect(envelope.value(atPath: "error.code") == -32600)
        #expect(envelope["id"] == "x")
        #expect(session.dispatcher.errorsSent == 5)
    }

    @Test func batchesAndNotifications() throws {
        let session = DispatchSession()
        session.connect(1)
        let batch = "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"activity.current\"},{\"jsonrpc\":\"2.0\",\"method\":\"status\"},{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"nope\"}]"
        let reply = try #require(try session.answer(session.send(batch)).arrayValue)
        #expect(reply.count == 2)
        #expect(reply[0].value(atPath: "result.type") == "walking")
        #expect(reply[1].value(atPath: "error.code") == -32601)
        // A JSON-RPC notification (no id) is executed but gets no answer.
        #expect(session.send("{\"jsonrpc\":\"2.0\",\"method\":\"status\"}").isEmpty)
        #expect(try session.answer(session.send("[]")).value(atPath: "error.code") == -32600)
        let tooMany = "[" + Array(repeating: "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"status\"}", count: 33).joined(separator: ",") + "]"
        #expect(try session.answer(session.send(tooMany)).value(atPath: "error.code") == -32600)
    }

    @Test func stateChangingMethodsNeedAnAdminPeer() throws {
        let session = DispatchSession()
        session.connect(1)
        session.connect(2, uid: 4242)
        let sample: JSONValue = ["source": "phone", "start": 1_700_000_000, "end": 1_700_000_060, "steps": 90]
        let added = try #require(try session.call(.samplesAdd, sample).value)
        #expect(try SamplesAddResult(json: added).samples == [AddedSample(id: "s1", status: .added)])
        #expect(session.service.added.count == 1)
        let denied = try session.call(.samplesAdd, sample, from: 2)
        #expect(denied.code == RPCError.permissionDeniedCode)
        #expect(session.service.added.count == 1)
        #expect(session.dispatcher.denials == 1)
        #expect(session.log.lines.withLock { $0.contains { $0.contains("denied samples.add to pid 102 uid 4242") } })
        // Reads stay open to everyone who can connect.
        #expect(try session.call(.sourcesList, from: 2).value != nil)
    }

    @Test func stepSubscriptions() throws {
        let session = DispatchSession()
        session.connect(1)
        session.connect(2)
        session.service.total = 1000
        _ = session.dispatcher.publishSteps(total: 1000, distanceMeters: 700, now: DispatchSession.now)
        let id = try #require(try session.call(.stepsSubscribe, ["update_on": 10]).value?["subscription"]?.intValue)
        var notices: [JSONValue] = []
        for total in 1001...1025 {
            let outputs = session.dispatcher.publishSteps(total: total, distanceMeters: 700 + Double(total - 1000), now: DispatchSession.now + 1)
            notices += try DispatchSession.notifications(outputs, to: 1)
            #expect(try DispatchSession.notifications(outputs, to: 2).isEmpty)
        }
        #expect(notices.map { $0.value(atPath: "params.steps") } == [10, 20])
        #expect(notices.allSatisfy { $0["method"] == "steps.update" && $0.value(atPath: "params.subscription")?.intValue == id })
        #expect(notices[0].value(atPath: "params.distance_m") == 10)
        #expect(notices[0].value(atPath: "params.start") == .double(DispatchSession.now))
        // The agent's counter restarted: counting goes on from the new origin.
        _ = session.dispatcher.publishSteps(total: 3, now: DispatchSession.now + 2)
        let restarted = try DispatchSession.notifications(session.dispatcher.publishSteps(total: 13, now: DispatchSession.now + 3), to: 1)
        #expect(restarted.map { $0.value(atPath: "params.steps") } == [10])
        // Activity updates go to activity subscribers only.
        _ = try session.call(.activitySubscribe, from: 2)
        let activity = session.dispatcher.publishActivity(ActivityResult(kind: .running, confidence: .high, start: 9))
        #expect(try DispatchSession.notifications(activity, to: 2).map { $0.value(atPath: "params.type") } == ["running"])
        #expect(try DispatchSession.notifications(activity, to: 1).isEmpty)
        // Someone else's subscription cannot be cancelled; one's own once.
        #expect(try session.call(.unsubscribe, ["subscription": .int(id)], from: 2).code == RPCError.invalidParamsCode)
        #expect(try session.call(.unsubscribe, ["subscription": .int(id)]).value?["unsubscribed"]?.intValue == id)
        #expect(try session.call(.unsubscribe, ["subscription": .int(id)]).code == RPCError.invalidParamsCode)
        #expect(try DispatchSession.notifications(session.dispatcher.publishSteps(total: 1100, now: DispatchSession.now), to: 1).isEmpty)
    }

    @Test func subscribeFromAPastTimeReportsThoseStepsAfterTheAnswer() throws {
        let session = DispatchSession()
        session.connect(1)
        let outputs = session.send(session.request("steps.subscribe", ["from": .double(DispatchSession.now - 600)]))
        try #require(outputs.count == 2)
        guard case .answer(1, let answerLine) = outputs[0], case .notification(1, let noticeLine) = outputs[1] else {
            Issue.record("expected the answer, then the notification: \(outputs)")
            return
        }
        let id = try JSONParser.parse(answerLine).value(atPath: "result.subscription")
        let notice = try JSONParser.parse(noticeLine)
        #expect(notice.value(atPath: "params.subscription") == id)
        #expect(notice.value(atPath: "params.steps") == 60)
        #expect(notice.value(atPath: "params.start") == .double(DispatchSession.now - 600))
        #expect(try session.call(.stepsSubscribe, ["from": .double(DispatchSession.now + 60)]).code == RPCError.validationFailedCode)
        #expect(try session.call(.stepsSubscribe, ["from": .double(DispatchSession.now - 400 * 86_400)]).code == RPCError.validationFailedCode)
    }

    @Test func ledgerSubscriptions() throws {
        let session = DispatchSession()
        session.connect(1)
        #expect(try session.call(.ledgerSubscribe, ["extra": 1]).code == RPCError.invalidParamsCode)
        let id = try #require(try session.call(.ledgerSubscribe).value?["subscription"])
        let notices = try DispatchSession.notifications(session.dispatcher.publishLedgerChange(reasons: [.checkpoint], latestAnchor: 42), to: 1)
        #expect(notices.count == 1)
        #expect(notices.first?["method"] == "ledger.changed")
        #expect(notices.first?.value(atPath: "params.subscription") == id)
        #expect(notices.first?.value(atPath: "params.latest_anchor") == 42)
    }

    @Test func subscriptionLimits() throws {
        let session = DispatchSession(limits: SubscriptionLimits(perClient: 3, total: 5))
        session.connect(1)
        session.connect(2)
        for _ in 0..<3 { #expect(try session.call(.stepsSubscribe).value != nil) }
        #expect(try session.call(.activitySubscribe) == .failure(.limitExceeded("at most 3 subscriptions per connection; unsubscribe first")))
        for _ in 0..<2 { #expect(try session.call(.activitySubscribe, from: 2).value != nil) }
        #expect(try session.call(.activitySubscribe, from: 2).code == RPCError.limitExceededCode)
        // Subscriptions die with their connection.
        session.dispatcher.disconnected(1)
        #expect(session.dispatcher.subscriptionCount == 2)
        #expect(try session.call(.ledgerSubscribe, from: 2).value != nil)
        #expect(session.dispatcher.subscriptionCount == 3)
    }

    /// Issue 12, defect 1: an answer over the queue limit closed the connection with no answer.
    /// Now it is a -32003 error saying what to lower.
    @Test func tooLargeAnswerIsAnErrorNamingWhatToLower() throws {
        let session = DispatchSession()
        session.connect(1)
        let error = try session.call(.ledgerExport, ["limit": 8000])
        guard case .failure(let e) = error else {
            Issue.record("no error for a 1.5 MB answer")
            return
        }
        #expect(e.code == RPCError.limitExceededCode)
        #expect(e.message.contains("lower \"limit\""))
        // A batch whose answers together are too large: the member that would overflow says so.
        let batch = "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ledger.export\",\"params\":{\"limit\":4000}},{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ledger.export\",\"params\":{\"limit\":4000}}]"
        let reply = try #require(try session.answer(session.send(batch)).arrayValue)
        #expect(reply.count == 2)
        #expect(reply[0]["result"] != nil)
        #expect(reply[1].value(atPath: "error.code") == .int(RPCError.limitExceededCode))
    }

    /// A client with unread answers gets its next requests held (and its input paused), then
    /// answered in order once it has read them.
    @Test func requestsOfAClientWithUnreadAnswersAreHeld() throws {
        let session = DispatchSession()
        session.connect(1)
        let unread = RPCDispatcher.holdRequestsAboveBytes
        #expect(session.send(session.request("status", id: 1), unread: unread) == [.pauseReading(1, true)])
        #expect(session.send(session.request("activity.current", id: 2), unread: 0).isEmpty)
        #expect(session.dispatcher.connectionsHoldingRequests == [1])
        #expect(session.dispatcher.releaseHeld(of: 1, unreadAnswerBytes: unread, now: DispatchSession.now) == nil)
        let first = try #require(session.dispatcher.releaseHeld(of: 1, unreadAnswerBytes: 0, now: DispatchSession.now))
        #expect(try session.answer(first)["id"] == 1)
        let second = try #require(session.dispatcher.releaseHeld(of: 1, unreadAnswerBytes: 10, now: DispatchSession.now))
        #expect(try session.answer(second)["id"] == 2)
        #expect(second.last == .pauseReading(1, false))
        #expect(session.dispatcher.releaseHeld(of: 1, unreadAnswerBytes: 0, now: DispatchSession.now) == nil)
        #expect(session.dispatcher.connectionsHoldingRequests.isEmpty)
        // Held requests go with their connection.
        _ = session.send(session.request("status"), unread: unread)
        session.dispatcher.disconnected(1)
        #expect(session.dispatcher.connectionsHoldingRequests.isEmpty)
        #expect(session.send(session.request("status")).isEmpty)
    }

    @Test func refusalLineIsAJSONRPCError() throws {
        let line = try JSONParser.parse(RPCDispatcher.refusalLine("too many clients"))
        #expect(line.value(atPath: "error.code") == .int(RPCError.limitExceededCode))
        #expect(line["id"] == .null)
    }
}
