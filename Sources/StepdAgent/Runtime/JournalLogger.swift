import Glibc
import POSIXLayer
import StepdModel

/// Writes one line per event to stderr. Under systemd (stderr is not a terminal) each line starts
/// with the `<N>` syslog priority that journald turns into the entry's priority; on a terminal the
/// level is spelled out instead so a developer can read it.
public final class JournalLogger: Sendable {
    public let threshold: LogLevel
    private let prefixStyle: PrefixStyle

    enum PrefixStyle { case journald, terminal }

    public init(threshold: LogLevel, stderrIsTerminal: Bool = isatty(STDERR_FILENO) == 1) {
        self.threshold = threshold
        self.prefixStyle = stderrIsTerminal ? .terminal : .journald
    }

    public var eventLogger: EventLogger {
        EventLogger { [self] level, message in self.write(level, message) }
    }

    /// The exact bytes written for one event, without the newline; exposed for tests.
    func line(_ level: LogLevel, _ message: String) -> String {
        // A message must stay one journal entry: newlines inside it would split it.
        let flat = message.contains("\n") ? message.split(separator: "\n").joined(separator: " | ") : message
        switch prefixStyle {
        case .journald: return "<\(level.rawValue)>\(flat)"
        case .terminal: return "stepd[\(level.name)]: \(flat)"
        }
    }

    public func write(_ level: LogLevel, _ message: String) {
        guard level <= threshold else { return }
        var bytes = Array(line(level, message).utf8)
        bytes.append(UInt8(ascii: "\n"))
        // One write(2) per line so lines from this process never interleave mid-line. A log
        // line that cannot be written has nowhere else to go.
        try? FileDescriptor(borrowing: STDERR_FILENO).writeAll(bytes)
    }
}
