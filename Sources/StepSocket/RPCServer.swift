import Glibc
import POSIXLayer
import RPCDispatch
import StepProtocol
import StepdModel

/// The agent's socket endpoint: `UnixSocketServer` (the transport) feeding `RPCDispatcher`
/// (the JSON-RPC layer) and applying what it returns. Lives on the agent's loop thread; never
/// blocks.
///
/// Loop integration: poll `pollDescriptors`, pass the same entries with `revents` to `handle`;
/// call `publishSteps` / `publishActivity` / `publishLedgerChange` whenever the agent reports.
public final class RPCServer {
    public let socket: UnixSocketServer
    public let dispatcher: RPCDispatcher
    private let logger: EventLogger
    /// The "now" requests and notifications are answered at (UTC seconds): the agent's calendar,
    /// a simulated one under `stepd --simulate-start`.
    public var wallClock: () -> Double = { SystemClocks.wall() }
    /// Connections are being refused and that was logged; cleared by the next one accepted.
    private var refusing = false

    public init(options: UnixSocketServerOptions, service: any StepdService, permissions: PermissionPolicy,
                subscriptionLimits: SubscriptionLimits = SubscriptionLimits(), logger: EventLogger) throws(SocketError) {
        socket = try UnixSocketServer(options: options)
        dispatcher = RPCDispatcher(service: service, permissions: permissions, maxLineBytes: options.maxLineBytes,
                                   subscriptionLimits: subscriptionLimits, logger: logger)
        self.logger = logger
        socket.refusalLine = RPCDispatcher.refusalLine
    }

    public var pollDescriptors: [pollfd] { socket.pollDescriptors }
    public var clientCount: Int { socket.clientCount }
    public var subscriptionCount: Int { dispatcher.subscriptionCount }
    public var socketPath: String { socket.options.path }

    public func handle(_ ready: [pollfd]) {
        let now = wallClock()
        for event in socket.handle(ready) {
            switch event {
            case .refused(let reason):
                // Once per spell of refusals (a connect flood would fill the journal): the
                // clients are told, the log says that some were turned away and how to see why.
                if !refusing { logger.notice("refusing new clients: \(reason)") }
                refusing = true
            case .connected(let id, let peer):
                refusing = false
                dispatcher.connected(id, peer: peer)
                logger.debug("client \(id) connected (pid \(peer.pid), uid \(peer.uid))")
            case .line(let id, let bytes):
                apply(dispatcher.receive(bytes, from: id, unreadAnswerBytes: socket.queuedBytes(of: id), now: now))
            case .disconnected(let id, let reason, let byServer):
                dispatcher.disconnected(id)
                // A client the agent cut off (at the default info level a tester saw nothing of a
                // `watch` that stopped reading and lost its updates) is worth a line; clients come
                // and go all the time, which is not.
                if byServer {
                    logger.notice("client \(id) disconnected by the agent: \(reason)")
                } else {
                    logger.debug("client \(id) disconnected: \(reason)")
                }
            }
        }
        // Held requests of clients that have read their earlier answers.
        for id in dispatcher.connectionsHoldingRequests {
            while let outputs = dispatcher.releaseHeld(of: id, unreadAnswerBytes: socket.queuedBytes(of: id), now: now) {
                apply(outputs)
            }
        }
    }

    public func publishSteps(total: Int, distanceMeters: Double? = nil) {
        apply(dispatcher.publishSteps(total: total, distanceMeters: distanceMeters, now: wallClock()))
    }

    public func publishActivity(_ activity: ActivityResult) {
        apply(dispatcher.publishActivity(activity))
    }

    public func publishLedgerChange(reasons: [LedgerChangedNotice.Reason], latestAnchor: Int64) {
        apply(dispatcher.publishLedgerChange(reasons: reasons, latestAnchor: latestAnchor))
    }

    /// Writes what the dispatcher decided; a connection the transport dropped while sending
    /// (write failed, slow reader) is forgotten by the dispatcher at once.
    private func apply(_ outputs: [RPCOutput]) {
        for output in outputs {
            switch output {
            case .answer(let id, let line):
                if !socket.send(line, to: id, isAnswer: true) { dispatcher.disconnected(id) }
            case .notification(let id, let line):
                if !socket.send(line, to: id) { dispatcher.disconnected(id) }
            case .pauseReading(let id, let paused):
                socket.pauseReading(id, paused)
            }
        }
    }

    /// Closes all connections and removes the socket file.
    public func close() {
        socket.close()
    }
}
