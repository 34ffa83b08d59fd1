/// A value in the board file's TOML subset.
public enum BoardValue: Sendable, Equatable {
    case string(String)
    case integer(Int)
    case float(Double)
    case boolean(Bool)
    case stringArray([String])

    var typeName: String {
        switch self {
        case .string: return "a string"
        case .integer: return "an integer"
        case .float: return "a number"
        case .boolean: return "a boolean"
        case .stringArray: return "an array of strings"
        }
    }
}

/// One `key = value` line.
struct BoardEntry {
    var key: String
    var value: BoardValue
    var line: Int
}

/// Parses the subset of TOML board files use: `key = value` lines with strings ("..." with
/// \" \\ \n \t escapes), integers (decimal, 0x hex, optional sign and _ separators), floats,
/// booleans, arrays of strings, `#` comments and blank lines. No tables, no multi-line values.
enum TOMLSubsetParser {
    static func parse(text: String, fileName: String) throws(BoardError) -> [BoardEntry] {
        var entries: [BoardEntry] = []
        var seen: [String: Int] = [:]
        var lineNumber = 0
        // A board edited on Windows: Notepad may start it with a byte order mark (invisible in
        // an error quoting the line) and ends lines with CR LF, which Swift reads as ONE
        // character, so splitting at "\n" alone left the whole file one comment line ("name:
        // missing").
        let content = text.hasPrefix("\u{FEFF}") ? Substring(text.dropFirst()) : Substring(text)
        for line in content.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            lineNumber += 1
            let trimmed = trim(line)
            if trimmed.isEmpty || trimmed.first == "#" { continue }
            if trimmed.first == "[" {
                throw BoardError(file: fileName, line: lineNumber, key: nil,
                                 message: "tables ([section]) are not part of board files; write plain key = value lines")
            }
            guard let equals = trimmed.firstIndex(of: "=") else {
                throw BoardError(file: fileName, line: lineNumber, key: nil,
                                 message: "expected key = value, found '\(trimmed)'")
            }
            let key = String(trim(trimmed[..<equals]))
            guard !key.isEmpty, key.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }) else {
                throw BoardError(file: fileName, line: lineNumber, key: key.isEmpty ? nil : key,
                                 message: key.isEmpty ? "missing key before '='" : "key '\(key)' may only use letters, digits, '_' and '-'")
            }
            if let first = seen[key] {
                throw BoardError(file: fileName, line: lineNumber, key: key,
                                 message: "duplicate key (first set on line \(first)); set it once")
            }
            seen[key] = lineNumber
            var cursor = Cursor(text: Array(trimmed[trimmed.index(after: equals)...]))
            cursor.skipSpaces()
            let value: BoardValue
            do throws(ValueError) {
                value = try cursor.value()
                cursor.skipSpaces()
                if let c = cursor.peek, c != "#" {
                    throw ValueError("unexpected '\(String(cursor.rest))' after the value (comments start with #)")
                }
            } catch {
                throw BoardError(file: fileName, line: lineNumber, key: key, message: error.message)
            }
            entries.append(BoardEntry(key: key, value: value, line: lineNumber))
        }
        return entries
    }

    static func trim(_ s: Substring) -> Substring {
        var s = s
        while let c = s.first, c == " " || c == "\t" { s = s.dropFirst() }
        while let c = s.last, c == " " || c == "\t" { s = s.dropLast() }
        return s
    }

    struct ValueError: Error {
        var message: String
        init(_ message: String) { self.message = message }
    }

    struct Cursor {
        let text: [Character]
        var index = 0

        var peek: Character? { index < text.count ? text[index] : nil }
        var rest: Substring { Substring(String(text[index...])) }

        mutating func skipSpaces() {
            while let c = peek, c == " " || c == "\t" { index += 1 }
        }

        mutating func value() throws(ValueError) -> BoardValue {
            guard let c = peek else { throw ValueError("missing value after '='") }
            switch c {
            case "\"":
                return .string(try string())
            case "[":
                return .stringArray(try array())
            case "'":
                throw ValueError("use double quotes for strings")
            default:
                var token = ""
                while let c = peek, c != " ", c != "\t", c != "#" {
                    token.append(c)
                    index += 1
                }
                return try scalar(token)
            }
        }

        mutating func string() throws(ValueError) -> String {
            index += 1  // opening quote
            var result = ""
            while let c = peek {
                index += 1
                switch c {
                case "\"":
                    return result
                case "\\":
                    guard let e = peek else { throw ValueError("unterminated string") }
                    index += 1
                    switch e {
                    case "\"": result.append("\"")
                    case "\\": result.append("\\")
                    case "n": result.append("\n")
                    case "t": result.append("\t")
                    default: throw ValueError("unknown escape '\\\(e)' in string (allowed: \\\" \\\\ \\n \\t)")
                    }
                default:
                    result.append(c)
                }
            }
            throw ValueError("unterminated string: add the closing \"")
        }

        mutating func array() throws(ValueError) -> [String] {
            index += 1  // [
            var items: [String] = []
            while true {
                skipSpaces()
                guard let c = peek else { throw ValueError("unterminated array: add the closing ]") }
                if c == "]" {
                    index += 1
                    return items
                }
                guard c == "\"" else { throw ValueError("arrays hold double-quoted strings only, found '\(c)'") }
                items.append(try string())
                skipSpaces()
                guard let next = peek else { throw ValueError("unterminated array: add the closing ]") }
                if next == "," {
                    index += 1
                } else if next != "]" {
                    throw ValueError("expected ',' or ']' in array, found '\(next)'")
                }
            }
        }

        func scalar(_ token: String) throws(ValueError) -> BoardValue {
            if token == "true" { return .boolean(true) }
            if token == "false" { return .boolean(false) }
            var digits = Substring(token.filter { $0 != "_" })
            var negative = false
            if digits.first == "-" || digits.first == "+" {
                negative = digits.first == "-"
                digits = digits.dropFirst()
            }
            if digits.hasPrefix("0x") || digits.hasPrefix("0X") {
                // Digits only: Int(_:radix:) takes a second sign, and "-0x-8000000000000000"
                // would parse to Int.min, whose negation traps.
                let hexDigits = digits.dropFirst(2)
                guard !hexDigits.isEmpty, hexDigits.allSatisfy({ $0.isASCII && $0.isHexDigit }),
                      let v = Int(hexDigits, radix: 16) else { throw ValueError("'\(token)' is not a hex integer") }
                return .integer(negative ? -v : v)
            }
            if !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) {
                // Without this a too-long integer fell through to the float parse and was
                // reported as "expected an integer, found a number".
                guard let v = Int(digits) else { throw ValueError("'\(token)' is too large for an integer") }
                return .integer(negative ? -v : v)
            }
            if let v = Double(token.filter { $0 != "_" }), v.isFinite,
               token.allSatisfy({ $0.isASCII && ($0.isNumber || "+-.eE_".contains($0)) }) {
                return .float(v)
            }
            throw ValueError("'\(token)' is not a value: use \"text\", a number, true/false or [\"a\", \"b\"]")
        }
    }
}
