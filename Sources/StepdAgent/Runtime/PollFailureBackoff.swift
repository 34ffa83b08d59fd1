/// What the event loop does when poll(2) itself fails with something other than an interrupted
/// call (EINVAL, ENOMEM: nothing a retry a microsecond later fixes). Retrying at once would spin a core and
/// write one log line per turn; instead the loop waits, doubling the wait up to `maxDelay`, logs
/// once per episode, and gives up after `giveUpAfter` seconds of failure so the agent exits
/// non-zero and systemd restarts it. Times are passed in, so it is tested without a clock.
struct PollFailureBackoff {
    var firstDelay = 0.01
    var maxDelay = 1.0
    var giveUpAfter = 30.0

    enum Action: Equatable {
        /// Wait `delay` seconds before the next turn; `log` for the first failure of an episode.
        case retry(delay: Double, log: Bool)
        /// The failure has lasted `giveUpAfter` seconds: stop with a failure status.
        case giveUp
    }

    private(set) var failingSince: Double?
    private var nextDelay = 0.0

    /// A failed poll at monotonic time `now`.
    mutating func failed(now: Double) -> Action {
        guard let since = failingSince else {
            failingSince = now
            nextDelay = min(firstDelay * 2, maxDelay)
            return .retry(delay: firstDelay, log: true)
        }
        if now - since >= giveUpAfter { return .giveUp }
        let delay = nextDelay
        nextDelay = min(nextDelay * 2, maxDelay)
        return .retry(delay: delay, log: false)
    }

    /// A poll that worked; true when it ends a failure episode (worth one log line).
    mutating func succeeded() -> Bool {
        guard failingSince != nil else { return false }
        failingSince = nil
        return true
    }
}
