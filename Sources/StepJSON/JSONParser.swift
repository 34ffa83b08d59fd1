/// Why a document was rejected, with the byte offset where the problem starts.
public struct JSONError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        case empty
        case tooLarge(limit: Int)
        case tooDeep(limit: Int)
        case unexpectedEnd
        case unexpectedByte(UInt8)
        case invalidUTF8
        case controlCharacterInString
        case invalidEscape
        case loneSurrogate
        case invalidNumber
        case numberOutOfRange
        case duplicateKey(String)
        case trailingData
    }

    public var kind: Kind
    public var offset: Int

    public init(_ kind: Kind, at offset: Int) {
        self.kind = kind
        self.offset = offset
    }

    public var description: String {
        let what: String
        switch kind {
        case .empty: what = "empty document"
        case .tooLarge(let limit): what = "document larger than \(limit) bytes"
        case .tooDeep(let limit): what = "nesting deeper than \(limit) levels"
        case .unexpectedEnd: what = "unexpected end of input"
        case .unexpectedByte(let b):
            if b >= 0x20 && b < 0x7F {
                what = "unexpected character '\(Character(Unicode.Scalar(b)))'"
            } else {
                what = "unexpected byte 0x\(String(b, radix: 16))"
            }
        case .invalidUTF8: what = "invalid UTF-8"
        case .controlCharacterInString: what = "unescaped control character in string"
        case .invalidEscape: what = "invalid escape sequence"
        case .loneSurrogate: what = "unpaired UTF-16 surrogate in \\u escape"
        case .invalidNumber: what = "malformed number"
        case .numberOutOfRange: what = "number out of range (magnitude above 1e300 or more than 64 characters)"
        case .duplicateKey(let key): what = "duplicate key \"\(key)\""
        case .trailingData: what = "data after the JSON value"
        }
        return "\(what) at byte \(offset)"
    }
}

/// Hard limits applied while parsing untrusted input.
public struct JSONLimits: Sendable, Equatable {
    public var maxBytes: Int
    public var maxDepth: Int
    /// Larger magnitudes are rejected rather than rounded to infinity or silently lose meaning.
    public var maxMagnitude: Double
    /// Longest number literal accepted; keeps digit floods from costing time.
    public var maxNumberLength: Int

    public init(maxBytes: Int = 65_536, maxDepth: Int = 32, maxMagnitude: Double = 1e300, maxNumberLength: Int = 64) {
        self.maxBytes = maxBytes
        self.maxDepth = maxDepth
        self.maxMagnitude = maxMagnitude
        self.maxNumberLength = maxNumberLength
    }

    public static let `default` = JSONLimits()
}

/// RFC 8259 parser over bytes. Rejects invalid UTF-8, lone surrogates, duplicate keys and
/// trailing garbage; leading and trailing whitespace is allowed.
public struct JSONParser {
    public static func parse(_ bytes: [UInt8], limits: JSONLimits = .default) throws(JSONError) -> JSONValue {
        try parse(bytes[...], limits: limits)
    }

    public static func parse(_ text: String, limits: JSONLimits = .default) throws(JSONError) -> JSONValue {
        try parse(Array(text.utf8), limits: limits)
    }

    public static func parse(_ bytes: ArraySlice<UInt8>, limits: JSONLimits = .default) throws(JSONError) -> JSONValue {
        guard bytes.count <= limits.maxBytes else { throw JSONError(.tooLarge(limit: limits.maxBytes), at: limits.maxBytes) }
        return try bytes.withUnsafeBufferPointer { (buffer) throws(JSONError) -> JSONValue in
            var parser = Cursor(bytes: buffer, limits: limits)
            parser.skipWhitespace()
            guard parser.position < buffer.count else { throw JSONError(.empty, at: 0) }
            let value = try parser.parseValue(depth: 0)
            parser.skipWhitespace()
            guard parser.position == buffer.count else { throw JSONError(.trailingData, at: parser.position) }
            return value
        }
    }
}

private struct Cursor {
    let bytes: UnsafeBufferPointer<UInt8>
    let limits: JSONLimits
    var position = 0

    init(bytes: UnsafeBufferPointer<UInt8>, limits: JSONLimits) {
        self.bytes = bytes
        self.limits = limits
    }

    mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    func peek() throws(JSONError) -> UInt8 {
        guard position < bytes.count else { throw JSONError(.unexpectedEnd, at: position) }
        return bytes[position]
    }

    mutating func parseValue(depth: Int) throws(JSONError) -> JSONValue {
        let byte = try peek()
        switch byte {
        case UInt8(ascii: "{"): return try parseObject(depth: depth + 1)
        case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw JSONError(.unexpectedByte(byte), at: position)
        }
    }

    mutating func expectLiteral(_ literal: StaticString) throws(JSONError) {
        let count = literal.utf8CodeUnitCount
        let pointer = literal.utf8Start
        for i in 0..<count {
            guard position < bytes.count else { throw JSONError(.unexpectedEnd, at: position) }
            guard bytes[position] == pointer[i] else { throw JSONError(.unexpectedByte(bytes[position]), at: position) }
            position += 1
        }
    }

    mutating func parseArray(depth: Int) throws(JSONError) -> JSONValue {
        guard depth <= limits.maxDepth else { throw JSONError(.tooDeep(limit: limits.maxDepth), at: position) }
        position += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if try peek() == UInt8(ascii: "]") {
            position += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue(depth: depth))
            skipWhitespace()
            let byte = try peek()
            position += 1
            if byte == UInt8(ascii: "]") { return .array(elements) }
            guard byte == UInt8(ascii: ",") else { throw JSONError(.unexpectedByte(byte), at: position - 1) }
        }
    }

    mutating func parseObject(depth: Int) throws(JSONError) -> JSONValue {
        guard depth <= limits.maxDepth else { throw JSONError(.tooDeep(limit: limits.maxDepth), at: position) }
        position += 1
        var members: [JSONMember] = []
        var seen: Set<String> = []
        skipWhitespace()
        if try peek() == UInt8(ascii: "}") {
            position += 1
            return .object(JSONObject(uniqueMembers: members))
        }
        while true {
            skipWhitespace()
            let keyOffset = position
            let byte = try peek()
            guard byte == UInt8(ascii: "\"") else { throw JSONError(.unexpectedByte(byte), at: position) }
            let key = try parseString()
            // Small objects (all protocol messages) are checked linearly; big ones through a set.
            if members.count < 16 {
                if members.contains(where: { $0.key == key }) { throw JSONError(.duplicateKey(key), at: keyOffset) }
                if members.count == 15 { seen = Set(members.map(\.key)); seen.insert(key) }
            } else if !seen.insert(key).inserted {
                throw JSONError(.duplicateKey(key), at: keyOffset)
            }
            skipWhitespace()
            let colon = try peek()
            guard colon == UInt8(ascii: ":") else { throw JSONError(.unexpectedByte(colon), at: position) }
            position += 1
            skipWhitespace()
            members.append(JSONMember(key, try parseValue(depth: depth)))
            skipWhitespace()
            let next = try peek()
            position += 1
            if next == UInt8(ascii: "}") { return .object(JSONObject(uniqueMembers: members)) }
            guard next == UInt8(ascii: ",") else { throw JSONError(.unexpectedByte(next), at: position - 1) }
        }
    }

    mutating func parseNumber() throws(JSONError) -> JSONNumber {
        let start = position
        var isIntegerLiteral = true
        if bytes[position] == UInt8(ascii: "-") { position += 1 }
        guard position < bytes.count else { throw JSONError(.unexpectedEnd, at: position) }
        if bytes[position] == UInt8(ascii: "0") {
            position += 1
            if position < bytes.count, isDigit(bytes[position]) { throw JSONError(.invalidNumber, at: start) }
        } else if isDigit(bytes[position]) {
            while position < bytes.count, isDigit(bytes[position]) { position += 1 }
        } else {
            throw JSONError(.invalidNumber, at: start)
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            isIntegerLiteral = false
            position += 1
            guard position < bytes.count, isDigit(bytes[position]) else { throw JSONError(.invalidNumber, at: start) }
            while position < bytes.count, isDigit(bytes[position]) { position += 1 }
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            isIntegerLiteral = false
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
                position += 1
            }
            guard position < bytes.count, isDigit(bytes[position]) else { throw JSONError(.invalidNumber, at: start) }
            while position < bytes.count, isDigit(bytes[position]) { position += 1 }
        }
        let length = position - start
        guard length <= limits.maxNumberLength else { throw JSONError(.numberOutOfRange, at: start) }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
        if isIntegerLiteral, let exact = Int64(text) {
            guard abs(Double(exact)) <= limits.maxMagnitude else { throw JSONError(.numberOutOfRange, at: start) }
            return JSONNumber(parsedDouble: Double(exact), exact: exact)
        }
        guard let value = Double(text), value.isFinite, abs(value) <= limits.maxMagnitude else {
            throw JSONError(.numberOutOfRange, at: start)
        }
        guard let number = JSONNumber(value) else { throw JSONError(.numberOutOfRange, at: start) }
        return number
    }

    func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }

    mutating func parseString() throws(JSONError) -> String {
        position += 1  // opening quote
        let start = position
        // Fast path: no escapes, so the validated bytes are the string.
        var hasEscape = false
        while true {
            guard position < bytes.count else { throw JSONError(.unexpectedEnd, at: position) }
            let b = bytes[position]
            if b == UInt8(ascii: "\"") { break }
            if b == UInt8(ascii: "\\") { hasEscape = true; break }
            if b < 0x20 { throw JSONError(.controlCharacterInString, at: position) }
            if b < 0x80 { position += 1 } else { try skipUTF8Sequence() }
        }
        if !hasEscape {
            let s = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
            position += 1
            return s
        }
        var out: [UInt8] = Array(UnsafeBufferPointer(rebasing: bytes[start..<position]))
        while true {
            guard position < bytes.count else { throw JSONError(.unexpectedEnd, at: position) }
            let b = bytes[position]
            if b == UInt8(ascii: "\"") {
                position += 1
                return String(decoding: out, as: UTF8.self)
            }
            if b < 0x20 { throw JSONError(.controlCharacterInString, at: position) }
            if b == UInt8(ascii: "\\") {
                try parseEscape(into: &out)
            } else if b < 0x80 {
                out.append(b)
                position += 1
            } else {
                let s = position
                try skipUTF8Sequence()
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[s..<position]))
            }
        }
    }

    mutating func parseEscape(into out: inout [UInt8]) throws(JSONError) {
        let escapeStart = position
        position += 1
        guard position < bytes.count else { throw JSONError(.unexpectedEnd, at: position) }
        let c = bytes[position]
        position += 1
        switch c {
        case UInt8(ascii: "\""): out.append(0x22)
        case UInt8(ascii: "\\"): out.append(0x5C)
        case UInt8(ascii: "/"): out.append(0x2F)
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "f"): out.append(0x0C)
        case UInt8(ascii: "n"): out.append(0x0A)
        case UInt8(ascii: "r"): out.append(0x0D)
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try readHex4()
            if scalar >= 0xD800 && scalar <= 0xDBFF {
                guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u")
                else { throw JSONError(.loneSurrogate, at: escapeStart) }
                position += 2
                let low = try readHex4()
                guard low >= 0xDC00 && low <= 0xDFFF else { throw JSONError(.loneSurrogate, at: escapeStart) }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if scalar >= 0xDC00 && scalar <= 0xDFFF {
                throw JSONError(.loneSurrogate, at: escapeStart)
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw JSONError(.loneSurrogate, at: escapeStart) }
            out.append(contentsOf: unicode.utf8)
        default:
            throw JSONError(.invalidEscape, at: escapeStart)
        }
    }

    mutating func readHex4() throws(JSONError) -> UInt32 {
        guard position + 4 <= bytes.count else { throw JSONError(.unexpectedEnd, at: bytes.count) }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let b = bytes[position]
            let digit: UInt32
            switch b {
            case 0x30...0x39: digit = UInt32(b - 0x30)
            case 0x41...0x46: digit = UInt32(b - 0x41 + 10)
            case 0x61...0x66: digit = UInt32(b - 0x61 + 10)
            default: throw JSONError(.invalidEscape, at: position)
            }
            value = value << 4 | digit
            position += 1
        }
        return value
    }

    /// Validates one multi-byte UTF-8 sequence (RFC 3629: no overlongs, no surrogates, <= U+10FFFF).
    mutating func skipUTF8Sequence() throws(JSONError) {
        let start = position
        let b0 = bytes[position]
        var need: Int
        var lower: UInt8 = 0x80
        var upper: UInt8 = 0xBF
        switch b0 {
        case 0xC2...0xDF: need = 1
        case 0xE0: need = 2; lower = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: need = 2
        case 0xED: need = 2; upper = 0x9F
        case 0xF0: need = 3; lower = 0x90
        case 0xF1...0xF3: need = 3
        case 0xF4: need = 3; upper = 0x8F
        default: throw JSONError(.invalidUTF8, at: start)
        }
        position += 1
        while need > 0 {
            guard position < bytes.count else { throw JSONError(.invalidUTF8, at: start) }
            let b = bytes[position]
            guard b >= lower && b <= upper else { throw JSONError(.invalidUTF8, at: start) }
            lower = 0x80
            upper = 0xBF
            position += 1
            need -= 1
        }
    }
}
