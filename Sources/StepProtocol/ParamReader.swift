import StepJSON

/// Reads one method's params object: rejects members the method does not define and values of
/// the wrong type, with messages that name the field, the expected type and the allowed range.
public struct ParamReader {
    public let object: JSONObject
    let method: String

    /// Largest UTC second accepted (2100-01-01); earlier than 1970 is rejected too.
    public static let maxTimestamp: Double = 4_102_444_800

    /// `params` may be absent, an object, or an empty array (some clients always send `[]`).
    public init(_ params: JSONValue?, method: String, allowed: [String]) throws(RPCError) {
        self.method = method
        switch params {
        case nil, .null: object = JSONObject()
        case .object(let o): object = o
        case .array(let a) where a.isEmpty: object = JSONObject()
        case .some(let other):
            throw .invalidParams("\(method) takes its params as an object with named fields, got \(other.kindName)")
        }
        for key in object.keys where !allowed.contains(key) {
            let list = allowed.isEmpty ? "none" : allowed.joined(separator: ", ")
            throw .invalidParams("unknown field \"\(key)\" for \(method); allowed: \(list)")
        }
    }

    public func has(_ key: String) -> Bool {
        guard let value = object[key] else { return false }
        return !value.isNull
    }

    private func present(_ key: String) -> JSONValue? {
        guard let value = object[key], !value.isNull else { return nil }
        return value
    }

    private func missing(_ key: String, _ what: String) -> RPCError {
        .invalidParams("\(method) needs \"\(key)\" (\(what))")
    }

    public func bool(_ key: String) throws(RPCError) -> Bool? {
        guard let value = present(key) else { return nil }
        guard let b = value.boolValue else { throw .invalidParams("\"\(key)\" must be true or false, got \(value.kindName)") }
        return b
    }

    public func int(_ key: String, in range: ClosedRange<Int>) throws(RPCError) -> Int? {
        guard let value = present(key) else { return nil }
        guard let i = value.intValue else {
            throw .invalidParams("\"\(key)\" must be an integer between \(range.lowerBound) and \(range.upperBound), got \(value.kindName)")
        }
        guard range.contains(i) else {
            throw .invalidParams("\"\(key)\" must be between \(range.lowerBound) and \(range.upperBound), got \(i)")
        }
        return i
    }

    public func requiredInt(_ key: String, in range: ClosedRange<Int>) throws(RPCError) -> Int {
        guard let i = try int(key, in: range) else { throw missing(key, "an integer between \(range.lowerBound) and \(range.upperBound)") }
        return i
    }

    public func int64(_ key: String, in range: ClosedRange<Int64>) throws(RPCError) -> Int64? {
        guard let value = present(key) else { return nil }
        guard let i = value.int64Value else { throw .invalidParams("\"\(key)\" must be an integer, got \(value.kindName)") }
        guard range.contains(i) else {
            throw .invalidParams("\"\(key)\" must be between \(range.lowerBound) and \(range.upperBound), got \(i)")
        }
        return i
    }

    public func double(_ key: String, in range: ClosedRange<Double>) throws(RPCError) -> Double? {
        guard let value = present(key) else { return nil }
        guard let d = value.doubleValue else { throw .invalidParams("\"\(key)\" must be a number, got \(value.kindName)") }
        guard range.contains(d) else {
            throw .invalidParams("\"\(key)\" must be between \(JSONValue.double(range.lowerBound).jsonText) and \(JSONValue.double(range.upperBound).jsonText), got \(JSONValue.double(d).jsonText)")
        }
        return d
    }

    /// UTC seconds since 1970 (fractions allowed), 1970...2100.
    public func timestamp(_ key: String) throws(RPCError) -> Double? {
        guard let value = present(key) else { return nil }
        guard let d = value.doubleValue else {
            throw .invalidParams("\"\(key)\" must be UTC seconds since 1970 as a number, got \(value.kindName)")
        }
        guard d >= 0 && d <= Self.maxTimestamp else {
            throw .invalidParams("\"\(key)\" must be UTC seconds between 0 and \(Int(Self.maxTimestamp)) (year 2100), got \(value.jsonText)")
        }
        return d
    }

    public func requiredTimestamp(_ key: String) throws(RPCError) -> Double {
        guard let d = try timestamp(key) else { throw missing(key, "UTC seconds since 1970") }
        return d
    }

    public func string(_ key: String, maxLength: Int) throws(RPCError) -> String? {
        guard let value = present(key) else { return nil }
        guard let s = value.stringValue else { throw .invalidParams("\"\(key)\" must be a string, got \(value.kindName)") }
        guard !s.isEmpty else { throw .invalidParams("\"\(key)\" must not be empty") }
        guard s.utf8.count <= maxLength else { throw .invalidParams("\"\(key)\" is longer than \(maxLength) bytes") }
        return s
    }

    /// A name made of letters, digits and `._-` (sources, labels): safe in file names and logs.
    public func identifier(_ key: String, maxLength: Int) throws(RPCError) -> String? {
        guard let s = try string(key, maxLength: maxLength) else { return nil }
        guard Self.isASCIIAlphanumeric(s, orOneOf: "._-") else {
            throw .invalidParams("\"\(key)\" may only contain letters, digits, '.', '_' and '-', got \(JSONValue.string(s).jsonText)")
        }
        return s
    }

    /// A source in its one name form `kind:id` (`app:phone`, `device:watch-1`, `manual:alice`,
    /// `detector:this-device`); a bare id means `app:<id>`. Returned in the `kind:id` form.
    public func sourceName(_ key: String) throws(RPCError) -> String? {
        guard let s = try string(key, maxLength: 80) else { return nil }
        guard let name = SourceName(s) else { throw .invalidParams(SourceName.formMessage(key: key, got: s)) }
        return name.text
    }

    /// `sources`: a list of source names (a source filter), nil when absent.
    /// `allowEmpty`: `[]` means something (sources.priority's "no order"), not a mistake.
    public func sourceNames(_ key: String, allowEmpty: Bool = false) throws(RPCError) -> [String]? {
        guard let names = try stringArray(key, maxCount: 64, maxLength: 80, allowEmpty: allowEmpty) else { return nil }
        var out: [String] = []
        for (index, s) in names.enumerated() {
            guard let name = SourceName(s) else { throw .invalidParams(SourceName.formMessage(key: "\(key)[\(index)]", got: s)) }
            if !out.contains(name.text) { out.append(name.text) }
        }
        return out
    }

    public func stringArray(_ key: String, maxCount: Int, maxLength: Int, allowEmpty: Bool = false) throws(RPCError) -> [String]? {
        guard let value = present(key) else { return nil }
        guard let array = value.arrayValue else { throw .invalidParams("\"\(key)\" must be an array of strings, got \(value.kindName)") }
        guard allowEmpty || !array.isEmpty else { throw .invalidParams("\"\(key)\" must not be empty") }
        guard array.count <= maxCount else { throw .invalidParams("\"\(key)\" holds \(array.count) entries; at most \(maxCount) allowed") }
        var out: [String] = []
        out.reserveCapacity(array.count)
        for (index, element) in array.enumerated() {
            guard let s = element.stringValue, !s.isEmpty, s.utf8.count <= maxLength else {
                let got = element.stringValue.map { $0.isEmpty ? "an empty string" : "\($0.utf8.count) bytes" } ?? element.kindName
                throw .invalidParams("\"\(key)\"[\(index)] must be a non-empty string of at most \(maxLength) bytes, got \(got)")
            }
            out.append(s)
        }
        return out
    }

    /// IANA zone names such as "Europe/Berlin" or "UTC"; whether the zone exists is checked by
    /// the agent against its zone database (-32004 when unknown).
    public func timeZone(_ key: String = "time_zone") throws(RPCError) -> String? {
        guard let s = try string(key, maxLength: 64) else { return nil }
        guard Self.isASCIIAlphanumeric(s, orOneOf: "/_+-:"), !s.hasPrefix("/"), !s.contains("..") else {
            throw .invalidParams("\"\(key)\" must be an IANA time zone name such as \"Europe/Berlin\", \"UTC\" or an offset such as \"+02:00\", got \(JSONValue.string(s).jsonText)")
        }
        return s
    }

    /// Every character an ASCII letter, an ASCII digit or one of `extra`.
    private static func isASCIIAlphanumeric(_ s: String, orOneOf extra: String) -> Bool {
        s.unicodeScalars.allSatisfy {
            $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || extra.unicodeScalars.contains($0))
        }
    }

    public func objectValue(_ key: String) throws(RPCError) -> JSONObject? {
        guard let value = present(key) else { return nil }
        guard let o = value.objectValue else { throw .invalidParams("\"\(key)\" must be an object, got \(value.kindName)") }
        return o
    }
}
