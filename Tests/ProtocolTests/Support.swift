import RPCDispatch
import Foundation
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
    func stepsSince(_ from: Double) throws(RPCError) -> (steps: Int, distanceMeters: Double) { (0, 0) }
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

/// Runs an RPCServer's poll loop on its own thread, as the agent does; the test thread is the client.
final class ServerHarness: @unchecked Sendable {
    let directory: String
    let path: String
    private let server: RPCServer
    let service: FakeService
    private let stopFlag = Mutex(false)
    private let work = Mutex<[@Sendable (RPCServer, FakeService) -> Void]>([])
    private let finished = DispatchSemaphore(value: 0)
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
        let thread = Thread { [self] in loop() }
        thread.start()
    }

    private func loop() {
        while !stopFlag.withLock({ $0 }) {
            let jobs = work.withLock { jobs in
                let taken = jobs
                jobs.removeAll()
                return taken
            }
            for job in jobs { job(server, service) }
            var fds = server.pollDescriptors
            let n = poll(&fds, nfds_t(fds.count), 5)
            if n > 0 { server.handle(fds) }
        }
        server.close()
        finished.signal()
    }

    /// Runs `job` on the loop thread and waits for it.
    func onLoop<T: Sendable>(_ job: @escaping @Sendable (RPCServer, FakeService) -> T) -> T {
        let done = DispatchSemaphore(value: 0)
        let box = Mutex<T?>(nil)
        work.withLock { $0.append { server, service in
            box.withLock { $0 = job(server, service) }
            done.signal()
        } }
        done.wait()
        return box.withLock { $0! }
    }

    func stop() {
        stopFlag.withLock { $0 = true }
        finished.wait()
        rmdir(directory)
    }
}

final class LogBox: Sendable {
    let lines = Mutex<[String]>([])
}
