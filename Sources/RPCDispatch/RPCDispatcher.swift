import StepJSON
import StepProtocol
import StepdModel

/// Identifies one connection for the life of the transport (the transport's client id).
public typealias ConnectionID = Int

/// Bounds on subscriptions, so a client cannot make every step cost unbounded work.
public struct SubscriptionLimits: Sendable {
    public var perClient: Int
    public var total: Int
    public init(perClient: Int = 8, total: Int = 1024) {
        self.perClient = perClient
        self.total = total
    }
}

/// What the transport must do after the dispatcher saw an input, in order.
public enum RPCOutput: Sendable, Equatable {
    /// A response line (single or batch) to the request just answered; always queued.
    case answer(ConnectionID, [UInt8])
    /// A notification line (`steps.update`, ...); the transport may drop a slow reader for it.
    case notification(ConnectionID, [UInt8])
    /// Stop (true) or resume (false) reading requests from this connection: its earlier
    /// answers are unread, so requests are held until it reads them.
    case pauseReading(ConnectionID, Bool)
}

/// The JSON-RPC layer of the agent as a pure state machine: request lines and peer credentials
/// in, answer and notification lines out (plus the hold decision), with no socket, clock or
/// thread inside. The transport (`RPCServer` over `UnixSocketServer`) feeds it connection events
/// and applies the returned `RPCOutput`s; tests feed it lines directly.
///
/// Holds per connection: the peer's credentials, its subscriptions and the requests held while
/// its earlier answers are unread.
public final class RPCDispatcher {
    enum SubscriptionKind {
        case steps(updateOn: Int, baseline: Int, notifiedAt: Int, startedAt: Double, distanceBaseline: Double?)
        case activity
        case ledger
    }

    struct Subscription {
        let id: Int
        let connection: ConnectionID
        var kind: SubscriptionKind
    }

    public let service: any StepdService
    public let permissions: PermissionPolicy
    public let subscriptionLimits: SubscriptionLimits
    public let jsonLimits: JSONLimits
    private let logger: EventLogger
    private var peers: [ConnectionID: RPCCaller] = [:]
    private var subscriptions: [Int: Subscription] = [:]
    private var nextSubscriptionID = 1
    private var latestDistance: Double?
    /// Requests read from a connection while its earlier answers are unread; answered in order
    /// once it has read them (its input is not read meanwhile, so this stays one read chunk).
    private var heldLines: [ConnectionID: [[UInt8]]] = [:]
    /// Notifications that must follow the answer being built: a `steps.subscribe` with `from`,
    /// and whatever the request itself made the agent publish (a `samples.add` reaches the disk
    /// and the ledger reports `ledger.changed` while the answer is still being built), so the
    /// requester reads its answer before the news it caused.
    private var afterAnswer: [RPCOutput] = []
    /// True while a request line is being answered; notifications published meanwhile wait in
    /// `afterAnswer`.
    private var answering = false
    /// A connection with this much answer output unread gets its next request held.
    public static let holdRequestsAboveBytes = 65_536

    /// Counters for tests and benchmarks.
    public private(set) var requestsServed = 0
    public private(set) var errorsSent = 0
    public private(set) var denials = 0

    /// `maxLineBytes` is the transport's line limit; no JSON value may be larger.
    public init(service: any StepdService, permissions: PermissionPolicy, maxLineBytes: Int,
                subscriptionLimits: SubscriptionLimits = SubscriptionLimits(), logger: EventLogger) {
        self.service = service
        self.permissions = permissions
        self.subscriptionLimits = subscriptionLimits
        self.logger = logger
        jsonLimits = JSONLimits(maxBytes: maxLineBytes, maxDepth: 32)
    }

    public var connectionCount: Int { peers.count }
    public var subscriptionCount: Int { subscriptions.count }
    /// Connections with requests held until they read their earlier answers.
    public var connectionsHoldingRequests: [ConnectionID] { Array(heldLines.keys) }

    /// The line a connection gets when the transport refuses or cuts it off.
    public static func refusalLine(_ reason: String) -> [UInt8] {
        RPCResponse.failure(id: .null, error: .limitExceeded(reason)).serialized()
    }

    // MARK: - Connection events

    public func connected(_ id: ConnectionID, peer: RPCCaller) {
        peers[id] = peer
    }

    /// The connection is gone (closed, or dropped by the transport): its subscriptions and held
    /// requests go with it. Safe to call more than once.
    public func disconnected(_ id: ConnectionID) {
        peers[id] = nil
        heldLines[id] = nil
        removeSubscriptions(of: id)
    }

    /// One request line from `id`. `unreadAnswerBytes` is how much of its earlier answers the
    /// transport still holds unwritten; `now` is UTC seconds.
    public func receive(_ line: [UInt8], from id: ConnectionID, unreadAnswerBytes: Int, now: Double) -> [RPCOutput] {
        guard peers[id] != nil else { return [] }
        if heldLines[id] != nil || unreadAnswerBytes >= Self.holdRequestsAboveBytes {
            let first = heldLines[id] == nil
            heldLines[id, default: []].append(line)
            return first ? [.pauseReading(id, true)] : []
        }
        return answerLine(line, from: id, now: now)
    }

    /// Answers the oldest held request of `id` once fewer than `holdRequestsAboveBytes` of its
    /// answers are unread; nil when nothing was released. The transport calls this again (with
    /// the new unread count) until it returns nil.
    public func releaseHeld(of id: ConnectionID, unreadAnswerBytes: Int, now: Double) -> [RPCOutput]? {
        guard var lines = heldLines[id], !lines.isEmpty, unreadAnswerBytes < Self.holdRequestsAboveBytes else { return nil }
        let line = lines.removeFirst()
        heldLines[id] = lines.isEmpty ? nil : lines
        var outputs = answerLine(line, from: id, now: now)
        if lines.isEmpty { outputs.append(.pauseReading(id, false)) }
        return outputs
    }

    // MARK: - Answers

    private func answerLine(_ bytes: [UInt8], from id: ConnectionID, now: Double) -> [RPCOutput] {
        guard let peer = peers[id] else { return [] }
        afterAnswer.removeAll()
        answering = true
        defer { answering = false }
        var outputs: [RPCOutput] = []
        switch RPCIncoming.decode(line: bytes[...], limits: jsonLimits) {
        case .unparsable(let error):
            outputs.append(.answer(id, RPCResponse.failure(id: .null, error: error).serialized()))
        case .single(let decoded):
            if let response = answer(decoded, from: id, peer: peer, budget: maxResponseBytes, now: now) {
                outputs.append(.answer(id, response))
            }
        case .batch(let elements):
            // The whole batch answer must fit in one answer, too: a member that would push it
            // over is answered with an error saying so.
            var parts: [[UInt8]] = []
            var size = 2
            for element in elements {
                guard let part = answer(element, from: id, peer: peer, budget: maxResponseBytes - size, now: now) else { continue }
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
                outputs.append(.answer(id, line))
            }
        }
        outputs += afterAnswer
        afterAnswer.removeAll()
        return outputs
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
    private func answer(_ decoded: Result<RPCRequest, RPCEnvelopeError>, from id: ConnectionID, peer: RPCCaller,
                        budget: Int, now: Double) -> [UInt8]? {
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
            outcome = .success(try execute(request, from: id, peer: peer, now: now))
        } catch {
            outcome = .failure(error)
        }
        guard let requestID = request.id else { return nil }
        switch outcome {
        case .success(let result):
            let bytes = RPCResponse.success(id: requestID, result: result).serialized()
            if bytes.count <= budget { return bytes }
            errorsSent += 1
            let error = RPCError.limitExceeded(
                "the answer to \(request.method) would be \(bytes.count) bytes, more than the \(budget) bytes left for it (answers are at most \(maxResponseBytes) bytes); \(Self.sizeHint(request.method))")
            return RPCResponse.failure(id: requestID, error: error).serialized()
        case .failure(let error):
            errorsSent += 1
            return RPCResponse.failure(id: requestID, error: error).serialized()
        }
    }

    private func execute(_ request: RPCRequest, from id: ConnectionID, peer: RPCCaller, now: Double) throws(RPCError) -> JSONValue {
        guard let method = RPCMethod(rawValue: request.method) else { throw .methodNotFound(request.method) }
        if case .denied(let reason) = permissions.decide(method, peer: peer) {
            denials += 1
            logger.warning("denied \(method.rawValue) to pid \(peer.pid) uid \(peer.uid) gid \(peer.gid): \(reason)")
            throw .permissionDenied(reason + "; run as root, as the agent's user, or join the admin group")
        }
        switch method {
        case .stepsSubscribe:
            return try subscribeSteps(StepsSubscribeParams(json: request.params), from: id, now: now).json
        case .ledgerSubscribe:
            try NoParams.check(request.params, method: method)
            return SubscribeResult(subscription: try addSubscription(id, .ledger)).json
        case .activitySubscribe:
            try NoParams.check(request.params, method: method)
            return SubscribeResult(subscription: try addSubscription(id, .activity)).json
        case .unsubscribe:
            let params = try UnsubscribeParams(json: request.params)
            guard let existing = subscriptions[params.subscription], existing.connection == id else {
                throw .invalidParams("no subscription \(params.subscription) on this connection")
            }
            subscriptions.removeValue(forKey: params.subscription)
            return UnsubscribeResult(subscription: params.subscription).json
        case .status:
            try NoParams.check(request.params, method: method)
            var status = try service.status()
            status.clients = peers.count
            return status.json
        default:
            return try service.call(method, params: request.params, caller: peer)
        }
    }

    private func subscribeSteps(_ params: StepsSubscribeParams, from id: ConnectionID, now: Double) throws(RPCError) -> SubscribeResult {
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
        let subscription = try addSubscription(id, .steps(updateOn: params.updateOn, baseline: baseline,
                                                           notifiedAt: earlier?.steps ?? 0, startedAt: startedAt,
                                                           distanceBaseline: distanceBaseline))
        if let earlier {
            // CMPedometer's startUpdates(from:) reports the steps since `from` at once.
            let notice = StepsUpdateNotice(subscription: subscription, steps: earlier.steps, start: startedAt, end: now,
                                           distanceMeters: earlier.distanceMeters)
            afterAnswer.append(.notification(id, RPCNotification(method: RPCNotificationMethod.stepsUpdate, params: notice.json).json.serialized()))
        }
        return SubscribeResult(subscription: subscription)
    }

    private func addSubscription(_ id: ConnectionID, _ kind: SubscriptionKind) throws(RPCError) -> Int {
        let mine = subscriptions.values.reduce(0) { $0 + ($1.connection == id ? 1 : 0) }
        guard mine < subscriptionLimits.perClient else {
            throw .limitExceeded("at most \(subscriptionLimits.perClient) subscriptions per connection; unsubscribe first")
        }
        guard subscriptions.count < subscriptionLimits.total else {
            throw .limitExceeded("the agent serves at most \(subscriptionLimits.total) subscriptions; try again later")
        }
        // Ids wrap at Int32.max; one still held by a long-lived subscription is skipped, or
        // the new one would replace (and answer for) another client's. The total limit above
        // guarantees a free id.
        var subscription = nextSubscriptionID
        while subscriptions[subscription] != nil { subscription = Self.subscriptionID(after: subscription) }
        nextSubscriptionID = Self.subscriptionID(after: subscription)
        subscriptions[subscription] = Subscription(id: subscription, connection: id, kind: kind)
        return subscription
    }

    private static func subscriptionID(after id: Int) -> Int {
        id == Int(Int32.max) ? 1 : id + 1
    }

    private func removeSubscriptions(of id: ConnectionID) {
        subscriptions = subscriptions.filter { $0.value.connection != id }
    }

    // MARK: - Notifications

    /// Notifications published while a request is being answered (the service calling back
    /// into the agent's publishers) wait until after that answer; otherwise they go out now.
    private func deliver(_ notifications: [RPCOutput]) -> [RPCOutput] {
        guard answering else { return notifications }
        afterAnswer += notifications
        return []
    }

    /// The agent's running step total (and distance in metres since start, when known). Each
    /// steps subscription gets `steps.update` once `update_on` more steps have accumulated
    /// since its last notification.
    public func publishSteps(total: Int, distanceMeters: Double? = nil, now: Double) -> [RPCOutput] {
        latestDistance = distanceMeters
        guard !subscriptions.isEmpty else { return [] }
        var outputs: [RPCOutput] = []
        for (id, var subscription) in subscriptions {
            guard case .steps(let updateOn, var baseline, var notifiedAt, let startedAt, var distanceBaseline) = subscription.kind else { continue }
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
                outputs.append(.notification(subscription.connection,
                                             RPCNotification(method: RPCNotificationMethod.stepsUpdate, params: notice.json).json.serialized()))
            }
            subscription.kind = .steps(updateOn: updateOn, baseline: baseline, notifiedAt: notifiedAt, startedAt: startedAt,
                                       distanceBaseline: distanceBaseline)
            subscriptions[id] = subscription
        }
        return deliver(outputs)
    }

    /// `activity.update` to every activity subscription.
    public func publishActivity(_ activity: ActivityResult) -> [RPCOutput] {
        guard !subscriptions.isEmpty else { return [] }
        let fields = activity.json.objectValue?.members ?? []
        var outputs: [RPCOutput] = []
        for (id, subscription) in subscriptions {
            guard case .activity = subscription.kind else { continue }
            var params: JSONObject = ["subscription": .int(id)]
            for m in fields { params[m.key] = m.value }
            outputs.append(.notification(subscription.connection,
                                         RPCNotification(method: RPCNotificationMethod.activityUpdate, params: .object(params)).json.serialized()))
        }
        return deliver(outputs)
    }

    /// `ledger.changed` to every ledger subscription: records reached the disk.
    public func publishLedgerChange(reasons: [LedgerChangedNotice.Reason], latestAnchor: Int64) -> [RPCOutput] {
        guard !subscriptions.isEmpty else { return [] }
        var outputs: [RPCOutput] = []
        for (id, subscription) in subscriptions {
            guard case .ledger = subscription.kind else { continue }
            let notice = LedgerChangedNotice(subscription: id, reasons: reasons, latestAnchor: latestAnchor)
            outputs.append(.notification(subscription.connection,
                                         RPCNotification(method: RPCNotificationMethod.ledgerChanged, params: notice.json).json.serialized()))
        }
        return deliver(outputs)
    }
}
