import CivilTime
import LedgerStore
import POSIXLayer
import StepdModel

/// The device's local time zone for "today" and for the UTC offset stored with each record:
/// `$TZ` when set (a zone name such as Europe/Berlin, an offset, or a POSIX TZ string such as
/// CET-1CEST,M3.5.0,M10.5.0/3), else /etc/localtime, else UTC.
enum LocalTimeZone {
    static func rule(environment: [String: String], logger: EventLogger) -> TimeZoneRule {
        do {
            return try TimeZoneLoader.local(environment: environment)
        } catch {
            logger.warning("local time zone: \(error); using UTC for 'today'")
            return .utc
        }
    }

    /// The name of `rule` as answers report it (steps.collection's "time_zone"), so a client in
    /// another zone shows the agent's buckets on the agent's calendar: `$TZ`, or the zone file
    /// /etc/localtime links to. Only a name that loads as `rule` itself is given; nil otherwise.
    static func name(of rule: TimeZoneRule, environment: [String: String]) -> String? {
        let candidate: String?
        if let name = TimeZoneLoader.environmentZoneName(environment), !name.isEmpty {
            candidate = name
        } else if let target = FileSystem.linkTarget(TimeZoneLoader.localZoneFile) {
            // "/usr/share/zoneinfo/Europe/Berlin" (or "../usr/share/zoneinfo/...") names Europe/Berlin.
            let parts = target.split(separator: "/")
            candidate = parts.lastIndex(of: "zoneinfo").map { parts[($0 + 1)...].joined(separator: "/") }
        } else {
            candidate = nil
        }
        guard let candidate, !candidate.isEmpty, let loaded = try? TimeZoneLoader.load(candidate), loaded == rule else { return nil }
        return candidate
    }
}
