/// Whether file contents are text, for the readers of text formats (board files, recordings):
/// a file that is not is refused as binary instead of having its bytes quoted in an error, which
/// wrote NULs and terminal escape sequences to the terminal and the journal.
public enum TextBytes {
    /// True when `bytes` holds a control byte other than tab, line feed and carriage return, or
    /// is not valid UTF-8. `cut`: the bytes end at an arbitrary limit, so a character cut there
    /// does not count.
    public static func isBinary<Bytes: Collection>(_ bytes: Bytes, cut: Bool = false) -> Bool where Bytes.Element == UInt8 {
        if bytes.contains(where: { ($0 < 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D) || $0 == 0x7F }) { return true }
        var whole = Array(bytes)[...]
        if cut, let lead = whole.suffix(4).lastIndex(where: { $0 & 0xC0 != 0x80 }), whole[lead] >= 0xC0 {
            whole = whole[..<lead]
        }
        return String(validating: whole, as: UTF8.self) == nil
    }
}
