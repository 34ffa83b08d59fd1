import Glibc
import Ledger
import POSIXLayer

/// Reads a time zone the way the C library does: a fixed offset ("UTC", "+02:00"), a name
/// under /usr/share/zoneinfo, or /etc/localtime when no name is given.
public enum TimeZoneLoader {
    public static let zoneInfoDirectory = "/usr/share/zoneinfo"

    public enum LoadError: Error, Sendable, Equatable, CustomStringConvertible {
        case unknownName(String)
        case unreadable(path: String, FileSystemError)
        case invalid(path: String, TimeZoneError)

        public var description: String {
            switch self {
            case .unknownName(let name):
                return "unknown time zone '\(name)'; use a name such as Europe/Berlin (see \(TimeZoneLoader.zoneInfoDirectory)), 'UTC' or an offset like +02:00"
            case .unreadable(let path, let error): return "cannot read time zone file \(path): \(error)"
            case .invalid(let path, let error): return "\(path): \(error)"
            }
        }
    }

    public static func load(_ name: String?, fileSystem: any LedgerFileSystem = PosixFileSystem()) throws(LoadError) -> TimeZoneRule {
        let path: String
        if let name, !name.isEmpty {
            if let fixed = try? TimeZoneRule.parseFixedOffset(name) { return fixed }
            let parts = name.split(separator: "/", omittingEmptySubsequences: false)
            guard !name.hasPrefix("/"), !parts.contains(where: { $0.isEmpty || $0 == ".." || $0 == "." }) else {
                throw .unknownName(name)
            }
            path = zoneInfoDirectory + "/" + name
        } else {
            path = "/etc/localtime"
        }
        let bytes: [UInt8]
        do throws(FileSystemError) {
            bytes = try fileSystem.readFile(path)
        } catch {
            if error.errno == ENOENT, let name { throw .unknownName(name) }
            throw .unreadable(path: path, error)
        }
        do throws(TimeZoneError) {
            return .zone(try TZifZone(bytes: bytes))
        } catch {
            throw .invalid(path: path, error)
        }
    }
}
