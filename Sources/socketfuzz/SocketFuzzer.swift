import Glibc
import StepJSON
import StepProtocol
import StepSocket
import ToolSupport

/// What one fuzz run sent and saw, and whether the well-behaved client was always answered right.
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
        var lines = ["socketfuzz: \(sent.values.reduce(0, +)) hostile messages in \(fixedDecimal(seconds, 1)) s"]
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

/// Sends hostile messages over a few connections in rotation while a well-behaved client checks,
/// every 200 messages, that `status` and a fixed past `steps.query` stay right.
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
