import StepJSON

/// A JSON-RPC 2.0 error object. Codes -32768...-32000 are the standard ones; stepd's own
/// application errors are -32001...-32004 (see docs/protocol.md).
public struct RPCError: Error, Sendable, Equatable, CustomStringConvertible {
    public var code: Int
    public var message: String
    public var data: JSONValue?

    public init(code: Int, message: String, data: JSONValue? = nil) {
        self.code = code
        self.message = message
        self.data = data
    }

    public static let parseErrorCode = -32700
    public static let invalidRequestCode = -32600
    public static let methodNotFoundCode = -32601
    public static let invalidParamsCode = -32602
    public static let internalErrorCode = -32603
    public static let permissionDeniedCode = -32001
    public static let unavailableCode = -32002
    public static let limitExceededCode = -32003
    public static let validationFailedCode = -32004

    public static func parseError(_ detail: String) -> RPCError { RPCError(code: parseErrorCode, message: "parse error: \(detail)") }
    public static func invalidRequest(_ detail: String) -> RPCError {
        RPCError(code: invalidRequestCode, message: "invalid request: \(detail)")
    }
    public static func methodNotFound(_ method: String) -> RPCError {
        RPCError(code: methodNotFoundCode, message: "method not found: \"\(method)\"",
                 data: ["methods": .array(RPCMethod.allCases.map { .string($0.rawValue) })])
    }
    public static func invalidParams(_ detail: String) -> RPCError {
        RPCError(code: invalidParamsCode, message: "invalid params: \(detail)")
    }
    public static func internalError(_ detail: String) -> RPCError {
        RPCError(code: internalErrorCode, message: "internal error: \(detail)")
    }
    public static func permissionDenied(_ detail: String) -> RPCError {
        RPCError(code: permissionDeniedCode, message: "permission denied: \(detail)")
    }
    public static func unavailable(_ detail: String) -> RPCError {
        RPCError(code: unavailableCode, message: "unavailable: \(detail)")
    }
    public static func limitExceeded(_ detail: String) -> RPCError {
        RPCError(code: limitExceededCode, message: "limit exceeded: \(detail)")
    }
    public static func validationFailed(_ detail: String) -> RPCError {
        RPCError(code: validationFailedCode, message: "validation failed: \(detail)")
    }

    public var json: JSONValue {
        var object: JSONObject = ["code": .int(code), "message": .string(message)]
        if let data { object["data"] = data }
        return .object(object)
    }

    /// Reads an error object received from the agent.
    public init?(json: JSONValue) {
        guard let code = json["code"]?.intValue, let message = json["message"]?.stringValue else { return nil }
        self.init(code: code, message: message, data: json["data"])
    }

    public var description: String { "\(message) (code \(code))" }
}
