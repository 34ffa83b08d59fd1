/// Resolves a zone argument the way the C library reads `TZ`: a fixed offset ("UTC", "+02:00"),
/// a name under /usr/share/zoneinfo, a POSIX TZ string when no such file exists, or /etc/localtime
/// when no name is given. File access is passed in (`readFile`), so the rules stay pure and the
/// caller's file layer does the I/O.
public enum TimeZoneLoader {
    public static let zoneInfoDirectory = "/usr/share/zoneinfo"
    public static let localZoneFile = "/etc/localtime"

    /// What `readFile` reports when it cannot return a zone file's bytes.
    public enum ReadFailure: Error, Sendable, Equatable {
        case missing
        case failed(String)
    }

    public enum LoadError: Error, Sendable, Equatable, CustomStringConvertible {
        case unknownName(String)
        case unreadable(path: String, reason: String)
        case invalid(path: String, TimeZoneError)

        public var description: String {
            switch self {
            case .unknownName(let name):
                return "unknown time zone '\(name)'; use a name such as Europe/Berlin (see \(TimeZoneLoader.zoneInfoDirectory)), 'UTC' or an offset like +02:00"
            case .unreadable(let path, let reason): return "cannot read time zone file \(path): \(reason)"
            case .invalid(let path, let error): return "\(path): \(error)"
            }
        }
    }

    /// The file a zone argument names, or the rule itself for a fixed offset.
    enum Source: Sendable, Equatable {
        case rule(TimeZoneRule)
        case file(path: String, name: String?)
    }

    /// Which file (or fixed rule) `name` means; nil or empty is the system zone.
    static func source(_ name: String?) throws(LoadError) -> Source {
        guard let name, !name.isEmpty else { return .file(path: localZoneFile, name: nil) }
        if let fixed = try? TimeZoneRule.parseFixedOffset(name) { return .rule(fixed) }
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        guard !name.hasPrefix("/"), !parts.contains(where: { $0.isEmpty || $0 == ".." || $0 == "." }) else {
            throw .unknownName(name)
        }
        return .file(path: zoneInfoDirectory + "/" + name, name: name)
    }

    public static func load(_ name: String?,
                            readFile: (String) throws(ReadFailure) -> [UInt8]) throws(LoadError) -> TimeZoneRule {
        switch try source(name) {
        case .rule(let rule):
            return rule
        case .file(let path, let name):
            let bytes: [UInt8]
            do throws(ReadFailure) {
                bytes = try readFile(path)
            } catch {
                switch error {
                case .missing:
                    guard let name else { throw .unreadable(path: path, reason: "no such file") }
                    // No zone file of that name: a POSIX TZ string, as the C library reads `TZ`
                    // ("CET-1CEST,M3.5.0,M10.5.0/3", "EST5EDT" where tzdata lacks the file).
                    if let rule = try? POSIXTimeZone(name) { return .zone(TZifZone(rule: rule)) }
                    throw .unknownName(name)
                case .failed(let reason): throw .unreadable(path: path, reason: reason)
                }
            }
            do throws(TimeZoneError) {
                return .zone(try TZifZone(bytes: bytes))
            } catch {
                throw .invalid(path: path, error)
            }
        }
    }

    /// The zone name in `$TZ`, if any. glibc accepts a leading ':' ("implementation-defined"
    /// form); it names a zone file.
    public static func environmentZoneName(_ environment: [String: String]) -> String? {
        guard let value = environment["TZ"] else { return nil }
        return value.hasPrefix(":") ? String(value.dropFirst()) : value
    }
}
