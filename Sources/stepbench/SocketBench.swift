import ArgumentParser
import Glibc
import StepJSON
import StepProtocol
import StepSocket
import StepdModel
import Synchronization

/// `stepbench socket fuzz|load|serve`: abuse and load against a running agent's socket, or
/// against an in-process RPCServer with a synthetic service (`--in-process`).
struct SocketBenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "socket",
        abstract: "Socket protocol fuzzing and load against stepd (or an in-process server).",
        subcommands: [Fuzz.self, Load.self, Serve.self])

    struct Target: ParsableArguments {
        @Option(help: ArgumentHelp("The agent's socket.", valueName: "path")) var socket: String?
        @Flag(help: "Start an in-process RPCServer with a synthetic 40 Hz service instead of using a running stepd.")
        var inProcess = false
        @Option(help: "PID of the agent; the run fails if it is gone at the end.") var pid: Int32?

        func validate() throws {
            guard socket != nil || inProcess else { throw ValidationError("pass --socket PATH of a running stepd, or --in-process") }
        }
    }

    struct Fuzz: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Send malformed and hostile messages while a well-behaved client checks its answers; exit 1 on any failure.")

        @OptionGroup var target: Target
        @Option(help: "Hostile messages to send.") var messages: Int = 100_000
        @Option(help: "Random seed (runs are reproducible).") var seed: UInt64 = 1
        @Option(help: "Hostile connections used in rotation.") var connections: Int = 4

        func run() throws {
            let harness = try BenchTarget(target)
            defer { harness.stop() }
            let report = try SocketFuzzer(path: harness.path, seed: seed, connections: max(1, connections), pid: target.pid).run(messages: messages)
            print(report.table())
            if !report.passed { throw ExitCode(1) }
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
            abstract: "Serve the synthetic service on a socket (for trying stepctl without an agent) until Ctrl-C.")

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

func wallNow() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_REALTIME, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
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
            let n = poll(&fds, nfds_t(fds.count), min(wait, 50))
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

// MARK: - Fuzz

struct FuzzReport {
    var sent: [String: Int] = [:]
    var responses = 0
    var errorCodes: [Int: Int] = [:]
    var serverClosed = 0
    var reconnects = 0
    var goodRequests = 0
    var goodFailures: [String] = []
    var goodLatencies: [Double] = []
    var agentAlive = true
    var seconds = 0.0

    var passed: Bool { goodFailures.isEmpty && agentAlive }

    func table() -> String {
        var lines = ["stepbench socket fuzz: \(sent.values.reduce(0, +)) hostile messages in \(fixedDecimal(seconds, 1)) s"]
        lines.append("")
        lines.append(pad("category", 22) + pad("sent", 10, right: true))
        for (name, count) in sent.sorted(by: { $0.key < $1.key }) { lines.append(pad(name, 22) + pad(String(count), 10, right: true)) }
        lines.append("")
        lines.append(pad("error code", 22) + pad("received", 10, right: true))
        for (code, count) in errorCodes.sorted(by: { $0.key < $1.key }) { lines.append(pad(String(code), 22) + pad(String(count), 10, right: true)) }
        lines.append("")
        let sorted = goodLatencies.sorted()
        lines.append(pad("responses read (hostile)", 34) + String(responses))
        lines.append(pad("connections closed by agent", 34) + String(serverClosed))
        lines.append(pad("reconnects", 34) + String(reconnects))
        lines.append(pad("good requests", 34) + String(goodRequests))
        lines.append(pad("good answers wrong or missing", 34) + String(goodFailures.count))
        lines.append(pad("good latency p50 / p99 / max ms", 34)
            + "\(fixedDecimal(percentile(sorted, 0.5) * 1000, 2)) / \(fixedDecimal(percentile(sorted, 0.99) * 1000, 2)) / \(fixedDecimal((sorted.last ?? 0) * 1000, 2))")
        lines.append(pad("agent alive at the end", 34) + (agentAlive ? "yes" : "NO"))
        for failure in goodFailures.prefix(10) { lines.append("FAIL: \(failure)") }
        lines.append(passed ? "result: PASS" : "result: FAIL")
        return lines.joined(separator: "\n")
    }
}

func pad(_ s: String, _ width: Int, right: Bool = false) -> String {
    let fill = String(repeating: " ", count: max(0, width - s.count))
    return right ? fill + s : s + fill
}

func percentile(_ sorted: [Double], _ p: Double) -> Double {
    guard !sorted.isEmpty else { return .nan }
    return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
}

final class SocketFuzzer {
    let path: String
    var random: SplitMix64
    var hostile: [UnixSocketClient?]
    let pid: Int32?
    var report = FuzzReport()
    let queryStart: Double
    let queryEnd: Double
    var firstFixedAnswer: JSONValue?
    var lastSamples: Int64 = -1
    var lastSinceStart: Int64 = -1

    init(path: String, seed: UInt64, connections: Int, pid: Int32?) throws {
        self.path = path
        self.pid = pid
        random = SplitMix64(seed: seed)
        hostile = Array(repeating: nil, count: connections)
        // A fixed, fully past range: its answer may only grow (late checkpoints), never shrink.
        queryEnd = (wallNow() / 60).rounded(.down) * 60 - 600
        queryStart = queryEnd - 6 * 3600
    }

    static let methods = RPCMethod.allCases.map(\.rawValue)

    func hostileMessage(_ category: inout String) -> [UInt8] {
        let roll = random.below(1000)
        func request(_ method: String, _ params: JSONValue?) -> [UInt8] {
            var b = RPCRequest(id: .number(Int64(random.below(1_000_000))), method: method, params: params).json.serialized()
            b.append(0x0A)
            return b
        }
        switch roll {
        case 0..<150:
            category = "random bytes"
            var bytes = (0..<random.below(300)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            bytes.append(0x0A)
            return bytes
        case 150..<300:
            category = "truncated json"
            let full = request(random.pick(Self.methods), ["start": 1_700_000_000, "end": 1_700_003_600, "interval": ["hours": 1]])
            var cut = Array(full.prefix(random.below(full.count - 1) + 1))
            if cut.last != 0x0A { cut.append(0x0A) }
            return cut
        case 300..<450:
            category = "wrong types"
            let junk: [JSONValue] = ["x", -1, 1.5, true, nil, [1, 2], ["a": ["b": 1]], 1e300, .int64(Int64.min)]
            var params = JSONObject()
            for key in ["start", "end", "today", "update_on", "subscription", "source", "steps", "ids", "anchor", "limit", "interval", "bucket", "options", "minutes", "label", "time_zone"].shuffledPrefix(random.below(4) + 1, &random) {
                params[key] = random.pick(junk)
            }
            return request(random.pick(Self.methods), .object(params))
        case 450..<550:
            category = "unknown method/field"
            if random.below(2) == 0 { return request("steps.\(random.below(1000))", nil) }
            return request(random.pick(Self.methods), ["no_such_field_\(random.below(100))": 1])
        case 550..<620:
            category = "deep nesting"
            let depth = 33 + random.below(3000)
            return Array((String(repeating: "[", count: depth) + String(repeating: "]", count: depth) + "\n").utf8)
        case 620..<700:
            category = "huge numbers"
            let numbers = ["1e400", "-1e400", String(repeating: "9", count: 400), "1e-400", "-0", "123456789012345678901234567890",
                           "1" + String(repeating: "0", count: 63)]
            return Array("{\"jsonrpc\":\"2.0\",\"id\":\(random.pick(numbers)),\"method\":\"steps.query\",\"params\":{\"start\":\(random.pick(numbers)),\"end\":\(random.pick(numbers))}}\n".utf8)
        case 700..<800:
            category = "subscription flood"
            if random.below(2) == 0 { return request("steps.subscribe", ["update_on": .int(1 + random.below(3))]) }
            return request(random.pick(["activity.subscribe", "unsubscribe"]), random.below(2) == 0 ? nil : ["subscription": .int(random.below(5000))])
        case 800..<860:
            category = "invalid utf-8"
            var b = Array("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"samples.add\",\"params\":{\"source\":\"".utf8)
            b.append(contentsOf: random.pick([[0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xFF], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82]]))
            b.append(contentsOf: Array("\"}}\n".utf8))
            return b
        case 860..<920:
            category = "batches"
            let count = random.pick([0, 1, 5, 32, 33, 200])
            let element = "{\"jsonrpc\":\"2.0\",\"id\":\(random.below(100)),\"method\":\"\(random.pick(Self.methods))\"}"
            return Array(("[" + Array(repeating: element, count: count).joined(separator: ",") + "]\n").utf8)
        case 920..<990:
            category = "valid reads"
            return request(random.pick(["status", "activity.current", "steps.query", "ledger.export"]),
                           random.below(2) == 0 ? nil : ["today": true])
        case 990..<996:
            category = "oversized line"
            return [UInt8](repeating: UInt8(ascii: "a"), count: 70_000) + [0x0A]
        default:
            category = "abrupt disconnect"
            return []
        }
    }

    func hostileClient(_ index: Int) throws -> UnixSocketClient {
        if let client = hostile[index] { return client }
        let client = try UnixSocketClient(path: path, timeout: 5)
        hostile[index] = client
        report.reconnects += 1
        return client
    }

    /// Reads whatever the agent answered without waiting.
    func drain(_ index: Int) {
        guard let client = hostile[index] else { return }
        do {
            while let line = try client.readLine(timeout: 0) {
                report.responses += 1
                if let value = try? JSONParser.parse(line, limits: JSONLimits(maxBytes: 1 << 24)) {
                    for item in value.arrayValue ?? [value] {
                        if let code = item.value(atPath: "error.code")?.intValue { report.errorCodes[code, default: 0] += 1 }
                    }
                }
            }
        } catch {
            report.serverClosed += 1
            client.close()
            hostile[index] = nil
        }
    }

    func checkGood(_ good: UnixSocketClient) {
        report.goodRequests += 2
        let t0 = monotonicNow()
        do {
            let status = try good.call(.status)
            report.goodLatencies.append(monotonicNow() - t0)
            guard status["protocol_version"] == .int(stepdProtocolVersion) else {
                report.goodFailures.append("status protocol_version \(status["protocol_version"]?.jsonText ?? "missing")")
                return
            }
            let samples = status.value(atPath: "sensor.samples")?.int64Value ?? -1
            let sinceStart = status.value(atPath: "steps.since_start")?.int64Value ?? -1
            if samples < lastSamples { report.goodFailures.append("sensor.samples went back from \(lastSamples) to \(samples)") }
            if sinceStart < lastSinceStart { report.goodFailures.append("steps.since_start went back from \(lastSinceStart) to \(sinceStart)") }
            lastSamples = samples
            lastSinceStart = sinceStart
            let t1 = monotonicNow()
            let answer = try good.call(.stepsQuery, ["start": .double(queryStart), "end": .double(queryEnd)])
            report.goodLatencies.append(monotonicNow() - t1)
            guard answer["start"]?.doubleValue == queryStart, answer["end"]?.doubleValue == queryEnd,
                  let steps = answer["steps"]?.int64Value, steps >= 0 else {
                report.goodFailures.append("steps.query answer malformed: \(answer.jsonText)")
                return
            }
            if let first = firstFixedAnswer {
                if steps < first["steps"]?.int64Value ?? 0 { report.goodFailures.append("steps.query for a past range shrank: \(first.jsonText) then \(answer.jsonText)") }
            } else {
                firstFixedAnswer = answer
            }
        } catch {
            report.goodFailures.append("good client: \(error.description)")
        }
    }

    func run(messages: Int) throws -> FuzzReport {
        let good = try UnixSocketClient(path: path, timeout: 5)
        let started = monotonicNow()
        checkGood(good)
        for n in 0..<messages {
            let index = n % hostile.count
            var category = ""
            let message = hostileMessage(&category)
            report.sent[category, default: 0] += 1
            do {
                let client = try hostileClient(index)
                if message.isEmpty {
                    try client.sendRaw(Array("{\"jsonrpc\":\"2.0\",\"id\":1,\"meth".utf8))
                    client.close()
                    hostile[index] = nil
                } else {
                    try client.sendRaw(message)
                    drain(index)
                }
            } catch {
                // The agent closed this connection (oversized line, slow reader): reconnect next time.
                hostile[index]?.close()
                hostile[index] = nil
                report.serverClosed += 1
            }
            if n % 200 == 199 { checkGood(good) }
            if report.goodFailures.count > 20 { break }
        }
        for index in hostile.indices { drain(index) }
        checkGood(good)
        report.seconds = monotonicNow() - started
        // A fresh connection must work, and the agent process must still exist.
        do {
            let fresh = try UnixSocketClient(path: path, timeout: 5)
            _ = try fresh.call(.status)
        } catch {
            report.agentAlive = false
            report.goodFailures.append("fresh connection after the run: \(error.description)")
        }
        if let pid, kill(pid, 0) != 0 { report.agentAlive = false }
        return report
    }
}

extension Array {
    func shuffledPrefix(_ count: Int, _ random: inout SplitMix64) -> [Element] {
        var copy = self
        for i in stride(from: copy.count - 1, to: 0, by: -1) { copy.swapAt(i, random.below(i + 1)) }
        return Array(copy.prefix(count))
    }
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
            let n = poll(&fds, nfds_t(fds.count), 100)
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
