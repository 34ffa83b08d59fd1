import StepJSON
import StepdModel

/// A sample source as the protocol names it, always `kind:id`: the same text in every answer
/// and accepted in every request, so an exported source can be fed back into a delete.
public struct SourceName: Sendable, Hashable, CustomStringConvertible {
    public static let kinds = ["detector", "device", "app", "manual"]

    public let kind: String
    public let id: String
    public var text: String { "\(kind):\(id)" }
    public var description: String { text }

    /// `kind:id`; a bare id is `app:<id>`. Ids are 1-64 bytes of A-Z a-z 0-9 . _ - : @.
    public init?(_ text: String) {
        var kind = "app"
        var id = text
        if let colon = text.firstIndex(of: ":"), Self.kinds.contains(String(text[..<colon])) {
            kind = String(text[..<colon])
            id = String(text[text.index(after: colon)...])
        }
        let bytes = Array(id.utf8)
        guard !bytes.isEmpty, bytes.count <= 64, bytes.allSatisfy(SourceIdentifier.isValidByte) else { return nil }
        self.kind = kind
        self.id = id
    }

    public var isDetector: Bool { kind == "detector" }

    static func formMessage(key: String, got: String) -> String {
        "\"\(key)\" must be a source name kind:id (kind detector, device, app or manual; id 1-64 of A-Z a-z 0-9 . _ - : @), got \(JSONValue.string(got).jsonText)"
    }
}
