import Glibc

/// What the kernel says about this boot and its processes (/proc), read as text; parsing is the
/// caller's.
public enum ProcessTable {
    /// /proc/sys/kernel/random/boot_id: a random id the kernel draws at each boot.
    public static let bootIDPath = "/proc/sys/kernel/random/boot_id"

    /// This boot's id, without the trailing newline.
    public static func bootID() throws(FileSystemError) -> String {
        let bytes = try FileSystem.readFile(bootIDPath)
        return String(decoding: bytes, as: UTF8.self).trimmingNewlines()
    }

    /// The text of /proc/PID/stat, or nil when no process has that pid.
    public static func statText(of pid: Int32) throws(FileSystemError) -> String? {
        // ESRCH: the process exited between opening and reading.
        do throws(FileSystemError) {
            return try FileSystem.readFileIfPresent("/proc/\(pid)/stat").map { String(decoding: $0, as: UTF8.self) }
        } catch where error.errno == ESRCH {
            return nil
        }
    }

    public static var currentPID: Int32 { getpid() }
}

extension String {
    fileprivate func trimmingNewlines() -> String {
        var trimmed = Substring(self)
        while let last = trimmed.last, last == "\n" || last == "\r" || last == " " { trimmed = trimmed.dropLast() }
        return String(trimmed)
    }
}
