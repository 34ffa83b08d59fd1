import Glibc

/// A POSIX error number, typed so a failing call cannot be confused with a count or a descriptor.
public struct Errno: Error, Sendable, Hashable, RawRepresentable, CustomStringConvertible {
    public var rawValue: Int32

    public init(rawValue: Int32) { self.rawValue = rawValue }
    public init(_ rawValue: Int32) { self.rawValue = rawValue }

    /// The calling thread's errno now.
    public static var current: Errno { Errno(Glibc.errno) }

    public static let interrupted = Errno(EINTR)
    public static let wouldBlock = Errno(EAGAIN)
    public static let noSuchFile = Errno(ENOENT)
    public static let fileExists = Errno(EEXIST)
    public static let notDirectory = Errno(ENOTDIR)
    public static let ioError = Errno(EIO)
    public static let brokenPipe = Errno(EPIPE)
    public static let connectionReset = Errno(ECONNRESET)
    public static let connectionRefused = Errno(ECONNREFUSED)
    public static let nameTooLong = Errno(ENAMETOOLONG)
    public static let invalidArgument = Errno(EINVAL)

    /// strerror(3) text.
    public var description: String { strerror(rawValue).map { String(cString: $0) } ?? "errno \(rawValue)" }

    /// The text with the symbolic name where there is one: "No space left on device (ENOSPC)".
    public var explained: String { name.map { "\(description) (\($0))" } ?? description }

    /// The symbolic name (`ENOSPC`) of the errors the tools explain; nil for others.
    public var name: String? {
        switch rawValue {
        case ENOSPC: return "ENOSPC"
        case EDQUOT: return "EDQUOT"
        case EROFS: return "EROFS"
        case EACCES: return "EACCES"
        case EPERM: return "EPERM"
        case EIO: return "EIO"
        case ENOENT: return "ENOENT"
        case ENOTDIR: return "ENOTDIR"
        case EEXIST: return "EEXIST"
        case ENXIO: return "ENXIO"
        case EREMOTEIO: return "EREMOTEIO"
        case ETIMEDOUT: return "ETIMEDOUT"
        case EBUSY: return "EBUSY"
        case EAGAIN: return "EAGAIN"
        case ENODEV: return "ENODEV"
        case EINVAL: return "EINVAL"
        case EOPNOTSUPP: return "EOPNOTSUPP"
        default: return nil
        }
    }
}

/// Runs one system call that returns -1 and sets errno on failure; retries it while it fails with
/// EINTR when `retryOnInterrupt` (the only EINTR loop in the project).
@inline(__always)
public func valueOrErrno<I: FixedWidthInteger>(retryOnInterrupt: Bool = true, _ call: () -> I) throws(Errno) -> I {
    while true {
        let result = call()
        if result != -1 { return result }
        let error = Errno.current
        if retryOnInterrupt && error == .interrupted { continue }
        throw error
    }
}

/// As `valueOrErrno` for calls whose success value says nothing (0 on success).
@inline(__always)
public func nothingOrErrno<I: FixedWidthInteger>(retryOnInterrupt: Bool = true, _ call: () -> I) throws(Errno) {
    _ = try valueOrErrno(retryOnInterrupt: retryOnInterrupt, call)
}
