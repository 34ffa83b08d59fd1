import Glibc

/// The two clocks the edges read, as seconds. Pure modules never read either: callers pass times in.
public enum SystemClocks {
    /// CLOCK_MONOTONIC in seconds: deadlines and intervals (and GPIO event timestamps).
    public static func monotonic() -> Double { read(CLOCK_MONOTONIC) }

    /// CLOCK_REALTIME in seconds since the epoch (UTC): what the ledger and clients see.
    public static func wall() -> Double { read(CLOCK_REALTIME) }

    private static func read(_ id: clockid_t) -> Double {
        var spec = timespec()
        clock_gettime(id, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1_000_000_000
    }
}

extension SystemClocks {
    /// Sleeps `seconds` of real time (nanosleep). A signal may end it early; callers that wait on
    /// signals use a signalfd and their own deadlines, so the rest is not slept again.
    public static func sleep(seconds: Double) {
        guard seconds > 0, seconds.isFinite else { return }
        let whole = seconds.rounded(.down)
        var request = timespec(tv_sec: Int(whole), tv_nsec: Int((seconds - whole) * 1_000_000_000))
        _ = nanosleep(&request, nil)
    }
}
