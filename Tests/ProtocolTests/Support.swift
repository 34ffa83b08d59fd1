import Foundation
import RPCDispatch
import StepJSON
import StepProtocol
import StepSocket
import StepdModel
import Synchronization

/// A service with canned, checkable answers.
final class FakeService: StepdService {
    var total = 0
    var added: [SamplesAddParams] = []

    func status() throws(RPCError) -> StatusResult {
        StatusResult(
            version: "test", uptimeSeconds: 12.5, board: .init(name: "fake", file: nil),
            sensor: .init(model: "mpu6050", address: 0x68, bus: "emulated", health: .ok, samples: 400, errors: 0, overflows: 0,
                          reinits: 0, rateHz: 40, lastError: nil),
            capabilities: .init(stepCounting: true, distance: true, cadence: true, pace: true, activity: true),
            stepsToday: total, stepsSinceStart: total, activity: ActivityResult(kind: .walking, confidence: .high, start: 1_700_000_000),
            ledger: .init(health: "ok", records: 3, unsavedSteps: 0, lastCheckpoint: nil))
    }

    func stepsQuery(_ params: StepsQueryParams) throws(RPCError) -> StepsQueryResult {
        guard case .between(let start, let end) = params.range else {
            return StepsQueryResult(start: 0, end: 1, steps: total, distanceMeters: 0, cadenceStepsPerMinute: nil, paceSecondsPerMeter: nil)
        }
        // One step per 10 s of range, so answers are checkable.
        let steps = Int((end - start) / 10)
        return StepsQueryResult(start: start, end: end, steps: steps, distanceMeters: Double(steps) * 0.7,
                                cadenceStepsPerMinute: 6, paceSecondsPerMeter: nil,
                                bySource: params.bySource ? [SourceTotal(source: "stepd", steps: steps, distanceMeters: 0)] : nil)
    }

    func stepsStatistics(_ params: StepsStatisticsParams) throws(RPCError) -> StepsStatisticsResult {
        StepsStatisticsResult(start: 0, end: 86_400, bucket: params.bucket, buckets: 1, sum: 10, min: nil, max: nil, average: nil)
    }

    func stepsCollection(_ params: StepsCollectionParams) throws(RPCError) -> StepsCollectionResult {
        if params.timeZone == "Mars/Olympus" { throw .validationFailed("unknown time zone \"Mars/Olympus\"") }
        return StepsCollectionResult(timeZone: params.timeZone ?? "UTC", interval: params.interval, anchor: 0,
                                     buckets: [CollectionBucket(start: 0, end: 3600, steps: 5, distanceMeters: 3.5)])
    }

    func activityCurrent() throws(RPCError) -> ActivityResult { ActivityResult(kind: .walking, confidence: .medium, start: 5) }
    func activityQuery(_ params: ActivityQueryParams) throws(RPCError) -> ActivityQueryResult { ActivityQueryResult(segments: []) }
    func currentStepTotal() -> Int { total }

    func samplesAdd(_ params: SamplesAddParams, caller: RPCCaller) throws(RPCError) -> SamplesAddResult {
        added.append(params)
        return SamplesAddResult(samples: [AddedSample(id: "s\(added.count)", status: .added)])
    }

    func samplesDelete(_ params: SamplesDeleteParams, caller: RPCCaller) throws(RPCError) -> SamplesDeleteResult {
        SamplesDeleteResult(deleted: 0, notFound: params.ids)
    }

    func samplesList(_ params: SamplesListParams) throws(RPCError) -> SamplesListResult {
        SamplesListResult(samples: [], more: false, nextStart: nil)
    }
    func sourcesList() throws(RPCError) -> SourcesResult { SourcesResult(order: [], ranked: []) }
    func sourcesPriority(_ params: SourcesPriorityParams, caller: RPCCaller) throws(RPCError) -> SourcesResult {
        SourcesResult(order: params.order, ranked: params.order)
    }
    /// The "current time" of `stepsSince`: one step per 10 s from `from` up to here.
    var now = 1_700_000_000.0
    func stepsSince(_ from: Double) throws(RPCError) -> (steps: Int, distanceMeters: Double) {
        let steps = Int((now - from) / 10)
        return (steps, Double(steps) * 0.7)
    }
    /// `limit` records of about 190 bytes each (unpaged, to test the server's answer limits).
    func ledgerExport(_ params: LedgerExportParams) throws(RPCError) -> LedgerExportResult {
        var records: [ExportedRecord] = []
        for offset in 0..<Int64(params.limit) {
            let anchor: Int64 = params.anchor + offset + 1
            let start: Double = 1_700_000_000.125 + Double(offset)
            records.append(ExportedRecord(anchor: anchor, id: String(anchor), source: "detector:this-device", start: start,
                                          end: start + 60.5, steps: 96, distanceMeters: 70.4, userEntered: false, utcOffset: 3600))
        }
        return LedgerExportResult(records: records, nextAnchor: params.anchor + Int64(params.limit), more: false)
    }

    func ledgerAck(_ params: LedgerAckParams, caller: RPCCaller) throws(RPCError) -> LedgerAckResult {
        LedgerAckResult(acknowledged: params.anchor, pendingRecords: 0)
    }

    func recordingStart(_ params: RecordingStartParams, caller: RPCCaller) throws(RPCError) -> RecordingStartResult {
        throw .unavailable("recording needs a real sensor")
    }

    func recordingStop(caller: RPCCaller) throws(RPCError) -> RecordingStopResult { throw .validationFailed("no recording running") }
}

/// A real RPCServer on a temporary socket, served on the test's own thread: every wait for an
/// answer runs the server's poll loop in between non-blocking reads, as the agent's loop would.
final class SocketHarness {
    let directory: String
    let path: String
    let server: RPCServer
    let service: FakeService
    let log = LogBox()

    init(options: (String) -> UnixSocketServerOptions = { UnixSocketServerOptions(path: $0) },
         permissions: PermissionPolicy = PermissionPolicy(agentUID: UInt32(getuid()), adminGroupID: nil),
         limits: SubscriptionLimits = SubscriptionLimits()) throws {
        var template = Array("/tmp/stepd-proto-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw POSIXError(.EIO) }
        directory = String(cString: made)
        path = directory + "/stepd.sock"
        service = FakeService()
        let log = self.log
        server = try RPCServer(options: options(path), service: service, permissions: permissions, subscriptionLimits: limits,
                               logger: EventLogger { level, message in log.lines.withLock { $0.append("\(level.name): \(message)") } })
    }

    /// One turn of the server's loop: waits up to `milliseconds` for socket activity and serves it.
    /// Returns whether anything was ready.
    @discardableResult
    func pump(milliseconds: Int32 = 5) -> Bool {
        var fds = server.pollDescriptors
        let n = poll(&fds, nfds_t(fds.count), milliseconds)
        if n > 0 { server.handle(fds) }
        return n > 0
    }

    /// Serves until nothing is ready any more (connects, closes and requests already sent).
    func settle() {
        while pump(milliseconds: 20) {}
    }

    /// The next line `client` receives, serving the socket meanwhile; nil after `seconds`.
    func readLine(_ client: UnixSocketClient, seconds: Double = 10) throws(ClientError) -> [UInt8]? {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let line = try client.readLine(timeout: 0) { return line }
            pump()
        }
        return nil
    }

    func readMessage(_ client: UnixSocketClient, seconds: Double = 10) throws -> JSONValue? {
        guard let line = try readLine(client, seconds: seconds) else { return nil }
        return try JSONParser.parse(line, limits: JSONLimits(maxBytes: 1 << 24))
    }

    /// A request and its answer's result; an error answer throws `ClientError.rpc`.
    func call(_ client: UnixSocketClient, _ method: RPCMethod, _ params: JSONValue? = nil) throws -> JSONValue {
        try client.send(RPCRequest(id: .number(1), method: method.rawValue, params: params).json)
        guard let answer = try readMessage(client) else { throw ClientError.timeout(seconds: 10) }
        if let error = answer["error"] { throw ClientError.rpc(RPCError(json: error) ?? .internalError(answer.jsonText)) }
        return answer["result"] ?? .null
    }

    func stop() {
        server.close()
        rmdir(directory)
    }
}

final class LogBox: Sendable {
    let lines = Mutex<[String]>([])
}
