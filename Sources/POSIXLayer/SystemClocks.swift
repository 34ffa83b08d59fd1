import Glibc

/// The two clocks the edges read, as seconds. Pure modules never read either: callers pass times in.
public enum SystemClocks {
    /// CLOCK_MONOTONIC in seconds: deadlines and intervals (and GPIO event timestamps).
    public static func monotonic() -> Double { read(CLOCK_MONOTONIC) }

    /// CLOCK_REALTIME in seconds since the epoch (UTC): what the ledger and clients see.
    public static func wall() -> Double { read(CLOCK_REALTIME) }

    /// CLOCK_THREAD_CPUTIME_ID in seconds: the CPU time of the calling thread, for benchmarks
    /// that measure cost on one core (time the thread waited for the core is not in it).
    public static func threadCPU() -> Double { read(CLOCK_THREAD_CPUTIME_ID) }

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
