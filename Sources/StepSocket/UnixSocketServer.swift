import CStepdShim
import Glibc
import POSIXLayer
import StepProtocol

/// Limits and ownership of the listening socket.
public struct UnixSocketServerOptions: Sendable {
    public var path: String
    /// Socket file mode; 0660 lets the owning group connect.
    public var mode: mode_t
    /// Group the socket file is chowned to (the `stepd` group); nil keeps the creator's group.
    public var groupID: UInt32?
    public var maxClients: Int
    public var maxLineBytes: Int
    /// Notifications a client may leave unread (beyond one answer in flight, at most
    /// `maxResponseBytes`) before it is dropped as a slow reader. Answers never count against
    /// it: a client's next request waits until it has read its previous answers.
    public var maxQueuedBytes: Int
    /// Bytes read from one client per readiness event, so one busy client cannot starve others.
    public var readChunkBytes: Int

    public init(path: String, mode: mode_t = 0o660, groupID: UInt32? = nil, maxClients: Int = 256,
                maxLineBytes: Int = 65_536, maxQueuedBytes: Int = 1 << 20, readChunkBytes: Int = 16_384) {
        self.path = path
        self.mode = mode
        self.groupID = groupID
        self.maxClients = maxClients
        self.maxLineBytes = maxLineBytes
        self.maxQueuedBytes = maxQueuedBytes
        self.readChunkBytes = readChunkBytes
    }
}

/// Identifies one connection for the life of the server (fds are reused, ids are not).
public typealias ClientID = Int

/// What happened on the socket during one `handle` call.
public enum SocketEvent: Sendable, Equatable {
    case connected(ClientID, RPCPeer)
    case line(ClientID, [UInt8])
    /// `byServer`: the agent cut the connection (a slow reader, an overlong line), which the
    /// client did not ask for and the log says at notice level; else the client went away.
    case disconnected(ClientID, String, byServer: Bool)
    /// A connection turned away at once (the client limit), with the reason it was told.
    case refused(String)
}

/// The peer of a connection, from SO_PEERCRED: the same credentials the service sees as the caller.
public typealias RPCPeer = RPCCaller

/// A non-blocking, poll-driven stream Unix socket server with newline framing. It never blocks:
/// output is queued per client (bounded) and written when the socket is writable.
public final class UnixSocketServer {
    final class Connection {
        let id: ClientID
        let descriptor: FileDescriptor
        /// Kept apart from `descriptor` so the maps can still find the entry once it is closed.
        let fd: Int32
        let peer: RPCPeer
        var input: [UInt8] = []
        /// Bytes of `input` already searched for a newline.
        var scanned = 0
        var output: [UInt8] = []
        var outputOffset = 0
        /// Not polled for input: the layer above holds requests until answers are read.
        var readingPaused = false
        /// The client shut down its writing side (end of file) but may still read: its queued
        /// answers go out before the connection is closed.
        var inputClosed = false

        init(id: ClientID, descriptor: FileDescriptor, peer: RPCPeer) {
            self.id = id
            self.descriptor = descriptor
            fd = descriptor.rawValue
            self.peer = peer
        }

        var pendingOutput: Int { output.count - outputOffset }
    }

    public let options: UnixSocketServerOptions
    private var listener: FileDescriptor?
    private var connections: [ClientID: Connection] = [:]
    private var connectionByFD: [Int32: ClientID] = [:]
    private var nextID: ClientID = 1
    private var readBuffer: [UInt8]
    /// Events produced outside `handle` (drops while sending), delivered with the next `handle`.
    private var deferredEvents: [SocketEvent] = []
    /// accept(2) ran out of descriptors: the listener sits out the next poll.
    private var listenerResting = false

    /// The error line a connection gets when refused or cut off; set by the layer above.
    public var refusalLine: (String) -> [UInt8] = { reason in Array(reason.utf8) }

    public init(options: UnixSocketServerOptions) throws(SocketError) {
        self.options = options
        readBuffer = [UInt8](repeating: 0, count: max(options.readChunkBytes, 512))
        listener = try Self.bindListener(options)
    }

    deinit { close() }

    private static func bindListener(_ options: UnixSocketServerOptions) throws(SocketError) -> FileDescriptor {
        let path = options.path
        guard let address = UnixSocketAddress(path: path) else {
            throw SocketError(operation: "socket path", path: path, errno: ENAMETOOLONG,
                              hint: "a Unix socket path must be 1 to 107 bytes; choose a shorter --socket")
        }
        try ensureParentDirectory(of: path)
        try removeStaleSocket(path, address)

        let listener: FileDescriptor
        do throws(Errno) {
            listener = try FileDescriptor.unixSocket(Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue))
        } catch {
            throw SocketError(operation: "create socket for", path: path, error)
        }
        do throws(Errno) {
            try listener.bind(to: address)
        } catch {
            throw SocketError(operation: "bind", path: path, error,
                              hint: error.rawValue == EACCES ? "no write permission on the directory; pass --socket in a writable place" : nil)
        }
        // From here on a failure removes the socket file too (the listener closes itself).
        do throws(SocketError) {
            // Mode and group are set before listen(), so nobody can connect through a wider mode.
            guard chmod(path, options.mode) == 0 else { throw SocketError(operation: "chmod", path: path, .current) }
            if let group = options.groupID, chown(path, uid_t.max, group) != 0 {
                throw SocketError(operation: "chown to group \(group)", path: path, .current,
                                  hint: "the agent must run as root or be a member of that group")
            }
            do throws(Errno) {
                try listener.listen(backlog: 128)
            } catch {
                throw SocketError(operation: "listen on", path: path, error)
            }
        } catch {
            unlink(path)
            throw error
        }
        return listener
    }

    private static func ensureParentDirectory(of path: String) throws(SocketError) {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return }
        let parent = String(path[..<slash])
        var info = stat()
        if stat(parent, &info) == 0 { return }
        guard errno == ENOENT else { throw SocketError(operation: "stat", path: parent, .current) }
        do throws(FileSystemError) {
            try FileSystem.makeDirectory(parent, mode: 0o755)
        } catch {
            throw SocketError(operation: "create directory", path: parent, errno: error.errno,
                              hint: "create it or pass --socket in an existing directory")
        }
    }

    /// A socket file left by a crashed agent is removed; one somebody listens on is not.
    private static func removeStaleSocket(_ path: String, _ address: UnixSocketAddress) throws(SocketError) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        guard (info.st_mode & S_IFMT) == S_IFSOCK else {
            throw SocketError(operation: "refusing to replace", path: path, errno: EEXIST,
                              hint: "it exists and is not a socket; remove it or choose another --socket")
        }
        let probe: FileDescriptor
        do throws(Errno) {
            probe = try FileDescriptor.unixSocket(Int32(SOCK_STREAM.rawValue))
        } catch {
            throw SocketError(operation: "create socket for", path: path, error)
        }
        do throws(Errno) {
            try probe.connect(to: address)
        } catch {
            guard error == .connectionRefused || error == .noSuchFile else {
                throw SocketError(operation: "checking existing socket", path: path, error)
            }
            try removeFile(path)
            return
        }
        throw SocketError(operation: "another agent is already listening on", path: path, errno: EADDRINUSE,
                          hint: "stop it first or pass another --socket")
    }

    private static func removeFile(_ path: String) throws(SocketError) {
        do throws(FileSystemError) {
            try FileSystem.remove(path)
        } catch {
            throw SocketError(operation: "remove stale socket", path: path, errno: error.errno)
        }
    }

    public var clientCount: Int { connections.count }
    public func peer(of id: ClientID) -> RPCPeer? { connections[id]?.peer }
    public func queuedBytes(of id: ClientID) -> Int { connections[id]?.pendingOutput ?? 0 }

    /// The listener and every client; POLLOUT only for clients with queued output.
    public var pollDescriptors: [pollfd] {
        guard let listener else { return [] }
        var fds: [pollfd] = []
        fds.reserveCapacity(connections.count + 1)
        fds.append(pollfd(fd: listener.rawValue, events: listenerResting ? 0 : Int16(POLLIN), revents: 0))
        for connection in connections.values {
            var events = connection.readingPaused || connection.inputClosed ? Int16(0) : Int16(POLLIN)
            if connection.pendingOutput > 0 { events |= Int16(POLLOUT) }
            fds.append(pollfd(fd: connection.fd, events: events, revents: 0))
        }
        return fds
    }

    /// Serves the ready descriptors (entries of `pollDescriptors` with `revents` set; others
    /// are ignored) and returns what happened.
    public func handle(_ ready: [pollfd]) -> [SocketEvent] {
        var events = deferredEvents
        deferredEvents.removeAll()
        listenerResting = false
        for entry in ready where entry.revents != 0 {
            if entry.fd == listener?.rawValue {
                acceptPending(&events)
                continue
            }
            guard let id = connectionByFD[entry.fd], let connection = connections[id] else { continue }
            if entry.revents & Int16(POLLOUT) != 0 {
                if !flush(connection) {
                    drop(connection, reason: "write failed", byServer: false, &events)
                    continue
                }
                if closeIfAnswered(connection, &events) { continue }
            }
            if entry.revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
                readAvailable(connection, &events)
            }
        }
        return events
    }

    private func acceptPending(_ events: inout [SocketEvent]) {
        // Bounded per round so a connect flood cannot hold the loop.
        guard let listener else { return }
        for _ in 0..<64 {
            // nil: EAGAIN, or a transient error such as ECONNABORTED; poll will tell again.
            let accepted: FileDescriptor?
            do throws(Errno) {
                accepted = try listener.accept()
            } catch where error.rawValue == EMFILE || error.rawValue == ENFILE {
                // The connection stays queued and the listener readable: polled again at once,
                // the loop spun at full CPU until a descriptor came free. Left out of one poll,
                // it is retried once per turn of the loop (the sensor wakes it every burst).
                listenerResting = true
                events.append(.refused("out of file descriptors (\(error)); raise LimitNOFILE= or close clients"))
                return
            } catch {
                return
            }
            guard let client = accepted else { return }
            if connections.count >= options.maxClients {
                let reason = "too many clients (limit \(options.maxClients)); try again later"
                events.append(.refused(reason))
                var line = refusalLine(reason)
                line.append(0x0A)
                _ = try? line.withUnsafeBytes { raw in Result { () throws(Errno) in try client.send(raw, flags: Int32(MSG_DONTWAIT)) } }.get()
                client.close()
                continue
            }
            var credentials = stepd_peer_credentials()
            let peer: RPCPeer
            if stepd_peer_credentials_get(client.rawValue, &credentials) >= 0 {
                peer = RPCPeer(pid: credentials.pid, uid: credentials.uid, gid: credentials.gid)
            } else {
                // Unknown peer: treat as nobody, so it only gets read access.
                peer = RPCPeer(pid: 0, uid: UInt32.max - 1, gid: UInt32.max - 1)
            }
            let id = nextID
            nextID += 1
            let connection = Connection(id: id, descriptor: client, peer: peer)
            connections[id] = connection
            connectionByFD[connection.fd] = id
            events.append(.connected(id, peer))
        }
    }

    private func readAvailable(_ connection: Connection, _ events: inout [SocketEvent]) {
        let received: Int
        do throws(Errno) {
            received = try readBuffer.withUnsafeMutableBytes { raw in
                Result { () throws(Errno) in try connection.descriptor.receive(into: raw, flags: Int32(MSG_DONTWAIT)) }
            }.get()
        } catch {
            if error == .wouldBlock { return }
            drop(connection, reason: "read failed: \(error)", byServer: false, &events)
            return
        }
        if received == 0 {
            // End of file: the client will send nothing more, but one that shut down only its
            // writing side (`printf REQUEST | socat -t 2 - UNIX-CONNECT:...`) still reads. Its
            // answers not yet taken by the socket were discarded: a large one arrived cut short.
            connection.inputClosed = true
            _ = closeIfAnswered(connection, &events)
            return
        }
        connection.input.append(contentsOf: readBuffer[0..<received])
        var lineStart = 0
        var index = connection.scanned
        let input = connection.input
        while index < input.count {
            if input[index] == 0x0A {
                var end = index
                if end > lineStart && input[end - 1] == 0x0D { end -= 1 }
                if end - lineStart > options.maxLineBytes {
                    refuseOversized(connection, &events)
                    return
                }
                // A line of only JSON whitespace is as empty as an empty one (a client's
                // keep-alive, an indented heredoc): ignored, not answered with a parse error.
                if input[lineStart..<end].contains(where: { !Self.isJSONWhitespace($0) }) {
                    events.append(.line(connection.id, Array(input[lineStart..<end])))
                }
                lineStart = index + 1
            }
            index += 1
        }
        if lineStart > 0 { connection.input.removeFirst(lineStart) }
        connection.scanned = connection.input.count
        if connection.input.count > options.maxLineBytes {
            refuseOversized(connection, &events)
        }
    }

    /// Space, tab, carriage return (RFC 8259's whitespace without the line feed that ends a line).
    private static func isJSONWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0D
    }

    private func refuseOversized(_ connection: Connection, _ events: inout [SocketEvent]) {
        var line = refusalLine("message longer than \(options.maxLineBytes) bytes; connection closed")
        line.append(0x0A)
        connection.output.append(contentsOf: line)
        _ = flush(connection)
        drop(connection, reason: "line longer than \(options.maxLineBytes) bytes", &events)
    }

    /// Stops (or resumes) polling a client for input; its hang-up is still noticed.
    public func pauseReading(_ id: ClientID, _ paused: Bool) {
        guard let connection = connections[id] else { return }
        connection.readingPaused = paused
        _ = closeIfAnswered(connection, &deferredEvents)
    }

    /// Closes a connection whose client has ended its input once everything owed to it is
    /// written (no queued output, no requests held above); true when it was closed.
    private func closeIfAnswered(_ connection: Connection, _ events: inout [SocketEvent]) -> Bool {
        guard connection.inputClosed, connection.pendingOutput == 0, !connection.readingPaused else { return false }
        drop(connection, reason: "closed by peer", byServer: false, &events)
        return true
    }

    /// Queues one line (a newline is appended) and writes what the socket takes now. Returns
    /// false when the client was dropped because the write failed or, for a notification
    /// (`isAnswer` false), because more than `maxQueuedBytes` besides an answer in flight are
    /// still unread. An answer (at most `maxResponseBytes`, checked by the layer above) is
    /// always queued: it is not the reader's fault that it is large.
    @discardableResult
    public func send(_ line: [UInt8], to id: ClientID, isAnswer: Bool = false) -> Bool {
        guard let connection = connections[id] else { return false }
        if !isAnswer && connection.pendingOutput + line.count + 1 > options.maxQueuedBytes + maxResponseBytes {
            drop(connection, reason: "slow reader: more than \(options.maxQueuedBytes) bytes of notifications unread", &deferredEvents)
            return false
        }
        if connection.outputOffset > 0 && connection.outputOffset >= connection.output.count / 2 {
            connection.output.removeFirst(connection.outputOffset)
            connection.outputOffset = 0
        }
        connection.output.append(contentsOf: line)
        connection.output.append(0x0A)
        if !flush(connection) {
            drop(connection, reason: "write failed", byServer: false, &deferredEvents)
            return false
        }
        return true
    }

    /// Writes queued output until the socket would block; false on a fatal error.
    private func flush(_ connection: Connection) -> Bool {
        while connection.pendingOutput > 0 {
            let written: Int
            do throws(Errno) {
                written = try connection.output.withUnsafeBytes { raw in
                    Result { () throws(Errno) in
                        try connection.descriptor.send(UnsafeRawBufferPointer(rebasing: raw[connection.outputOffset...]),
                                                       flags: Int32(MSG_DONTWAIT))
                    }
                }.get()
            } catch {
                return error == .wouldBlock
            }
            connection.outputOffset += written
        }
        connection.output.removeAll(keepingCapacity: connection.output.capacity <= 65_536)
        connection.outputOffset = 0
        return true
    }

    private func drop(_ connection: Connection, reason: String, byServer: Bool = true, _ events: inout [SocketEvent]) {
        guard connections.removeValue(forKey: connection.id) != nil else { return }
        connectionByFD.removeValue(forKey: connection.fd)
        connection.descriptor.close()
        events.append(.disconnected(connection.id, reason, byServer: byServer))
    }

    /// Disconnects one client (queued output is discarded).
    public func disconnect(_ id: ClientID, reason: String) {
        guard let connection = connections[id] else { return }
        drop(connection, reason: reason, &deferredEvents)
    }

    /// Closes every connection and the listener and removes the socket file.
    public func close() {
        for connection in connections.values { connection.descriptor.close() }
        connections.removeAll()
        connectionByFD.removeAll()
        if let listener {
            listener.close()
            self.listener = nil
            unlink(options.path)
        }
    }
}
