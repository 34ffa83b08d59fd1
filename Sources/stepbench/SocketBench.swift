import ArgumentParser
import Glibc
import POSIXLayer
import RPCDispatch
import StepJSON
import StepProtocol
import StepSocket
import StepdModel
import Synchronization
import ToolSupport

/// `stepbench socket load|serve`: load against a running agent's socket, or against an
/// in-process RPCServer with a synthetic service (`--in-process`). The robustness fuzzer is its
/// own tool, `socketfuzz`.
struct SocketBenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "socket",
        abstract: "Socket load against stepd (or an in-process server); the synthetic server to fuzz or try stepctl against.",
        subcommands: [Load.self, Serve.self])

    struct Target: ParsableArguments {
        @Option(help: ArgumentHelp("The agent's socket.", valueName: "path")) var socket: String?
        @Flag(help: "Start an in-process RPCServer with a synthetic 40 Hz service instead of using a running stepd.")
        var inProcess = false
        @Option(help: "PID of the agent; the run fails if it is gone at the end.") var pid: Int32?

        func validate() throws {
            guard socket != nil || inProcess else { throw ValidationError("pass --socket PATH of a running stepd, or --in-process") }
        }
    }

    struct Load: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Many concurrent clients (half subscribed, half querying steps.query): throughput, p50/p99, sampling unaffected.")

        @OptionGroup var target: Target
        @Option(help: "Concurrent clients.") var clients: Int = 200
        @Option(help: "Seconds to run.") var seconds: Double = 10

        func run() throws {
            let harness = try BenchTarget(target)
            defer { harness.stop() }
            let report = try LoadGenerator(path: harness.path, clients: max(2, clients), seconds: seconds, pid: target.pid).run()
            print(report.table())
            if !report.passed { throw ExitCode(1) }
        }
    }

    struct Serve: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Serve the synthetic service on a socket (for trying stepctl or socketfuzz without an agent) until Ctrl-C.")

        @Option(help: ArgumentHelp("Socket to serve.", valueName: "path")) var socket: String

        func run() throws {
            let server = try SyntheticServer(path: socket)
            print("serving the synthetic service on \(socket); Ctrl-C to stop")
            server.runLoop(until: { false })
        }
    }
}

// MARK: - In-process target

/// Either a running agent (`--socket`) or an in-process server on a background thread.
final class BenchTarget {
    let path: String
    private var thread: pthread_t?
    private let stopFlag: StopFlag
    private var directory: String?

    init(_ target: SocketBenchCommand.Target) throws {
        stopFlag = StopFlag()
        guard target.inProcess else {
            path = target.socket ?? ""
            return
        }
        var template = Array("/tmp/stepbench-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw CtlError("cannot create a temporary directory") }
        let dir = String(cString: made)
        directory = dir
        path = target.socket ?? dir + "/stepd.sock"
        let server = try SyntheticServer(path: path)
        let flag = stopFlag
        let box = Unmanaged.passRetained(ThreadBody { server.runLoop(until: { flag.isSet }) })
        var handle = pthread_t()
        guard pthread_create(&handle, nil, { raw in
            guard let raw else { return nil }
            let body = Unmanaged<ThreadBody>.fromOpaque(raw).takeRetainedValue()
            body.run()
            return nil
        }, box.toOpaque()) == 0 else {
            box.release()
            throw CtlError("cannot start the server thread")
        }
        thread = handle
        // Let the synthetic sampling loop run a moment so "before" figures have a rate.
        usleep(1_000_000)
    }

    func stop() {
        stopFlag.set()
        if let thread { pthread_join(thread, nil) }
        thread = nil
        if let directory { rmdir(directory) }
    }
}

final class ThreadBody: @unchecked Sendable {
    let run: () -> Void
    init(_ run: @escaping () -> Void) { self.run = run }
}

final class StopFlag: Sendable {
    private let value = Mutex(false)
    var isSet: Bool { value.withLock { $0 } }
    func set() { value.withLock { $0 = true } }
}

struct CtlError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A poll loop like the agent's: a 40 Hz "sampling" deadline served between client events, so
/// its lateness shows whether clients ever delay sampling.
final class SyntheticServer {
    let server: RPCServer
    let service: SyntheticService

    init(path: String) throws {
        service = SyntheticService()
        server = try RPCServer(options: UnixSocketServerOptions(path: path, maxClients: 512), service: service,
                               permissions: PermissionPolicy(agentUID: getuid(), adminGroupID: nil), logger: .silent)
    }

    func runLoop(until stop: () -> Bool) {
        let period = 1.0 / 40
        var next = monotonicNow() + period
        while !stop() {
            var fds = server.pollDescriptors
            let wait = max(0, Int32(((next - monotonicNow()) * 1000).rounded(.up)))
            let n = (try? pollDescriptors(&fds, timeoutMilliseconds: min(wait, 50))) ?? 0
            if n > 0 { server.handle(fds) }
            let now = monotonicNow()
            while now >= next {
                service.sample(lateness: now - next)
                if service.samples % 20 == 0 { server.publishSteps(total: service.steps, distanceMeters: Double(service.steps) * 0.7) }
                if service.samples % 400 == 0 {
                    server.publishActivity(ActivityResult(kind: service.samples % 800 == 0 ? .walking : .running, confidence: .high, start: wallNow()))
                }
                next += period
            }
        }
        server.close()
    }
}

/// Deterministic answers: steps.query over [start, end) is one step per 10 s, so any client
/// can check an answer; status counts loop ticks as samples.
final class SyntheticService: StepdService {
    private(set) var samples = 0
    private(set) var steps = 0
    private var maxLateness = 0.0
    private let started = wallNow()
    private let startedMonotonic = monotonicNow()

    func sample(lateness: Double) {
        samples += 1
        if samples % 20 == 0 { steps += 1 }
        maxLateness = max(maxLateness, lateness)
    }

    func status() throws(RPCError) -> StatusResult {
        let uptime = monotonicNow() - startedMonotonic
        return StatusResult(
            version: "synthetic", uptimeSeconds: uptime, board: .init(name: "synthetic", file: nil),
            sensor: .init(model: "mpu6050", address: 0x68, bus: "synthetic", health: .ok, samples: samples, errors: 0, overflows: 0,
                          reinits: 0, rateHz: uptime > 0 ? Double(samples) / uptime : nil, lastError: nil),
            capabilities: .init(stepCounting: true, distance: true, cadence: true, pace: true, activity: true),
            stepsToday: steps, stepsSinceStart: steps, activity: ActivityResult(kind: .walking, confidence: .high, start: started),
            ledger: .init(health: "ok", records: 0, unsavedSteps: steps, lastCheckpoint: nil),
            extra: ["loop_max_late_ms": .double(DecimalText.rounded(maxLateness * 1000, decimals: 1))])
    }

    func stepsQuery(_ params: StepsQueryParams) throws(RPCError) -> StepsQueryResult {
        let (start, end): (Double, Double)
        switch params.range {
        case .between(let s, let e): (start, end) = (s, e)
        case .today: (start, end) = (started, wallNow())
        }
        let n = Int((end - start) / 10)
        return StepsQueryResult(start: start, end: end, steps: n, distanceMeters: Double(n) * 0.7, cadenceStepsPerMinute: 6,
                                paceSecondsPerMeter: n > 0 ? (end - start) / (Double(n) * 0.7) : nil)
    }

    func stepsStatistics(_ params: StepsStatisticsParams) throws(RPCError) -> StepsStatisticsResult {
        throw .unavailable("the synthetic service has no ledger")
    }

    func stepsCollection(_ params: StepsCollectionParams) throws(RPCError) -> StepsCollectionResult {
        throw .unavailable("the synthetic service has no ledger")
    }

    func activityCurrent() throws(RPCError) -> ActivityResult { ActivityResult(kind: .walking, confidence: .high, start: started) }
    func activityQuery(_ params: ActivityQueryParams) throws(RPCError) -> ActivityQueryResult { ActivityQueryResult(segments: []) }
    func currentStepTotal() -> Int { steps }
    func samplesAdd(_ params: SamplesAddParams, caller: RPCCaller) throws(RPCError) -> SamplesAddResult { throw .unavailable("no ledger") }
    func samplesDelete(_ params: SamplesDeleteParams, caller: RPCCaller) throws(RPCError) -> SamplesDeleteResult { throw .unavailable("no ledger") }
    func samplesList(_ params: SamplesListParams) throws(RPCError) -> SamplesListResult {
        SamplesListResult(samples: [], more: false, nextStart: nil)
    }
    func sourcesList() throws(RPCError) -> SourcesResult { SourcesResult(order: [], ranked: []) }
    func sourcesPriority(_ params: SourcesPriorityParams, caller: RPCCaller) throws(RPCError) -> SourcesResult {
        SourcesResult(order: params.order, ranked: params.order)
    }
    func stepsSince(_ from: Double) throws(RPCError) -> (steps: Int, distanceMeters: Double) { (0, 0) }
    func ledgerExport(_ params: LedgerExportParams) throws(RPCError) -> LedgerExportResult {
        LedgerExportResult(records: [], nextAnchor: params.anchor, more: false)
    }
    func ledgerAck(_ params: LedgerAckParams, caller: RPCCaller) throws(RPCError) -> LedgerAckResult { throw .unavailable("no ledger") }
    func recordingStart(_ params: RecordingStartParams, caller: RPCCaller) throws(RPCError) -> RecordingStartResult { throw .unavailable("no sensor") }
    func recordingStop(caller: RPCCaller) throws(RPCError) -> RecordingStopResult { throw .unavailable("no sensor") }
}

// MARK: - Load

struct LoadReport {
    var clients = 0
    var subscribers = 0
    var seconds = 0.0
    var queries = 0
    var queryErrors = 0
    var wrongAnswers = 0
    var latencies: [Double] = []
    var notifications = 0
    var droppedClients = 0
    var before: JSONValue = .null
    var after: JSONValue = .null
    var statusSeconds = 0.0
    var agentAlive = true

    var passed: Bool { agentAlive && queryErrors == 0 && wrongAnswers == 0 && droppedClients == 0 && samplingOK }

    var samplesDelta: Int64 {
        (after.value(atPath: "sensor.samples")?.int64Value ?? 0) - (before.value(atPath: "sensor.samples")?.int64Value ?? 0)
    }
    var sampleRate: Double { statusSeconds > 0 ? Double(samplesDelta) / statusSeconds : 0 }
    var expectedRate: Double {
        before.value(atPath: "sensor.delivered_hz")?.doubleValue ?? before.value(atPath: "sensor.rate_hz")?.doubleValue ?? 0
    }
    var overflowsDelta: Int64 {
        (after.value(atPath: "sensor.overflows")?.int64Value ?? 0) - (before.value(atPath: "sensor.overflows")?.int64Value ?? 0)
    }
    /// Samples arrived at >= 95 % of the rate the agent reported before the load, no FIFO overflow.
    var samplingOK: Bool { overflowsDelta == 0 && (expectedRate <= 0 || sampleRate >= 0.95 * expectedRate) }

    func table() -> String {
        let sorted = latencies.sorted()
        var lines = ["stepbench socket load: \(clients) clients (\(subscribers) subscribed, \(clients - subscribers) querying) for \(fixedDecimal(seconds, 1)) s", ""]
        func row(_ k: String, _ v: String) { lines.append(pad(k, 40) + v) }
        row("steps.query completed", String(queries))
        row("throughput (queries/s)", fixedDecimal(Double(queries) / max(seconds, 1e-9), 0))
        row("latency p50 / p99 / max (ms)", "\(fixedDecimal(percentile(sorted, 0.5) * 1000, 2)) / \(fixedDecimal(percentile(sorted, 0.99) * 1000, 2)) / \(fixedDecimal((sorted.last ?? .nan) * 1000, 2))")
        row("query errors / wrong answers", "\(queryErrors) / \(wrongAnswers)")
        row("notifications received", String(notifications))
        row("clients dropped by agent", String(droppedClients))
        row("sensor samples before -> after", "\(before.value(atPath: "sensor.samples")?.jsonText ?? "-") -> \(after.value(atPath: "sensor.samples")?.jsonText ?? "-")")
        row("sample rate during load (Hz)", fixedDecimal(sampleRate, 2))
        row("agent-reported rate before (Hz)", fixedDecimal(expectedRate, 2))
        row("FIFO overflows during load", String(overflowsDelta))
        row("sensor errors before -> after", "\(before.value(atPath: "sensor.errors")?.jsonText ?? "-") -> \(after.value(atPath: "sensor.errors")?.jsonText ?? "-")")
        if let late = after["loop_max_late_ms"] { row("loop max lateness (ms, in-process)", late.jsonText) }
        row("agent alive at the end", agentAlive ? "yes" : "NO")
        lines.append(passed ? "result: PASS" : "result: FAIL")
        return lines.joined(separator: "\n")
    }
}

final class LoadGenerator {
    let path: String
    let clientCount: Int
    let seconds: Double
    let pid: Int32?

    init(path: String, clients: Int, seconds: Double, pid: Int32?) {
        self.path = path
        self.clientCount = clients
        self.seconds = seconds
        self.pid = pid
    }

    func run() throws -> LoadReport {
        var report = LoadReport()
        report.clients = clientCount
        let control = try UnixSocketClient(path: path, timeout: 10)
        report.before = try control.call(.status)
        let statusStart = monotonicNow()

        var clients: [UnixSocketClient] = []
        for _ in 0..<clientCount { clients.append(try UnixSocketClient(path: path, timeout: 10)) }
        let subscriberCount = clientCount / 2
        report.subscribers = subscriberCount
        for client in clients.prefix(subscriberCount) {
            _ = try client.call(.stepsSubscribe, ["update_on": 1])
            _ = try client.call(.activitySubscribe)
        }
        let queriers = Array(clients.dropFirst(subscriberCount))
        var sentAt = [Double](repeating: 0, count: queriers.count)
        var ranges = [Double](repeating: 0, count: queriers.count)
        var alive = [Bool](repeating: true, count: clients.count)
        var nextID: Int64 = 1_000_000
        func sendQuery(_ i: Int) throws {
            // Each query asks a different range so a stale or mixed-up answer is caught.
            let span = Double(600 + (i * 37 + Int(nextID % 1000)) % 7200)
            ranges[i] = span
            nextID += 1
            try queriers[i].send(RPCRequest(id: .number(nextID), method: RPCMethod.stepsQuery.rawValue,
                                            params: ["start": 1_700_000_000, "end": .double(1_700_000_000 + span)]).json)
            sentAt[i] = monotonicNow()
        }
        for i in queriers.indices { try sendQuery(i) }
        let started = monotonicNow()
        let deadline = started + seconds
        var fds = clients.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
        while monotonicNow() < deadline {
            for i in fds.indices { fds[i].revents = 0; fds[i].fd = alive[i] ? clients[i].fd : -1 }
            let n = (try? pollDescriptors(&fds, timeoutMilliseconds: 100)) ?? 0
            if n <= 0 { continue }
            for i in fds.indices where fds[i].revents != 0 && alive[i] {
                do {
                    while let line = try clients[i].readLine(timeout: 0) {
                        if i < subscriberCount {
                            report.notifications += 1
                            continue
                        }
                        let q = i - subscriberCount
                        report.latencies.append(monotonicNow() - sentAt[q])
                        guard let value = try? JSONParser.parse(line, limits: JSONLimits(maxBytes: 1 << 20)) else {
                            report.wrongAnswers += 1
                            continue
                        }
                        if value["error"] != nil {
                            report.queryErrors += 1
                        } else if value.value(atPath: "result.end")?.doubleValue != 1_700_000_000 + ranges[q] {
                            report.wrongAnswers += 1
                        } else {
                            report.queries += 1
                        }
                        if monotonicNow() < deadline { try sendQuery(q) }
                    }
                } catch {
                    alive[i] = false
                    report.droppedClients += 1
                }
            }
        }
        report.seconds = monotonicNow() - started
        report.after = try control.call(.status)
        report.statusSeconds = monotonicNow() - statusStart
        // Rate from the agent's own counters: after minus before over the wall time between them.
        if let uptimeBefore = report.before["uptime_s"]?.doubleValue, let uptimeAfter = report.after["uptime_s"]?.doubleValue, uptimeAfter > uptimeBefore {
            report.statusSeconds = uptimeAfter - uptimeBefore
        }
        for client in clients { client.close() }
        if let pid, kill(pid, 0) != 0 { report.agentAlive = false }
        return report
    }
}
