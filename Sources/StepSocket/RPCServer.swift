import Glibc
import POSIXLayer
import StepJSON
import StepProtocol
import StepdModel

/// Bounds on subscriptions, so a client cannot make every step cost unbounded work.
public struct SubscriptionLimits: Sendable {
    public var perClient: Int
    public var total: Int
    public init(perClient: Int = 8, total: Int = 1024) {
        self.perClient = perClient
        self.total = total
    }
}

/// JSON-RPC over `UnixSocketServer`: framing, parsing, permissions, dispatch to the agent's
/// `StepdService`, and subscriptions. Lives on the agent's loop thread; never blocks.
///
/// Loop integration: poll `pollDescriptors`, pass the same entries with `revents` to `handle`;
/// call `publishSteps` / `publishActivity` whenever the motion engine reports.
public final class RPCServer {
    enum SubscriptionKind {
        case steps(updateOn: Int, baseline: Int, notifiedAt: Int, startedAt: Double, distanceBaseline: Double?)
        case activity
        case ledger
    }

    struct Subscription {
        let id: Int
        let client: ClientID
        var kind: SubscriptionKind
    }

    public let socket: UnixSocketServer
    public let service: any StepdService
    public let permissions: PermissionPolicy
    public let subscriptionLimits: SubscriptionLimits
    public let jsonLimits: JSONLimits
    private let logger: EventLogger
    private var subscriptions: [Int: Subscription] = [:]
    private var nextSubscriptionID = 1
    private var latestDistance: Double?
    /// Requests read from a client while its earlier answers are unread; answered in order
    /// once it has read them (its input is not polled meanwhile, so this stays one read chunk).
    private var heldLines: [ClientID: [[UInt8]]] = [:]
    /// Notifications that must follow the answer being built (a `steps.subscribe` with `from`).
    private var afterAnswer: [(client: ClientID, line: [UInt8])] = []
    /// A client with this much answer output unread gets its next request held.
    public static let holdRequestsAboveBytes = 65_536

    /// Counters for `status` extras and benchmarks.
    public private(set) var requestsServed = 0
    public private(set) var errorsSent = 0
    public private(set) var denials = 0

    public init(options: UnixSocketServerOptions, service: any StepdService, permissions: PermissionPolicy,
                subscriptionLimits: SubscriptionLimits = SubscriptionLimits(), logger: EventLogger) throws(SocketError) {
        socket = try UnixSocketServer(options: options)
        self.service = service
        self.permissions = permissions
        self.subscriptionLimits = subscriptionLimits
        self.logger = logger
        jsonLimits = JSONLimits(maxBytes: options.maxLineBytes, maxDepth: 32)
        socket.refusalLine = { reason in
            RPCResponse.failure(id: .null, error: .limitExceeded(reason)).serialized()
        }
    }

    public var pollDescriptors: [pollfd] { socket.pollDescriptors }
    public var clientCount: Int { socket.clientCount }
    public var subscriptionCount: Int { subscriptions.count }
    public var socketPath: String { socket.options.path }

    public func handle(_ ready: [pollfd]) {
        process(socket.handle(ready))
        releaseHeldLines()
    }

    /// Answers held requests of clients that have read their earlier answers.
    private func releaseHeldLines() {
        for client in Array(heldLines.keys) {
            while var lines = heldLines[client], !lines.isEmpty {
                guard socket.peer(of: client) != nil else {
                    heldLines[client] = nil
                    break
                }
                guard socket.queuedBytes(of: client) < Self.holdRequestsAboveBytes else { break }
                let line = lines.removeFirst()
                heldLines[client] = lines.isEmpty ? nil : lines
                answerLine(line, from: client)
            }
            if heldLines[client] == nil { socket.pauseReading(client, false) }
        }
    }

    private func process(_ events: [SocketEvent]) {
        for event in events {
            switch event {
            case .connected(let id, let peer):
                logger.debug("client \(id) connected (pid \(peer.pid), uid \(peer.uid))")
            case .line(let id, let bytes):
                handleLine(bytes, from: id)
            case .disconnected(let id, let reason):
                removeSubscriptions(of: id)
                heldLines[id] = nil
                logger.debug("client \(id) disconnected: \(reason)")
            }
        }
    }

    private func handleLine(_ bytes: [UInt8], from client: ClientID) {
        if heldLines[client] != nil || socket.queuedBytes(of: client) >= Self.holdRequestsAboveBytes {
            heldLines[client, default: []].append(bytes)
            socket.pauseReading(client, true)
            return
        }
        answerLine(bytes, from: client)
    }

    private func answerLine(_ bytes: [UInt8], from client: ClientID) {
        guard let peer = socket.peer(of: client) else { return }
        switch RPCIncoming.decode(line: bytes[...], limits: jsonLimits) {
        case .unparsable(let error):
            reply(RPCResponse.failure(id: .null, error: error).serialized(), to: client)
        case .single(let decoded):
            if let response = answer(decoded, client: client, peer: peer, budget: maxResponseBytes) { reply(response, to: client) }
        case .batch(let elements):
            // The whole batch answer must fit in one answer, too: a member that would push it
            // over is answered with an error saying so.
            var parts: [[UInt8]] = []
            var size = 2
            for element in elements {
                guard let part = answer(element, client: client, peer: peer, budget: maxResponseBytes - size) else { continue }
                size += part.count + 1
                parts.append(part)
            }
            if !parts.isEmpty {
                var line: [UInt8] = [0x5B]
                for (index, part) in parts.enumerated() {
                    if index > 0 { line.append(0x2C) }
                    line.append(contentsOf: part)
                }
                line.append(0x5D)
                reply(line, to: client)
            }
        }
        for pending in afterAnswer where pending.client == client {
            if !socket.send(pending.line, to: client) { removeSubscriptions(of: client) }
        }
        afterAnswer.removeAll()
    }

    private func reply(_ line: [UInt8], to client: ClientID) {
        if !socket.send(line, to: client, isAnswer: true) { removeSubscriptions(of: client) }
    }

    /// What to lower when a method's answer is too large.
    private static func sizeHint(_ method: String) -> String {
        switch RPCMethod(rawValue: method) {
        case .ledgerExport: return "lower \"limit\" (the answer is paged: continue from next_anchor)"
        case .samplesList: return "lower \"limit\" (continue from next_start)"
        case .stepsCollection: return "use a longer \"interval\", a shorter range, or leave out \"by_source\""
        case .activityQuery: return "ask for a shorter range"
        default: return "send this request alone, not in a batch"
        }
    }

    /// The serialized response to one request, or nil for a JSON-RPC notification (no id).
    /// A response larger than `budget` bytes becomes a -32003 error naming what to lower.
    private func answer(_ decoded: Result<RPCRequest, RPCEnvelopeError>, client: ClientID, peer: RPCPeer, budget: Int) -> [UInt8]? {
        let request: RPCRequest
        switch decoded {
        case .failure(let envelope):
            errorsSent += 1
            return RPCResponse.failure(id: envelope.id, error: envelope.error).serialized()
        case .success(let r): request = r
        }
        requestsServed += 1
        let outcome: Result<JSONValue, RPCError>
        do throws(RPCError) {
            outcome = .success(try execute(request, client: client, peer: peer))
        } catch {
            outcome = .failure(error)
        }
        guard let id = request.id else { return nil }
        switch outcome {
        case .success(let result):
            let bytes = RPCResponse.success(id: id, result: result).serialized()
            if bytes.count <= budget { return bytes }
            errorsSent += 1
            let error = RPCError.limitExceeded(
                "the answer to \(request.method) would be \(bytes.count) bytes, more than the \(budget) bytes left for it (answers are at most \(maxResponseBytes) bytes); \(Self.sizeHint(request.method))")
            return RPCResponse.failure(id: id, error: error).serialized()
        case .failure(let error):
            errorsSent += 1
            return RPCResponse.failure(id: id, error: error).serialized()
        }
    }

    private func execute(_ request: RPCRequest, client: ClientID, peer: RPCPeer) throws(RPCError) -> JSONValue {
        guard let method = RPCMethod(rawValue: request.method) else { throw .methodNotFound(request.method) }
        if case .denied(let reason) = permissions.decide(method, peer: peer) {
            denials += 1
            logger.warning("denied \(method.rawValue) to pid \(peer.pid) uid \(peer.uid) gid \(peer.gid): \(reason)")
            throw .permissionDenied(reason + "; run as root, as the agent's user, or join the admin group")
        }
        switch method {
        case .stepsSubscribe:
            let params = try StepsSubscribeParams(json: request.params)
            let now = SystemClocks.wall()
            var baseline = service.currentStepTotal()
            var distanceBaseline = latestDistance
            var startedAt = now
            var earlier: (steps: Int, distanceMeters: Double)?
            if let from = params.from {
                guard from <= now else { throw .validationFailed("\"from\" is in the future; give a past time or leave it out") }
                guard from >= now - StepsSubscribeParams.maximumLookback else {
                    throw .validationFailed("\"from\" may reach back at most \(Int(StepsSubscribeParams.maximumLookback / 86_400)) days")
                }
                let counted = try service.stepsSince(from)
                earlier = counted
                baseline -= counted.steps
                distanceBaseline = latestDistance.map { $0 - counted.distanceMeters }
                startedAt = from
            }
            let id = try addSubscription(client, .steps(updateOn: params.updateOn, baseline: baseline,
                                                         notifiedAt: earlier?.steps ?? 0, startedAt: startedAt,
                                                         distanceBaseline: distanceBaseline))
            if let earlier {
                // CMPedometer's startUpdates(from:) reports the steps since `from` at once.
                let notice = StepsUpdateNotice(subscription: id, steps: earlier.steps, start: startedAt, end: now,
                                               distanceMeters: earlier.distanceMeters)
                afterAnswer.append((client, RPCNotification(method: RPCNotificationMethod.stepsUpdate, params: notice.json).json.serialized()))
            }
            return SubscribeResult(subscription: id).json
        case .ledgerSubscribe:
            try NoParams.check(request.params, method: method)
            return SubscribeResult(subscription: try addSubscription(client, .ledger)).json
        case .activitySubscribe:
            try NoParams.check(request.params, method: method)
            return SubscribeResult(subscription: try addSubscription(client, .activity)).json
        case .unsubscribe:
            let params = try UnsubscribeParams(json: request.params)
            guard let existing = subscriptions[params.subscription], existing.client == client else {
                throw .invalidParams("no subscription \(params.subscription) on this connection")
            }
            subscriptions.removeValue(forKey: params.subscription)
            return UnsubscribeResult(subscription: params.subscription).json
        case .status:
            try NoParams.check(request.params, method: method)
            var status = try service.status()
            status.clients = socket.clientCount
            return status.json
        default:
            return try RPCDispatch.call(method, params: request.params, caller: peer, service: service)
        }
    }

    private func addSubscription(_ client: ClientID, _ kind: SubscriptionKind) throws(RPCError) -> Int {
        let mine = subscriptions.values.reduce(0) { $0 + ($1.client == client ? 1 : 0) }
        guard mine < subscriptionLimits.perClient else {
            throw .limitExceeded("at most \(subscriptionLimits.perClient) subscriptions per connection; unsubscribe first")
        }
        guard subscriptions.count < subscriptionLimits.total else {
            throw .limitExceeded("the agent serves at most \(subscriptionLimits.total) subscriptions; try again later")
        }
        // Ids wrap at Int32.max; one still held by a long-lived subscription is skipped, or
        // the new one would replace (and answer for) another client's. The total limit above
        // guarantees a free id.
        var id = nextSubscriptionID
        while subscriptions[id] != nil { id = Self.subscriptionID(after: id) }
        nextSubscriptionID = Self.subscriptionID(after: id)
        subscriptions[id] = Subscription(id: id, client: client, kind: kind)
        return id
    }

    private static func subscriptionID(after id: Int) -> Int {
        id == Int(Int32.max) ? 1 : id + 1
    }

    private func removeSubscriptions(of client: ClientID) {
        subscriptions = subscriptions.filter { $0.value.client != client }
    }

    /// The agent's running step total (and distance in metres since start, when known). Each
    /// steps subscription gets `steps.update` once `update_on` more steps have accumulated
    /// since its last notification.
    public func publishSteps(total: Int, distanceMeters: Double? = nil) {
        latestDistance = distanceMeters
        guard !subscriptions.isEmpty else { return }
        let now = SystemClocks.wall()
        var dropped: [ClientID] = []
        for (id, var subscription) in subscriptions {
            guard case .steps(let updateOn, var baseline, var notifiedAt, let startedAt, var distanceBaseline) = subscription.kind else { continue }
            if dropped.contains(subscription.client) { continue }
            if total < baseline {
                // The agent's counter restarted; count on from the new origin.
                baseline = total
                notifiedAt = 0
                distanceBaseline = distanceMeters
            }
            let since = total - baseline
            if since >= notifiedAt + updateOn {
                notifiedAt = since
                let notice = StepsUpdateNotice(subscription: id, steps: since, start: startedAt, end: now,
                                               distanceMeters: distanceMeters.map { $0 - (distanceBaseline ?? $0) })
                if distanceBaseline == nil { distanceBaseline = distanceMeters }
                let line = RPCNotification(method: RPCNotificationMethod.stepsUpdate, params: notice.json).json.serialized()
                if !socket.send(line, to: subscription.client) {
                    dropped.append(subscription.client)
                    continue
                }
            }
            subscription.kind = .steps(updateOn: updateOn, baseline: baseline, notifiedAt: notifiedAt, startedAt: startedAt,
                                       distanceBaseline: distanceBaseline)
            subscriptions[id] = subscription
        }
        for client in dropped { removeSubscriptions(of: client) }
    }

    /// Sends `activity.update` to every activity subscription.
    public func publishActivity(_ activity: ActivityResult) {
        guard !subscriptions.isEmpty else { return }
        let fields = activity.json.objectValue?.members ?? []
        var dropped: [ClientID] = []
        for (id, subscription) in subscriptions {
            guard case .activity = subscription.kind, !dropped.contains(subscription.client) else { continue }
            var params: JSONObject = ["subscription": .int(id)]
            for m in fields { params[m.key] = m.value }
            let line = RPCNotification(method: RPCNotificationMethod.activityUpdate, params: .object(params)).json.serialized()
            if !socket.send(line, to: subscription.client) { dropped.append(subscription.client) }
        }
        for client in dropped { removeSubscriptions(of: client) }
    }

    /// Sends `ledger.changed` to every ledger subscription: records reached the disk.
    public func publishLedgerChange(reasons: [LedgerChangedNotice.Reason], latestAnchor: Int64) {
        guard !subscriptions.isEmpty else { return }
        var dropped: [ClientID] = []
        for (id, subscription) in subscriptions {
            guard case .ledger = subscription.kind, !dropped.contains(subscription.client) else { continue }
            let notice = LedgerChangedNotice(subscription: id, reasons: reasons, latestAnchor: latestAnchor)
            let line = RPCNotification(method: RPCNotificationMethod.ledgerChanged, params: notice.json).json.serialized()
            if !socket.send(line, to: subscription.client) { dropped.append(subscription.client) }
        }
        for client in dropped { removeSubscriptions(of: client) }
    }

    /// Closes all connections and removes the socket file.
    public func close() {
        subscriptions.removeAll()
        socket.close()
    }
}
