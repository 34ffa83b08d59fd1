import CivilTime
import LedgerStore
import StepdModel

/// The device's local time zone for "today" and for the UTC offset stored with each record:
/// `$TZ` when set (a zone name such as Europe/Berlin, or an offset), else /etc/localtime, else UTC.
enum LocalTimeZone {
    static func rule(environment: [String: String], logger: EventLogger) -> TimeZoneRule {
        do {
            return try TimeZoneLoader.local(environment: environment)
        } catch {
            logger.warning("local time zone: \(error); using UTC for 'today'")
            return .utc
        }
    }
}
