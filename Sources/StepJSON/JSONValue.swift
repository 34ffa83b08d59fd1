/// A JSON number: always a finite `Double`, plus the exact `Int64` when the value is integral and
/// representable, so ids and counters above 2^53 survive a round trip.
public struct JSONNumber: Sendable, Hashable, CustomStringConvertible {
    public let double: Double
    public let int64: Int64?

    public init(_ value: Int64) {
        double = Double(value)
        int64 = value
    }

    public init(_ value: Int) { self.init(Int64(value)) }

    /// nil for NaN and infinities: JSON has no spelling for them.
    public init?(_ value: Double) {
        guard value.isFinite else { return nil }
        double = value
        if value == value.rounded(), abs(value) < 9.007_199_254_740_992e15 {
            int64 = Int64(value)
        } else {
            int64 = nil
        }
    }

    init(parsedDouble: Double, exact: Int64?) {
        double = parsedDouble
        int64 = exact
    }

    public static func == (a: JSONNumber, b: JSONNumber) -> Bool {
        if let x = a.int64, let y = b.int64 { return x == y }
        return a.double == b.double
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(double) }

    public var description: String {
        var out: [UInt8] = []
        JSONSerializer.appendNumber(self, to: &out)
        return String(decoding: out, as: UTF8.self)
    }
}

/// One member of a JSON object; objects keep their members in document order.
public struct JSONMember: Sendable, Equatable {
    public var key: String
    public var value: JSONValue
    public init(_ key: String, _ value: JSONValue) {
        self.key = key
        self.value = value
    }
}

/// A JSON object that keeps key order (for stable, readable output) and has unique keys.
public struct JSONObject: Sendable, Equatable, ExpressibleByDictionaryLiteral {
    public private(set) var members: [JSONMember]

    public init() { members = [] }
    public init(_ members: [JSONMember]) {
        self.members = []
        for member in members { self[member.key] = member.value }
    }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(elements.map { JSONMember($0.0, $0.1) })
    }

    init(uniqueMembers: [JSONMember]) { members = uniqueMembers }

    public var count: Int { members.count }
    public var isEmpty: Bool { members.isEmpty }
    public var keys: [String] { members.map(\.key) }

    /// Reading returns nil for a missing key; writing nil removes the key, writing a value
    /// replaces it in place or appends it.
    public subscript(key: String) -> JSONValue? {
        get {
            for member in members where member.key == key { return member.value }
            return nil
        }
        set {
            if let index = members.firstIndex(where: { $0.key == key }) {
                if let newValue { members[index].value = newValue } else { members.remove(at: index) }
            } else if let newValue {
                members.append(JSONMember(key, newValue))
            }
        }
    }

    /// Equality ignores member order, as JSON does.
    public static func == (a: JSONObject, b: JSONObject) -> Bool {
        guard a.members.count == b.members.count else { return false }
        for member in a.members where b[member.key] != member.value { return false }
        return true
    }
}

/// A JSON document. Numbers cannot be NaN or infinite, so every value serializes.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(JSONNumber)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    public static func int(_ value: Int) -> JSONValue { .number(JSONNumber(value)) }
    public static func int64(_ value: Int64) -> JSONValue { .number(JSONNumber(value)) }
    /// NaN and infinities become `null`, the way a missing measurement is reported.
    public static func double(_ value: Double) -> JSONValue {
        guard let number = JSONNumber(value) else { return .null }
        return .number(number)
    }
    public static func double(_ value: Double?) -> JSONValue {
        guard let value else { return .null }
        return .double(value)
    }
    public static func string(_ value: String?) -> JSONValue {
        guard let value else { return .null }
        return .string(value)
    }

    public var isNull: Bool { if case .null = self { return true } else { return false } }
    public var boolValue: Bool? { if case .bool(let b) = self { return b } else { return nil } }
    public var doubleValue: Double? { if case .number(let n) = self { return n.double } else { return nil } }
    public var int64Value: Int64? { if case .number(let n) = self { return n.int64 } else { return nil } }
    public var intValue: Int? { int64Value.flatMap { Int(exactly: $0) } }
    public var stringValue: String? { if case .string(let s) = self { return s } else { return nil } }
    public var arrayValue: [JSONValue]? { if case .array(let a) = self { return a } else { return nil } }
    public var objectValue: JSONObject? { if case .object(let o) = self { return o } else { return nil } }

    /// Member lookup for objects; nil for other kinds or a missing key.
    public subscript(key: String) -> JSONValue? { objectValue?[key] }

    /// Follows a dotted path such as `"sensor.model"` through nested objects.
    public func value(atPath path: String) -> JSONValue? {
        var current: JSONValue? = self
        for part in path.split(separator: ".", omittingEmptySubsequences: false) {
            current = current?[String(part)]
        }
        return current
    }

    /// The JSON type name used in error messages ("expected an integer, got a string").
    public var kindName: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number(let n): return n.int64 == nil ? "a number" : "an integer"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    /// Compact serialization (no insignificant whitespace).
    public func serialized() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(128)
        JSONSerializer.append(self, to: &out)
        return out
    }

    public var jsonText: String { String(decoding: serialized(), as: UTF8.self) }
}

extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int64) { self = .number(JSONNumber(value)) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(JSONObject(elements.map { JSONMember($0.0, $0.1) }))
    }
}
