import Glibc
import POSIXLayer

/// A failed socket operation, keeping errno and saying what to do about it.
public struct SocketError: Error, Sendable, Equatable, CustomStringConvertible {
    public var operation: String
    public var path: String
    public var errno: Int32
    public var hint: String?

    public init(operation: String, path: String, errno: Int32, hint: String? = nil) {
        self.operation = operation
        self.path = path
        self.errno = errno
        self.hint = hint
    }

    public init(operation: String, path: String, _ error: Errno, hint: String? = nil) {
        self.init(operation: operation, path: path, errno: error.rawValue, hint: hint)
    }

    public var description: String {
        let reason = errno == 0 ? "" : ": \(Errno(errno))"
        let tail = hint.map { " (\($0))" } ?? ""
        return "\(operation) \(path)\(reason)\(tail)"
    }
}
