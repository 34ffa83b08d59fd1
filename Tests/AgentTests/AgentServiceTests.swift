import Foundation
import LedgerStore
import POSIXLayer
import RPCDispatch
import Recordings
import StepJSON
import StepProtocol
import StepdModel
import Testing
@testable import StepdAgent

/// The agent's method handlers in memory: a real `Agent` (simulated board, ledger on a temporary
/// directory, never run, no socket) answering through `RPCDispatcher`, so each request goes
/// through the same param decoding, permission check and handler as over the socket.
final class InMemoryAgent {
    let directory: String
    let agent: Agent
    let dispatcher: RPCDispatcher
    static let agentUID: UInt32 = 990

    init() throws {
        directory = NSTemporaryDirectory() + "stepd-service-" + UUID().uuidString.prefix(8)
        let state = directory + "/state"
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        guard case .run(let options) = AgentOptions.parse(["--simulate", "builtin", "--state-dir", state],
                                                           defaultStateDirectory: state, defaultSocketPath: directory + "/unused.sock")
        else { throw AgentTestError("options did not parse") }
        let plan = try AgentLauncher.sensorPlan(options: options, defaultBoardPath: "/nonexistent").get()
        var ledgerOptions = LedgerOptions()
        ledgerOptions.deviceSourceId = AgentLauncher.simulatedSourceId
        let ledger = try LedgerService(stateDirectory: state, options: ledgerOptions, logger: .silent)
        agent = Agent(options: options, logger: .silent, notifier: SystemdNotifier(environment: [:]),
                      sensor: SensorPath(plan: plan, logger: .silent), ledger: ledger, localTimeZone: .utc,
                      signals: try SignalDescriptor(signals: []), metrics: nil)
        dispatcher = RPCDispatcher(service: AgentService(agent: agent),
                                   permissions: PermissionPolicy(agentUID: Self.agentUID, adminGroupID: nil),
                                   maxLineBytes: 65_536, logger: .silent)
        dispatcher.connected(1, peer: RPCCaller(pid: 1, uid: Self.agentUID, gid: Self.agentUID))
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    /// Every line the dispatcher sends to the connection for this request (answer first).
    func exchange(_ method: RPCMethod, _ params: JSONValue? = nil) throws -> [JSONValue] {
        let line = RPCRequest(id: .number(1), method: method.rawValue, params: params).json.serialized()
        return try dispatcher.receive(line, from: 1, unreadAnswerBytes: 0, now: SystemClocks.wall()).map { output in
            switch output {
            case .answer(_, let bytes), .notification(_, let bytes): return try JSONParser.parse(bytes, limits: JSONLimits(maxBytes: 1 << 24))
            case .pauseReading: throw AgentTestError("unexpected hold")
            }
        }
    }

    func call(_ method: RPCMethod, _ params: JSONValue? = nil) throws -> Result<JSONValue, RPCError> {
        let answer = try #require(try exchange(method, params).first)
        if let error = answer["error"] { return .failure(try #require(RPCError(json: error))) }
        return .success(try #require(answer["result"]))
    }

    /// The result, or a recorded issue naming the error.
    func result(_ method: RPCMethod, _ params: JSONValue? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws -> JSONValue {
        switch try call(method, params) {
        case .success(let value): return value
        case .failure(let error):
            Issue.record("\(method.rawValue): \(error)", sourceLocation: sourceLocation)
            return .null
        }
    }

    func errorCode(_ method: RPCMethod, _ params: JSONValue? = nil) throws -> Int? {
        if case .failure(let error) = try call(method, params) { return error.code }
        return nil
    }
}

/// The agent's notifications straight into the dispatcher, as `RPCServer` passes them on.
final class DispatchedNotifications: AgentNotifications {
    let dispatcher: RPCDispatcher
    private(set) var outputs: [RPCOutput] = []
    init(_ dispatcher: RPCDispatcher) { self.dispatcher = dispatcher }

    func publishSteps(total: Int, distanceMeters: Double?) {
        outputs += dispatcher.publishSteps(total: total, distanceMeters: distanceMeters, now: SystemClocks.wall())
    }
    func publishActivity(_ activity: ActivityResult) { outputs += dispatcher.publishActivity(activity) }
    func publishLedgerChange(reasons: [LedgerChangedNotice.Reason], latestAnchor: Int64) {
        outputs += dispatcher.publishLedgerChange(reasons: reasons, latestAnchor: latestAnchor)
    }

    /// The notification lines sent so far, parsed.
    func lines() throws -> [JSONValue] {
        try outputs.map { output in
            guard case .notification(_, let line) = output else { throw AgentTestError("not a notification: \(output)") }
            return try JSONParser.parse(line)
        }
    }
}

/// Whole minutes an hour or more back, so every range here lies in the past.
private func pastMinute(_ minutesAgo: Double) -> Double {
    ((SystemClocks.wall() / 60).rounded(.down) - minutesAgo) * 60
}

private func sample(_ source: String, start: Double, minutes: Double, steps: Int, syncID: String? = nil) -> JSONValue {
    var object: JSONObject = ["source": .string(source), "start": .double(start), "end": .double(start + minutes * 60),
                              "steps": .int(steps), "distance_m": .double(Double(steps) * 0.7)]
    if let syncID { object["sync_identifier"] = .string(syncID) }
    return .object(object)
}

@Suite(.serialized) struct AgentServiceTests {
    @Test func everyMethodIsCoveredHere() {
        // Keep this list equal to RPCMethod.allCases: a new method needs its tests below.
        let covered: Set<String> = [
            "status", "steps.query", "steps.statistics", "steps.collection", "activity.current", "activity.query",
            "steps.subscribe", "activity.subscribe", "unsubscribe", "samples.add", "samples.delete", "samples.list",
            "sources.list", "sources.priority", "ledger.subscribe", "ledger.export", "ledger.ack", "recording.start",
            "recording.stop",
        ]
        #expect(Set(RPCMethod.allCases.map(\.rawValue)) == covered)
    }

    @Test func statusAndActivityCurrent() throws {
        let memory = try InMemoryAgent()
        let status = try memory.result(.status)
        #expect(status["protocol_version"] == .int(stepdProtocolVersion))
        #expect(status.value(atPath: "board.name") == "simulated")
        #expect(status.value(atPath: "sensor.model") == "mpu6050")
        #expect(status["clients"] == 1)
        #expect(status["state_directory"] == .string(memory.agent.options.stateDirectory))
        #expect(status.value(atPath: "ledger.health") == "ok")
        #expect(try memory.errorCode(.status, ["verbose": true]) == RPCError.invalidParamsCode)
        let activity = try memory.result(.activityCurrent)
        #expect(activity["type"] == .string(memory.agent.currentActivity.kind.rawValue))
        #expect(try memory.errorCode(.activityCurrent, ["x": 1]) == RPCError.invalidParamsCode)
    }

    @Test func stepsQueryMergesSourcesAndListsThemWinnerFirst() throws {
        let memory = try InMemoryAgent()
        let start = pastMinute(180)
        _ = try memory.result(.samplesAdd, sample("app:phone", start: start, minutes: 10, steps: 1000))
        _ = try memory.result(.samplesAdd, sample("device:watch", start: start, minutes: 10, steps: 800))
        _ = try memory.result(.samplesAdd, sample("app:phone", start: start + 3600, minutes: 10, steps: 300))
        let answer = try memory.result(.stepsQuery, ["start": .double(start), "end": .double(start + 7200), "by_source": true])
        // Overlapping samples of two sources are merged, not added: the ranked winner (a device
        // before an app by default) counts where they overlap.
        #expect(answer["steps"] == 1100)
        // Cadence and pace are live figures, absent for a range in the past.
        #expect(answer["pace_s_per_m"] == .null)
        let sources = answer["by_source"]?.arrayValue?.compactMap { $0["source"]?.stringValue }
        let ranked = try memory.result(.sourcesList)["ranked"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(sources == ranked.filter { ["app:phone", "device:watch"].contains($0) })
        #expect(try memory.errorCode(.stepsQuery, ["start": .double(start), "end": .double(start + 60), "time_zone": "Mars/Olympus"])
                == RPCError.validationFailedCode)
        #expect(try memory.errorCode(.stepsQuery, ["start": .double(start), "end": .double(start - 60)]) == RPCError.validationFailedCode)
        #expect(try memory.errorCode(.stepsQuery, ["start": "noon", "end": .double(start)]) == RPCError.invalidParamsCode)
    }

    @Test func liveCadenceOnlyWhenTheQueryCountsThisDevice() throws {
        let memory = try InMemoryAgent()
        // A minute of the embedded walk gives the engine a live cadence and pace.
        for sample in EmbeddedRecording.samples.prefix(2400) { _ = memory.agent.engine.process(sample) }
        #expect(memory.agent.engine.cadence != nil)
        let all = try memory.result(.stepsQuery, ["today": true])
        #expect(all["cadence_spm"]?.doubleValue != nil)
        #expect(all["pace_s_per_m"]?.doubleValue != nil)
        let own = try memory.result(.stepsQuery, ["today": true, "sources": [.string("detector:" + AgentLauncher.simulatedSourceId)]])
        #expect(own["cadence_spm"]?.doubleValue != nil)
        // Only another source's steps: the wrist's walking cadence is not theirs (it read
        // "0 steps, 116 steps/min").
        let phone = try memory.result(.stepsQuery, ["today": true, "sources": ["app:phone"]])
        #expect(phone["steps"] == 0)
        #expect(phone["cadence_spm"] == .null)
        #expect(phone["pace_s_per_m"] == .null)
    }

    @Test func statisticsAndCollectionAddUpToTheQuery() throws {
        let memory = try InMemoryAgent()
        // On a whole UTC hour, so the hour buckets (aligned on midnight in UTC) hold one sample each.
        let start = ((SystemClocks.wall() / 3600).rounded(.down) - 10) * 3600
        for hour in 0..<3 {
            _ = try memory.result(.samplesAdd, sample("app:phone", start: start + Double(hour) * 3600, minutes: 30, steps: 100 * (hour + 1)))
        }
        let range: JSONObject = ["start": .double(start), "end": .double(start + 3 * 3600)]
        var statisticsParams = range
        statisticsParams["bucket"] = ["hours": 1]
        statisticsParams["options"] = ["sum", "min", "max", "avg"]
        let statistics = try memory.result(.stepsStatistics, .object(statisticsParams))
        #expect(statistics["sum"] == 600)
        #expect(statistics["min"] == 100)
        #expect(statistics["max"] == 300)
        var collectionParams = range
        collectionParams["interval"] = ["hours": 1]
        collectionParams["anchor"] = .double(start)
        collectionParams["by_source"] = true
        let collection = try memory.result(.stepsCollection, .object(collectionParams))
        let buckets = collection["buckets"]?.arrayValue ?? []
        #expect(buckets.map { $0["steps"] } == [100, 200, 300])
        #expect(buckets.first?["by_source"]?.arrayValue?.first?["source"] == "app:phone")
        #expect(collection["more"] == false)
        var tooFine = range
        tooFine["end"] = .double(start + 30 * 86_400)
        tooFine["interval"] = ["minutes": 1]
        #expect(try memory.errorCode(.stepsCollection, .object(tooFine)) == RPCError.validationFailedCode)
        statisticsParams["time_zone"] = "Mars/Olympus"
        #expect(try memory.errorCode(.stepsStatistics, .object(statisticsParams)) == RPCError.validationFailedCode)
    }

    @Test func activityHistoryFromTheLedger() throws {
        let memory = try InMemoryAgent()
        let ledger = memory.agent.ledger
        let start = pastMinute(120)
        ledger.activityChanged(to: .walking, at: start, now: start)
        ledger.addDetectedSteps(times: (0..<60).map { start + Double($0) }, distance: 40, activity: .walking, now: start + 60)
        ledger.activityChanged(to: .running, at: start + 120, now: start + 120)
        ledger.addDetectedSteps(times: (0..<60).map { start + 120 + Double($0) * 0.5 }, distance: 50, activity: .running, now: start + 160)
        ledger.activityChanged(to: .stationary, at: start + 300, now: start + 300)
        let answer = try memory.result(.activityQuery, ["start": .double(start - 60), "end": .double(start + 3600)])
        let segments = answer["segments"]?.arrayValue ?? []
        #expect(segments.map { $0["type"] } == ["walking", "running"])
        // Stored history does not keep the classifier's confidence.
        #expect(segments.allSatisfy { $0["confidence"] == "medium" })
        #expect(try memory.errorCode(.activityQuery, ["today": true, "time_zone": "Nowhere/Land"]) == RPCError.validationFailedCode)
    }

    @Test func subscriptionsStartFromTheLedger() throws {
        let memory = try InMemoryAgent()
        let from = pastMinute(30)
        memory.agent.ledger.addDetectedSteps(times: (0..<42).map { from + 60 + Double($0) }, distance: 30, activity: .walking,
                                             now: from + 120)
        let lines = try memory.exchange(.stepsSubscribe, ["from": .double(from), "update_on": 5])
        try #require(lines.count == 2)
        let subscription = try #require(lines[0].value(atPath: "result.subscription"))
        #expect(lines[1]["method"] == "steps.update")
        #expect(lines[1].value(atPath: "params.subscription") == subscription)
        #expect(lines[1].value(atPath: "params.steps") == 42)
        #expect(try memory.errorCode(.stepsSubscribe, ["from": .double(SystemClocks.wall() + 3600)]) == RPCError.validationFailedCode)
        let activity = try #require(try memory.result(.activitySubscribe)["subscription"])
        #expect(try memory.errorCode(.activitySubscribe, ["x": 1]) == RPCError.invalidParamsCode)
        let ledger = try #require(try memory.result(.ledgerSubscribe)["subscription"])
        #expect(try memory.errorCode(.ledgerSubscribe, ["x": 1]) == RPCError.invalidParamsCode)
        #expect(try memory.result(.unsubscribe, ["subscription": activity])["unsubscribed"] == activity)
        #expect(try memory.result(.unsubscribe, ["subscription": ledger])["unsubscribed"] == ledger)
        #expect(try memory.errorCode(.unsubscribe, ["subscription": activity]) == RPCError.invalidParamsCode)
    }

    /// The wiring in `Agent.attach`: a change the ledger reports reaches ledger subscribers, and
    /// a change the subscriber's own request caused follows that request's answer (the ledger
    /// reports it while the answer is being built; sent at once it would overtake the answer).
    @Test func ledgerChangesReachLedgerSubscribersAfterTheAnswer() throws {
        let memory = try InMemoryAgent()
        let notifications = DispatchedNotifications(memory.dispatcher)
        memory.agent.attach(notifications: notifications)
        let subscription = try #require(try memory.result(.ledgerSubscribe)["subscription"])
        #expect(try notifications.lines().isEmpty)
        let lines = try memory.exchange(.samplesAdd, sample("app:phone", start: pastMinute(100), minutes: 5, steps: 50))
        #expect(try notifications.lines().isEmpty, "published ahead of the answer")
        try #require(lines.count == 2, "expected the answer, then ledger.changed: \(lines.map(\.jsonText))")
        let anchor = try #require(lines[0].value(atPath: "result.samples")?.arrayValue?.first?["id"]?.stringValue.flatMap { Int64($0) })
        #expect(lines[1]["method"] == "ledger.changed")
        #expect(lines[1].value(atPath: "params.subscription") == subscription)
        #expect(lines[1].value(atPath: "params.reasons") == ["add"])
        #expect(lines[1].value(atPath: "params.latest_anchor") == .int64(anchor))
        // A change no request caused (the agent's own checkpoint) goes out at once.
        #expect(memory.dispatcher.publishLedgerChange(reasons: [.checkpoint], latestAnchor: anchor + 1).count == 1)
        #expect(try memory.exchange(.status).count == 1)
    }

    @Test func externalSamplesAddListDelete() throws {
        let memory = try InMemoryAgent()
        let start = pastMinute(240)
        let added = try memory.result(.samplesAdd, ["samples": [
            sample("app:phone", start: start, minutes: 5, steps: 500, syncID: "a"),
            sample("app:phone", start: start + 600, minutes: 5, steps: 400, syncID: "b"),
        ]])
        let ids = added["samples"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
        #expect(ids.count == 2)
        #expect(added["samples"]?.arrayValue?.allSatisfy { $0["status"] == "added" } == true)
        // The same sync identifier and version again: nothing new is stored.
        let again = try memory.result(.samplesAdd, sample("app:phone", start: start, minutes: 5, steps: 500, syncID: "a"))
        #expect(again["samples"]?.arrayValue?.first?["status"] != "added")
        #expect(try memory.errorCode(.samplesAdd, sample("detector:this-device", start: start, minutes: 1, steps: 1))
                == RPCError.validationFailedCode)
        #expect(try memory.errorCode(.samplesAdd, sample("app:bad name", start: start, minutes: 1, steps: 1)) == RPCError.invalidParamsCode)

        // A page of one, continued from next_start, lists both.
        let first = try memory.result(.samplesList, ["start": .double(start - 60), "end": .double(start + 3600), "limit": 1])
        #expect(first["samples"]?.arrayValue?.map { $0["sync_identifier"] } == ["a"])
        #expect(first["more"] == true)
        let next = try #require(first["next_start"])
        let second = try memory.result(.samplesList, ["start": next, "end": .double(start + 3600), "limit": 1])
        #expect(second["samples"]?.arrayValue?.map { $0["steps"] } == [400])
        #expect(try memory.errorCode(.samplesList, ["today": true, "limit": 0]) == RPCError.invalidParamsCode)

        let deleted = try memory.result(.samplesDelete, ["source": "app:phone", "ids": .array(ids.prefix(1).map { .string($0) } + ["99999", "x"])])
        #expect(deleted["deleted"] == 1)
        #expect(deleted["not_found"]?.arrayValue?.count == 2)
        #expect(try memory.errorCode(.samplesDelete, ["source": "detector:simulated", "ids": ["1"]]) == RPCError.validationFailedCode)
        let total = try memory.result(.stepsQuery, ["start": .double(start - 60), "end": .double(start + 3600)])
        #expect(total["steps"] == 400)
    }

    @Test func sourcePriority() throws {
        let memory = try InMemoryAgent()
        let start = pastMinute(90)
        _ = try memory.result(.samplesAdd, sample("app:phone", start: start, minutes: 10, steps: 1000))
        _ = try memory.result(.samplesAdd, sample("device:watch", start: start, minutes: 10, steps: 800))
        let set = try memory.result(.sourcesPriority, ["order": ["device:watch", "app:phone"]])
        #expect(set["order"] == ["device:watch", "app:phone"])
        #expect(try memory.result(.sourcesList)["order"] == ["device:watch", "app:phone"])
        #expect(try memory.result(.stepsQuery, ["start": .double(start), "end": .double(start + 600)])["steps"] == 800)
        #expect(try memory.errorCode(.sourcesPriority, ["order": ["not a source"]]) == RPCError.invalidParamsCode)
        #expect(try memory.errorCode(.sourcesList, ["order": []]) == RPCError.invalidParamsCode)
    }

    @Test func ledgerExportAndAck() throws {
        let memory = try InMemoryAgent()
        let start = pastMinute(300)
        for n in 0..<3 { _ = try memory.result(.samplesAdd, sample("app:phone", start: start + Double(n) * 600, minutes: 5, steps: 10 + n)) }
        let page = try memory.result(.ledgerExport, ["anchor": 0, "limit": 2])
        #expect(page["records"]?.arrayValue?.map { $0["steps"] } == [10, 11])
        #expect(page["more"] == true)
        let anchor = try #require(page["next_anchor"])
        let rest = try memory.result(.ledgerExport, ["anchor": anchor, "limit": 10])
        #expect(rest["records"]?.arrayValue?.map { $0["steps"] } == [12])
        #expect(rest["more"] == false)
        #expect(try memory.errorCode(.ledgerExport, ["anchor": -1]) == RPCError.invalidParamsCode)
        let ack = try memory.result(.ledgerAck, ["anchor": anchor])
        #expect(ack["acknowledged"] == anchor)
        #expect(ack["pending_records"] == 1)
        #expect(try memory.errorCode(.ledgerAck, ["anchor": 1_000_000]) == RPCError.validationFailedCode)
    }

    @Test func rawRecording() throws {
        let memory = try InMemoryAgent()
        #expect(try memory.errorCode(.recordingStop) == RPCError.unavailableCode)
        let started = try memory.result(.recordingStart, ["minutes": 1, "label": "wrist-test"])
        let file = try #require(started["file"]?.stringValue)
        #expect(file.hasPrefix(memory.agent.options.stateDirectory + "/recordings/"))
        #expect(file.contains("wrist-test"))
        #expect(try memory.errorCode(.recordingStart, ["minutes": 1]) == RPCError.validationFailedCode)
        let stopped = try memory.result(.recordingStop)
        #expect(stopped["file"] == .string(file))
        #expect(stopped["samples"] == 0)
        #expect(FileManager.default.fileExists(atPath: file))
    }

    /// A page that grows to hold every sample of its last millisecond said `more` with a
    /// next_start even when nothing followed: the next page was empty.
    @Test func aPageOfSamplesThatStartTogetherEndsTheList() throws {
        let memory = try InMemoryAgent()
        let start = pastMinute(240)
        _ = try memory.result(.samplesAdd, ["samples": .array((1...3).map { sample("app:phone", start: start, minutes: Double($0), steps: 10) })])
        let page = try memory.result(.samplesList, ["start": .double(start - 60), "end": .double(start + 3600), "limit": 2])
        #expect(page["samples"]?.arrayValue?.count == 3)
        #expect(page["more"] == false && page["next_start"] == .null, "\(page.jsonText)")
        // With one more after them, the page still says so.
        _ = try memory.result(.samplesAdd, sample("app:phone", start: start + 600, minutes: 1, steps: 10))
        let again = try memory.result(.samplesList, ["start": .double(start - 60), "end": .double(start + 3600), "limit": 2])
        #expect(again["samples"]?.arrayValue?.count == 3)
        #expect(again["more"] == true, "\(again.jsonText)")
        let rest = try memory.result(.samplesList, ["start": try #require(again["next_start"]), "end": .double(start + 3600), "limit": 2])
        #expect(rest["samples"]?.arrayValue?.count == 1 && rest["more"] == false, "\(rest.jsonText)")
    }

    /// On a full disk the start was answered with the file: nothing could be written, the
    /// sidecar was missing, and `stepctl record --wait` printed "recorded FILE" over an empty
    /// file. A sidecar that cannot be written now refuses the start and leaves no file behind.
    @Test func aRecordingWhoseSidecarCannotBeWrittenDoesNotStart() throws {
        let directory = NSTemporaryDirectory() + "stepd-capture-" + UUID().uuidString.prefix(8)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // The sidecar's name taken by a non-empty folder: its atomic rename fails, as a write
        // fails on a full disk.
        let base = directory + "/19700101T000100Z-x"
        try FileManager.default.createDirectory(atPath: base + ".json/in-the-way", withIntermediateDirectories: true)
        let capture = RawCapture(directory: directory, maxBytes: 1 << 30, logger: .silent)
        let metadata = RawCapture.Metadata(board: "b", chip: "mpu6050", rateHz: 40, label: "x", agentVersion: "t")
        #expect(throws: RawCapture.StartError.self) {
            _ = try capture.start(minutes: 1, label: "x", metadata: metadata, monotonicNow: 0, wallNow: 60)
        }
        #expect(!capture.isRecording)
        #expect(!FileManager.default.fileExists(atPath: base + ".csv.gz"))
    }
}
