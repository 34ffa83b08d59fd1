import StepJSON
import Testing

@Suite struct JSONParserConformance {
    static let valid: [String] = [
        "null", "true", "false", "0", "-0", "1", "-1", "1.5", "-1.5e3", "1E+2", "1e-2", "0.0001",
        "\"\"", "\"a\"", "\"\\u00e9\"", "\"\\ud83d\\ude00\"", "\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"",
        "[]", "[1,2,3]", "{}", "{\"a\":1}", " \t\n\r{ \"a\" : [ 1 , { \"b\" : null } ] } \n",
        "\"é日本😀\"", "9223372036854775807", "-9223372036854775808", "1e300",
    ]

    static let invalid: [(String, String)] = [
        ("", "empty"), ("   ", "blank"), ("nul", "truncated literal"), ("tru", "truncated"), ("[1,2", "unclosed array"),
        ("{\"a\":1", "unclosed object"), ("{\"a\" 1}", "missing colon"), ("{a:1}", "unquoted key"),
        ("[1,]", "trailing comma"), ("{\"a\":1,}", "trailing comma in object"), ("01", "leading zero"),
        ("1.", "bare dot"), (".5", "leading dot"), ("-", "bare minus"), ("1e", "empty exponent"), ("+1", "plus sign"),
        ("NaN", "NaN"), ("Infinity", "Infinity"), ("\"abc", "unterminated string"), ("\"\\x\"", "bad escape"),
        ("\"\\u12\"", "short unicode escape"), ("\"\\ud800\"", "lone high surrogate"), ("\"\\udc00\"", "lone low surrogate"),
        ("\"\\ud800\\u0041\"", "high surrogate then non-surrogate"), ("\"a\tb\"", "raw tab in string"),
        ("1 2", "two values"), ("{} x", "trailing garbage"), ("{\"a\":1,\"a\":2}", "duplicate key"),
        ("1e400", "overflow"), ("-1e400", "negative overflow"), ("1e301", "beyond magnitude limit"),
        ("'a'", "single quotes"), ("[1 2]", "missing comma"), ("{\"a\":1}}", "extra brace"),
    ]

    @Test(arguments: valid) func acceptsValidDocuments(_ text: String) throws {
        _ = try JSONParser.parse(text)
    }

    @Test(arguments: invalid) func rejectsInvalidDocuments(_ sample: (String, String)) {
        #expect(throws: JSONError.self, "\(sample.1)") { try JSONParser.parse(sample.0) }
    }

    @Test func rejectsInvalidUTF8() {
        let cases: [[UInt8]] = [
            [0x22, 0xFF, 0x22], [0x22, 0xC0, 0xAF, 0x22], [0x22, 0xE0, 0x80, 0xAF, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22],
            [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], [0x22, 0xC3, 0x22], [0x22, 0x80, 0x22],
        ]
        for bytes in cases {
            do {
                _ = try JSONParser.parse(bytes)
                Issue.record("accepted \(bytes)")
            } catch {
                #expect(error.kind == .invalidUTF8)
                #expect(error.offset == 1)
            }
        }
    }

    @Test func reportsOffsets() {
        do {
            _ = try JSONParser.parse("{\"a\": [1, 2,, 3]}")
            Issue.record("accepted")
        } catch {
            #expect(error.offset == 12)
            #expect(error.description.contains("byte 12"))
        }
        do {
            _ = try JSONParser.parse("{\"k\":1,\"k\":2}")
        } catch {
            #expect(error.kind == .duplicateKey("k"))
            #expect(error.offset == 7)
        }
    }

    @Test func duplicateKeysInLargeObjects() {
        var text = "{"
        for i in 0..<40 { text += "\"k\(i)\":\(i)," }
        text += "\"k3\":0}"
        #expect(throws: JSONError(.duplicateKey("k3"), at: text.utf8.count - 7)) { try JSONParser.parse(text) }
    }

    @Test func enforcesDepthLimit() throws {
        let ok = String(repeating: "[", count: 32) + String(repeating: "]", count: 32)
        _ = try JSONParser.parse(ok)
        let deep = String(repeating: "[", count: 33) + String(repeating: "]", count: 33)
        #expect(throws: JSONError(.tooDeep(limit: 32), at: 32)) { try JSONParser.parse(deep) }
        let hostile = String(repeating: "{\"a\":", count: 100_000)
        #expect(throws: JSONError.self) { try JSONParser.parse(hostile, limits: JSONLimits(maxBytes: 1 << 20)) }
    }

    @Test func enforcesSizeLimit() {
        let big = "\"" + String(repeating: "a", count: 100) + "\""
        #expect(throws: JSONError(.tooLarge(limit: 50), at: 50)) { try JSONParser.parse(big, limits: JSONLimits(maxBytes: 50)) }
    }

    @Test func numbers() throws {
        #expect(try JSONParser.parse("9223372036854775807").int64Value == Int64.max)
        #expect(try JSONParser.parse("-9223372036854775808").int64Value == Int64.min)
        // Beyond Int64: a double, not an exact integer.
        #expect(try JSONParser.parse("9223372036854775808").int64Value == nil)
        #expect(try JSONParser.parse("1e3").int64Value == 1000)
        #expect(try JSONParser.parse("2.5").int64Value == nil)
        #expect(try JSONParser.parse("-0").doubleValue == 0)
        #expect(try JSONParser.parse("1.25e-3").doubleValue == 0.00125)
        let longDigits = String(repeating: "1", count: 65)
        #expect(throws: JSONError(.numberOutOfRange, at: 0)) { try JSONParser.parse(longDigits) }
    }

    @Test func strings() throws {
        #expect(try JSONParser.parse("\"\\ud83d\\ude00\"").stringValue == "😀")
        #expect(try JSONParser.parse("\"a\\nb\"").stringValue == "a\nb")
        #expect(try JSONParser.parse("\"\\u0000\"").stringValue == "\u{0}")
        #expect(try JSONParser.parse("\"日本\"").stringValue == "日本")
    }

    @Test func keepsKeyOrder() throws {
        let value = try JSONParser.parse("{\"z\":1,\"a\":2,\"m\":3}")
        #expect(value.objectValue?.keys == ["z", "a", "m"])
        #expect(value.jsonText == "{\"z\":1,\"a\":2,\"m\":3}")
    }
}

@Suite struct JSONSerializerTests {
    @Test func compactOutput() {
        let value: JSONValue = ["a": [1, 2.5, "x"], "b": nil, "c": true, "d": ["e": -3]]
        #expect(value.jsonText == "{\"a\":[1,2.5,\"x\"],\"b\":null,\"c\":true,\"d\":{\"e\":-3}}")
    }

    @Test func integersHaveNoFraction() {
        #expect(JSONValue.double(3.0).jsonText == "3")
        #expect(JSONValue.double(-0.0).jsonText == "0")
        #expect(JSONValue.double(0.1).jsonText == "0.1")
        #expect(JSONValue.double(1e20).jsonText == "1e+20")
        #expect(JSONValue.int64(Int64.max).jsonText == "9223372036854775807")
    }

    @Test func nonFiniteBecomesNull() {
        #expect(JSONValue.double(Double.nan).jsonText == "null")
        #expect(JSONValue.double(Double.infinity).jsonText == "null")
        #expect(JSONNumber(Double.nan) == nil)
    }

    @Test func escapes() {
        let s: JSONValue = .string("q\"b\\n\nt\tc\u{1}d\u{7F}é")
        #expect(s.jsonText == "\"q\\\"b\\\\n\\nt\\tc\\u0001d\\u007fé\"")
    }

    @Test func roundTrips() throws {
        let samples: [JSONValue] = [
            ["s": "\u{0}\u{1F}\"\\/😀", "n": [0, -1, 1.5, 1e-7, 123456789012, -9.75e200], "o": [:], "a": []],
            .array([.null, .bool(false), .string(""), .object(["k": ["x": ["y": 1]]])]),
        ]
        for sample in samples {
            let text = sample.serialized()
            #expect(try JSONParser.parse(text) == sample)
            #expect(try JSONParser.parse(text).serialized() == text)
        }
    }

    @Test func pseudoRandomRoundTrips() throws {
        var generator = SplitMix(seed: 42)
        for _ in 0..<500 {
            let value = randomValue(&generator, depth: 0)
            #expect(try JSONParser.parse(value.serialized()) == value)
        }
    }

    func randomValue(_ g: inout SplitMix, depth: Int) -> JSONValue {
        switch g.next() % (depth > 3 ? 5 : 7) {
        case 0: return .null
        case 1: return .bool(g.next() % 2 == 0)
        case 2: return .int64(Int64(bitPattern: g.next()))
        case 3: return .double(Double(bitPattern: g.next() & 0x7FEF_FFFF_FFFF_FFFF) .truncatingRemainder(dividingBy: 1e200))
        case 4:
            let scalars = (0..<(g.next() % 8)).compactMap { _ in Unicode.Scalar(UInt32(g.next() % 0x11000)) }
            return .string(String(String.UnicodeScalarView(scalars)))
        case 5: return .array((0..<(g.next() % 4)).map { _ in randomValue(&g, depth: depth + 1) })
        default:
            var object = JSONObject()
            for i in 0..<(g.next() % 4) { object["k\(i)"] = randomValue(&g, depth: depth + 1) }
            return .object(object)
        }
    }
}

struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
