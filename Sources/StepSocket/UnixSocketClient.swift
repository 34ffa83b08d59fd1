import Glibc
import POSIXLayer
import StepJSON
import StepProtocol

/// Why a client call failed, phrased for the person at the shell.
public enum ClientError: Error, Sendable, Equatable, CustomStringConvertible {
    case notRunning(path: String)
    /// `group`: the socket's group when it can be read (nil: a folder on the way is closed).
    case accessDenied(path: String, group: String?)
    case staleSocket(path: String)
    case notASocket(path: String)
    case io(operation: String, errno: Int32)
    case timeout(seconds: Double)
    case closed
    case malformedReply(String)
    case rpc(RPCError)

    var isMissingSocket: Bool {
        if case .notRunning = self { return true }
        return false
    }

    public var description: String {
        switch self {
        case .notRunning(let path):
            return "stepd is not running or uses another socket: \(path) does not exist. Start it with `stepd` (or `systemctl start stepd`), or pass --socket PATH"
        case .accessDenied(let path, "root"):
            return "no permission to connect to \(path): its group is root; run as root (sudo), or start stepd with --socket-group GROUP and join that group"
        case .accessDenied(let path, let group?):
            // The socket's own group: a socket of another group (--socket-group) was said to
            // want group stepd.
            return "no permission to connect to \(path): add yourself to its group \(group) (`sudo usermod -aG \(group) $USER`, then log in again)"
        case .accessDenied(let path, nil):
            return "no permission to reach \(path): a folder on the way is closed to you (the packaged service's socket is for group stepd: `sudo usermod -aG stepd $USER`, then log in again)"
        case .staleSocket(let path):
            return "\(path) exists but nothing listens on it (stale socket from a stopped agent): start stepd, or pass --socket PATH"
        case .notASocket(let path):
            return "\(path) is not a socket (a regular file or a directory): pass the agent's socket with --socket PATH (stepd logs it when it starts)"
        case .io(let operation, let e):
            return "\(operation) failed: \(Errno(e))"
        case .timeout(let seconds):
            return "stepd did not answer within \(seconds) s"
        case .closed:
            return "stepd closed the connection"
        case .malformedReply(let detail):
            return "stepd sent an unexpected reply: \(detail)"
        case .rpc(let error):
            return error.message
        }
    }
}

/// A blocking client with timeouts, for stepctl, tests and benchmarks. Notifications that arrive
/// while waiting for a response are kept for `nextNotification`.
public final class UnixSocketClient {
    public let path: String
    public var timeout: Double
    private let descriptor: FileDescriptor
    /// The connected socket's number (-1 once closed), for callers that poll many clients.
    public var fd: Int32 { descriptor.rawValue }
    private var buffer: [UInt8] = []
    /// Bytes of `buffer` already searched for a newline, so a long reply arriving in many
    /// chunks is scanned once, not once per chunk.
    private var scanned = 0
    private var nextID: Int64 = 1
    private var pendingNotifications: [RPCNotification] = []
    private let limits = JSONLimits(maxBytes: 16 << 20, maxDepth: 64)

    public init(path: String, timeout: Double = 5) throws(ClientError) {
        self.path = path
        self.timeout = timeout
        guard let address = UnixSocketAddress(path: path) else { throw .io(operation: "socket path \(path)", errno: ENAMETOOLONG) }
        do throws(Errno) {
            descriptor = try FileDescriptor.unixSocket(Int32(SOCK_STREAM.rawValue))
        } catch {
            throw .io(operation: "socket", errno: error.rawValue)
        }
        do throws(Errno) {
            try descriptor.connect(to: address)
        } catch {
            switch error.rawValue {
            case ENOENT, ENOTDIR: throw .notRunning(path: path)
            case EACCES, EPERM: throw .accessDenied(path: path, group: Self.groupName(of: path))
            // connect(2) answers ECONNREFUSED for any file that is not a listening socket.
            case ECONNREFUSED:
                var info = stat()
                if stat(path, &info) == 0, (info.st_mode & S_IFMT) != S_IFSOCK { throw .notASocket(path: path) }
                throw .staleSocket(path: path)
            default: throw .io(operation: "connect to \(path)", errno: error.rawValue)
            }
        }
    }

    /// The name of the group owning `path` (its number when the group database has no name);
    /// nil when `path` cannot be examined.
    static func groupName(of path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        var group = Glibc.group()
        var found: UnsafeMutablePointer<Glibc.group>?
        var buffer = [CChar](repeating: 0, count: 16_384)
        guard getgrgid_r(info.st_gid, &group, &buffer, buffer.count, &found) == 0, found != nil, let name = group.gr_name else {
            return String(info.st_gid)
        }
        return String(cString: name)
    }

    public func close() { descriptor.close() }

    /// Sends raw bytes as they are (benchmarks and tests use this for hostile input).
    public func sendRaw(_ bytes: [UInt8]) throws(ClientError) {
        guard fd >= 0 else { throw .closed }
        var offset = 0
        while offset < bytes.count {
            guard try waitFor(Int16(POLLOUT), timeout: timeout) else { throw .timeout(seconds: timeout) }
            do throws(Errno) {
                offset += try bytes.withUnsafeBytes { raw in
                    Result { () throws(Errno) in try descriptor.send(UnsafeRawBufferPointer(rebasing: raw[offset...])) }
                }.get()
            } catch {
                if error == .wouldBlock { continue }
                if error == .brokenPipe || error == .connectionReset { throw .closed }
                throw .io(operation: "send", errno: error.rawValue)
            }
        }
    }

    public func send(_ message: JSONValue) throws(ClientError) {
        var bytes = message.serialized()
        bytes.append(0x0A)
        try sendRaw(bytes)
    }

    private func waitFor(_ events: Int16, timeout seconds: Double) throws(ClientError) -> Bool {
        var entries = [pollfd(fd: fd, events: events, revents: 0)]
        let ms = seconds < 0 ? -1 : Int32(min(seconds * 1000, Double(Int32.max)).rounded(.up))
        do throws(Errno) {
            return try pollDescriptors(&entries, timeoutMilliseconds: ms) > 0
        } catch {
            throw .io(operation: "poll", errno: error.rawValue)
        }
    }

    /// The next line from the agent (without the newline); nil when `timeout` passed first.
    public func readLine(timeout seconds: Double? = nil) throws(ClientError) -> [UInt8]? {
        guard fd >= 0 else { throw .closed }
        let limit = seconds ?? timeout
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            if let newline = buffer[scanned...].firstIndex(of: 0x0A) {
                let line = Array(buffer[..<newline])
                buffer.removeFirst(newline + 1)
                scanned = 0
                return line
            }
            scanned = buffer.count
            guard try waitFor(Int16(POLLIN), timeout: limit) else { return nil }
            let n: Int
            do throws(Errno) {
                n = try chunk.withUnsafeMutableBytes { raw in Result { () throws(Errno) in try descriptor.receive(into: raw) } }.get()
            } catch {
                if error == .wouldBlock { continue }
                if error == .connectionReset { throw .closed }
                throw .io(operation: "recv", errno: error.rawValue)
            }
            if n == 0 { throw .closed }
            buffer.append(contentsOf: chunk[0..<n])
        }
    }

    /// Reads the next message as JSON.
    public func readMessage(timeout seconds: Double? = nil) throws(ClientError) -> JSONValue? {
        guard let line = try readLine(timeout: seconds) else { return nil }
        do {
            return try JSONParser.parse(line, limits: limits)
        } catch {
            throw .malformedReply(error.description)
        }
    }

    /// Sends a request and waits for its response; notifications received meanwhile are queued.
    public func call(_ method: String, _ params: JSONValue? = nil) throws(ClientError) -> JSONValue {
        let id = nextID
        nextID += 1
        try send(RPCRequest(id: .number(id), method: method, params: params).json)
        while true {
            guard let message = try readMessage() else { throw .timeout(seconds: timeout) }
            if message["id"] == nil, let name = message["method"]?.stringValue {
                pendingNotifications.append(RPCNotification(method: name, params: message["params"] ?? .null))
                continue
            }
            if let error = message["error"] {
                // Errors with a null id (limits, parse errors) belong to this exchange too.
                guard message["id"] == .int64(id) || message["id"] == .null else { continue }
                guard let rpcError = RPCError(json: error) else { throw .malformedReply(message.jsonText) }
                throw .rpc(rpcError)
            }
            guard message["id"] == .int64(id) else { continue }
            guard let result = message["result"] else { throw .malformedReply(message.jsonText) }
            return result
        }
    }

    public func call(_ method: RPCMethod, _ params: JSONValue? = nil) throws(ClientError) -> JSONValue {
        try call(method.rawValue, params)
    }

    /// The next notification; nil when none arrives within `timeout` seconds (negative: wait forever).
    public func nextNotification(timeout seconds: Double) throws(ClientError) -> RPCNotification? {
        if !pendingNotifications.isEmpty { return pendingNotifications.removeFirst() }
        while true {
            guard let message = try readMessage(timeout: seconds) else { return nil }
            if message["id"] == nil, let name = message["method"]?.stringValue {
                return RPCNotification(method: name, params: message["params"] ?? .null)
            }
            if let error = message["error"], let rpcError = RPCError(json: error) { throw .rpc(rpcError) }
        }
    }

    /// Connects to the first socket that answers among `candidates`; the error of the first
    /// candidate is reported when none does (it is the one the user expects).
    public static func connectFirst(_ candidates: [String], timeout: Double = 5) throws(ClientError) -> UnixSocketClient {
        var errors: [ClientError] = []
        for path in candidates {
            do {
                return try UnixSocketClient(path: path, timeout: timeout)
            } catch {
                errors.append(error)
            }
        }
        // A socket that exists says more than one that does not: "add yourself to group stepd"
        // for the system socket beats "not running" for the per-user default.
        throw errors.first { !$0.isMissingSocket } ?? errors.first
            ?? .notRunning(path: candidates.first ?? DefaultPaths.systemSocket)
    }
}
