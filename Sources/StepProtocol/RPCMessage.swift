import StepJSON

/// The protocol revision reported by `status`; bumped on incompatible changes only.
public let stepdProtocolVersion = 2

/// A JSON-RPC request id: a string, an integer or null.
public enum RPCID: Sendable, Hashable {
    case number(Int64)
    case string(String)
    case null

    public var json: JSONValue {
        switch self {
        case .number(let n): return .int64(n)
        case .string(let s): return .string(s)
        case .null: return .null
        }
    }

    init?(json: JSONValue) {
        switch json {
        case .null: self = .null
        case .string(let s): self = .string(s)
        case .number(let n):
            guard let exact = n.int64 else { return nil }
            self = .number(exact)
        default: return nil
        }
    }
}

/// One JSON-RPC 2.0 request; `id == nil` makes it a notification (no response is sent).
public struct RPCRequest: Sendable, Equatable {
    public var id: RPCID?
    public var method: String
    public var params: JSONValue?

    public init(id: RPCID?, method: String, params: JSONValue? = nil) {
        self.id = id
        self.method = method
        self.params = params
    }

    public var json: JSONValue {
        var object: JSONObject = ["jsonrpc": "2.0", "method": .string(method)]
        if let params { object["params"] = params }
        if let id { object["id"] = id.json }
        return .object(object)
    }

    /// Validates the envelope. On failure returns the error together with the id when one
    /// could be read, so the response can still be correlated.
    public static func decode(_ value: JSONValue) -> Result<RPCRequest, RPCEnvelopeError> {
        guard case .object(let object) = value else {
            return .failure(RPCEnvelopeError(id: .null, error: .invalidRequest("a request must be a JSON object")))
        }
        var id: RPCID?
        if let rawID = object["id"] {
            guard let parsed = RPCID(json: rawID) else {
                return .failure(RPCEnvelopeError(id: .null, error: .invalidRequest("\"id\" must be a string, an integer or null")))
            }
            id = parsed
        }
        let replyID = id ?? .null
        for key in object.keys where !["jsonrpc", "id", "method", "params"].contains(key) {
            return .failure(RPCEnvelopeError(id: replyID, error: .invalidRequest("unknown member \"\(key)\"; allowed: jsonrpc, id, method, params")))
        }
        guard object["jsonrpc"] == "2.0" else {
            return .failure(RPCEnvelopeError(id: replyID, error: .invalidRequest("\"jsonrpc\" must be \"2.0\"")))
        }
        guard let method = object["method"]?.stringValue, !method.isEmpty else {
            return .failure(RPCEnvelopeError(id: replyID, error: .invalidRequest("\"method\" must be a non-empty string")))
        }
        let params = object["params"]
        if let params {
            switch params {
            case .object, .array: break
            default:
                return .failure(RPCEnvelopeError(id: replyID, error: .invalidRequest("\"params\" must be an object or an array")))
            }
        }
        return .success(RPCRequest(id: id, method: method, params: params))
    }
}

/// A request that could not be accepted, with the id to answer to.
public struct RPCEnvelopeError: Error, Sendable, Equatable {
    public var id: RPCID
    public var error: RPCError
}

/// Builders for outgoing messages.
public enum RPCResponse {
    public static func success(id: RPCID, result: JSONValue) -> JSONValue {
        .object(["jsonrpc": "2.0", "id": id.json, "result": result])
    }

    public static func failure(id: RPCID, error: RPCError) -> JSONValue {
        .object(["jsonrpc": "2.0", "id": id.json, "error": error.json])
    }
}

/// A server-to-client message without an id (`steps.update`, `activity.update`).
public struct RPCNotification: Sendable, Equatable {
    public var method: String
    public var params: JSONValue

    public init(method: String, params: JSONValue) {
        self.method = method
        self.params = params
    }

    public var json: JSONValue { .object(["jsonrpc": "2.0", "method": .string(method), "params": params]) }
}

/// What one received line holds.
public enum RPCIncoming: Sendable {
    case single(Result<RPCRequest, RPCEnvelopeError>)
    /// A batch; each element decoded separately. Empty batches are invalid requests.
    case batch([Result<RPCRequest, RPCEnvelopeError>])
    case unparsable(RPCError)

    /// Largest batch accepted; bigger ones get one invalid-request error.
    public static let maxBatchCount = 32

    public static func decode(line: ArraySlice<UInt8>, limits: JSONLimits = .default) -> RPCIncoming {
        let value: JSONValue
        do {
            value = try JSONParser.parse(line, limits: limits)
        } catch {
            return .unparsable(.parseError(error.description))
        }
        if case .array(let elements) = value {
            if elements.isEmpty { return .single(.failure(RPCEnvelopeError(id: .null, error: .invalidRequest("empty batch")))) }
            if elements.count > maxBatchCount {
                return .single(.failure(RPCEnvelopeError(
                    id: .null, error: .invalidRequest("batch of \(elements.count) requests; at most \(maxBatchCount) allowed"))))
            }
            return .batch(elements.map { RPCRequest.decode($0) })
        }
        return .single(RPCRequest.decode(value))
    }
}
