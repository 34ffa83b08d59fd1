import Glibc

/// UTC calendar text without Foundation.
enum UTCText {
    /// `20261122T144200Z`, for file names that sort by time.
    static func compact(_ seconds: Double) -> String {
        let parts = fields(seconds)
        return "\(pad(parts.year, 4))\(pad(parts.month))\(pad(parts.day))T\(pad(parts.hour))\(pad(parts.minute))\(pad(parts.second))Z"
    }

    /// `2026-11-22T14:42:00Z`.
    static func iso8601(_ seconds: Double) -> String {
        let parts = fields(seconds)
        return "\(pad(parts.year, 4))-\(pad(parts.month))-\(pad(parts.day))T\(pad(parts.hour)):\(pad(parts.minute)):\(pad(parts.second))Z"
    }

    private static func fields(_ seconds: Double) -> (year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) {
        var time = time_t(seconds.rounded(.down))
        var broken = tm()
        gmtime_r(&time, &broken)
        return (Int(broken.tm_year) + 1900, Int(broken.tm_mon) + 1, Int(broken.tm_mday),
                Int(broken.tm_hour), Int(broken.tm_min), Int(broken.tm_sec))
    }

    private static func pad(_ value: Int, _ width: Int = 2) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }
}
