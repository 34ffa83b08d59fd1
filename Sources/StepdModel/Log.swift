/// syslog priorities, which journald reads from a `<N>` prefix on each stderr line.
public enum LogLevel: Int, Sendable, Comparable, CaseIterable {
    case error = 3, warning = 4, notice = 5, info = 6, debug = 7

    public init?(name: String) {
        switch name {
        case "error", "err": self = .error
        case "warning", "warn": self = .warning
        case "notice": self = .notice
        case "info": self = .info
        case "debug": self = .debug
        default: return nil
        }
    }

    public var name: String {
        switch self {
        case .error: return "error"
        case .warning: return "warning"
        case .notice: return "notice"
        case .info: return "info"
        case .debug: return "debug"
        }
    }

    public static func < (a: LogLevel, b: LogLevel) -> Bool { a.rawValue < b.rawValue }
}

/// Where a component reports state changes. Components never print; the agent decides where
/// lines go (stderr with journald prefixes), tests collect them.
public struct EventLogger: Sendable {
    private let sink: @Sendable (LogLevel, String) -> Void

    public init(_ sink: @escaping @Sendable (LogLevel, String) -> Void) { self.sink = sink }

    /// Drops everything; for tools and tests that do not care.
    public static let silent = EventLogger { _, _ in }

    public func log(_ level: LogLevel, _ message: String) { sink(level, message) }
    public func error(_ message: String) { sink(.error, message) }
    public func warning(_ message: String) { sink(.warning, message) }
    public func notice(_ message: String) { sink(.notice, message) }
    public func info(_ message: String) { sink(.info, message) }
    public func debug(_ message: String) { sink(.debug, message) }
}
