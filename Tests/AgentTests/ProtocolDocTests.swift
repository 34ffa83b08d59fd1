import Foundation
import StepJSON
import StepProtocol
import StepSocket
import Testing

/// "A documented example is a test": every request in a ```json block of docs/protocol.md is
/// sent to a live agent, in order, over one connection, and its answer (and every
/// notification line after it) is compared with the documented one field by field, and a
/// message the page does not show (an extra notification or answer) fails the example. Values
/// that depend on time or on the live sensor (the paths in `livePaths`) are compared by type;
/// everything else must be equal, so a changed answer fails here until the doc changes too.
@Suite(.serialized) struct ProtocolDocTests {
    /// Per method, the result (or notification params) paths whose values depend on the clock
    /// or the live sensor. `*` matches any key or index below.
    static let livePaths: [String: [String]] = [
        "status": ["uptime_s", "sensor.health", "sensor.samples", "sensor.rate_hz", "sensor.delivered_hz", "sensor.errors", "sensor.overflows",
                   "sensor.reinits", "sensor.last_error", "steps.today", "steps.since_start", "activity.*",
                   "ledger.unsaved_steps", "ledger.last_checkpoint", "state_directory", "time"],
        "activity.current": ["*"],
        "recording.start": ["file", "until"],
        "recording.stop": ["file", "samples", "duration_s", "seconds"],
    ]

    /// How long the agent stays silent after an example's last documented line before the next
    /// request goes out: anything it sends meanwhile was not documented.
    static let quietPeriod = 0.3

    struct Example {
        var line: Int
        var request: JSONValue
        var expected: [JSONValue]
    }

    static func examples() throws -> [Example] {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let text = try String(contentsOf: repository.appendingPathComponent("docs/protocol.md"), encoding: .utf8)
        var examples: [Example] = []
        var inJSON = false
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("```") {
                inJSON = line == "```json"
                continue
            }
            guard inJSON, !line.isEmpty else { continue }
            let value: JSONValue
            do {
                value = try JSONParser.parse(line)
            } catch {
                throw AgentTestError("docs/protocol.md:\(index + 1): not JSON: \(error)")
            }
            let first = value.arrayValue?.first ?? value
            let isRequest = first["method"] != nil && (first["id"] != nil || value.arrayValue != nil)
            if isRequest {
                examples.append(Example(line: index + 1, request: value, expected: []))
            } else if !examples.isEmpty {
                examples[examples.count - 1].expected.append(value)
            } else {
                throw AgentTestError("docs/protocol.md:\(index + 1): an answer without a request before it")
            }
        }
        return examples
    }

    /// Compares `actual` with `expected`; returns the differences as "path: why".
    static func differences(_ expected: JSONValue, _ actual: JSONValue, path: String, live: [String], root: String? = nil) -> [String] {
        let root = root ?? path
        let relative = path.hasPrefix(root + ".") ? String(path.dropFirst(root.count + 1)) : (path == root ? "" : path)
        let isLive = live.contains { pattern in
            pattern == "*" || pattern == relative || (pattern.hasSuffix(".*") && relative.hasPrefix(String(pattern.dropLast(1))))
        }
        if isLive {
            if expected.kindName == actual.kindName || expected.isNull || actual.isNull
                || (expected.doubleValue != nil && actual.doubleValue != nil) {
                return []
            }
            return ["\(path): documented \(expected.kindName), got \(actual.kindName)"]
        }
        switch (expected, actual) {
        case (.object(let e), .object(let a)):
            var out: [String] = []
            if e.keys != a.keys { out.append("\(path): documented members \(e.keys), got \(a.keys)") }
            for member in e.members {
                guard let value = a[member.key] else { continue }
                out += differences(member.value, value, path: path + "." + member.key, live: live, root: root)
            }
            return out
        case (.array(let e), .array(let a)):
            guard e.count == a.count else { return ["\(path): documented \(e.count) elements, got \(a.count)"] }
            return zip(e, a).enumerated().flatMap { index, pair in
                differences(pair.0, pair.1, path: path + "[\(index)]", live: live, root: root)
            }
        case (.number(let e), .number(let a)):
            return abs(e.double - a.double) <= 1e-6 * max(1, abs(e.double)) ? [] : ["\(path): documented \(e), got \(a)"]
        default:
            return expected == actual ? [] : ["\(path): documented \(expected.jsonText), got \(actual.jsonText)"]
        }
    }

    static func liveKeys(for message: JSONValue, request: JSONValue, index: Int) -> (String, [String]) {
        if let method = message["method"]?.stringValue { return (method, livePaths[method] ?? []) }
        let requests = request.arrayValue ?? [request]
        let method = requests.first { $0["id"] != nil && $0["id"] == message["id"] }?["method"]?.stringValue ?? ""
        return (method, livePaths[method] ?? [])
    }

    /// The notifications docs/protocol.md shows only as text (a walking wearer's `steps.update`,
    /// an `activity.update`: the example agent hardly moves) decode into the types the agent
    /// encodes them from, and encode back to exactly the documented params.
    @Test func documentedNotificationsAreWhatTheAgentSends() throws {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let text = try String(contentsOf: repository.appendingPathComponent("docs/protocol.md"), encoding: .utf8)
        var inText = false
        var checked: [String] = []
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("```") {
                inText = line == "```text"
                continue
            }
            guard inText, line.hasPrefix("{"), let message = try? JSONParser.parse(line), message["id"] == nil,
                  let method = message["method"]?.stringValue, let params = message["params"] else { continue }
            let encoded: JSONValue
            switch method {
            case RPCNotificationMethod.stepsUpdate:
                encoded = try StepsUpdateNotice(json: params).json
            case RPCNotificationMethod.ledgerChanged:
                encoded = try LedgerChangedNotice(json: params).json
            case RPCNotificationMethod.activityUpdate:
                // The agent sends activity.current's fields with the subscription id first.
                var object: JSONObject = ["subscription": params["subscription"] ?? .null]
                for member in try ActivityResult(json: params).json.objectValue?.members ?? [] { object[member.key] = member.value }
                encoded = .object(object)
            default:
                Issue.record("docs/protocol.md:\(index + 1): no notification \(method)")
                continue
            }
            let problems = Self.differences(params, encoded, path: method, live: [])
            #expect(problems.isEmpty, "docs/protocol.md:\(index + 1): \(problems)")
            checked.append(method)
        }
        #expect(Set(checked) == [RPCNotificationMethod.stepsUpdate, RPCNotificationMethod.activityUpdate])
    }

    @Test func everyDocumentedExampleRunsAgainstTheAgent() throws {
        let examples = try Self.examples()
        #expect(examples.count >= 20)
        let agent = try AgentProcess(arguments: ["--simulate", "builtin", "--replay-speed", "0.01"], environment: ["TZ": "UTC"])
        let client = try agent.connect()
        client.timeout = 30
        var failures: [String] = []
        var queued: [JSONValue] = []
        for example in examples {
            try client.sendRaw(example.request.serialized() + [0x0A])
            let awaitsAnswer = (example.request.arrayValue ?? [example.request]).contains { $0["id"] != nil }
            var received: [JSONValue] = []
            for (position, expected) in example.expected.enumerated() {
                let isNotification = expected["method"] != nil && expected["id"] == nil
                if isNotification, let index = queued.firstIndex(where: { $0["method"] == expected["method"] }) {
                    received.append(queued.remove(at: index))
                    continue
                }
                while true {
                    guard let message = try client.readMessage(timeout: 30) else {
                        throw AgentTestError("docs/protocol.md:\(example.line): no answer within 30 s")
                    }
                    let messageIsNotification = message["method"] != nil && message["id"] == nil
                    if messageIsNotification == isNotification && (!isNotification || message["method"] == expected["method"]) {
                        received.append(message)
                        break
                    }
                    // The documented order is part of the example: a notification documented
                    // after this answer must not overtake it.
                    if messageIsNotification && !isNotification
                        && example.expected[(position + 1)...].contains(where: { $0["id"] == nil && $0["method"] == message["method"] }) {
                        failures.append("docs/protocol.md:\(example.line) \(example.request.jsonText)\n  \(message.jsonText) arrived before the answer")
                    }
                    queued.append(message)
                }
            }
            if !awaitsAnswer && example.expected.isEmpty { continue }
            for (expected, actual) in zip(example.expected, received) {
                let (method, live) = Self.liveKeys(for: expected, request: example.request, index: 0)
                let body: (JSONValue) -> JSONValue = { message in
                    if let result = message["result"] { return result }
                    if let params = message["params"] { return params }
                    return message
                }
                var problems: [String] = []
                if let expectedArray = expected.arrayValue, let actualArray = actual.arrayValue, expectedArray.count == actualArray.count {
                    for (e, a) in zip(expectedArray, actualArray) {
                        let (m, l) = Self.liveKeys(for: e, request: example.request, index: 0)
                        problems += Self.differences(body(e), body(a), path: m, live: l)
                        problems += Self.differences(e.removing(["result", "params"]), a.removing(["result", "params"]), path: m + "(envelope)", live: [])
                    }
                } else {
                    problems += Self.differences(body(expected), body(actual), path: method, live: live)
                    problems += Self.differences(expected.removing(["result", "params"]), actual.removing(["result", "params"]),
                                                 path: method + "(envelope)", live: [])
                }
                if !problems.isEmpty {
                    failures.append("docs/protocol.md:\(example.line) \(example.request.jsonText)\n  actual: \(actual.jsonText)\n  "
                                    + problems.joined(separator: "\n  "))
                }
            }
            // What the agent sends beyond the documented lines fails too: an undocumented
            // notification (or a second answer) waited in `queued`, unread, and the page stayed
            // "true" while a client following it got messages the page does not show.
            while let extra = try client.readMessage(timeout: Self.quietPeriod) { queued.append(extra) }
            for message in queued {
                failures.append("docs/protocol.md:\(example.line) \(example.request.jsonText)\n  undocumented message: \(message.jsonText)")
            }
            queued.removeAll()
        }
        #expect(failures.isEmpty, Comment(rawValue: failures.joined(separator: "\n")))
        #expect(agent.terminate() == 0)
    }
}

extension JSONValue {
    /// The object without `keys` (the envelope of a response or notification).
    func removing(_ keys: [String]) -> JSONValue {
        guard let object = objectValue else { return self }
        var out = JSONObject()
        for member in object.members where !keys.contains(member.key) { out[member.key] = member.value }
        return .object(out)
    }
}
