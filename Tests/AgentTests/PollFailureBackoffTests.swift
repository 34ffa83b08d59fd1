@testable import StepdAgent
import Testing

@Suite struct PollFailureBackoffTests {
    /// A poll that keeps failing: the pauses grow to the cap, only the first failure is logged,
    /// and after `giveUpAfter` seconds the loop gives up (exit for systemd) instead of spinning.
    @Test func persistentFailureBacksOffLogsOnceAndGivesUp() {
        var backoff = PollFailureBackoff()
        var now = 100.0
        var delays: [Double] = []
        var logged = 0
        var action = backoff.failed(now: now)
        while case .retry(let delay, let log) = action {
            delays.append(delay)
            if log { logged += 1 }
            now += delay
            action = backoff.failed(now: now)
        }
        #expect(action == .giveUp)
        #expect(logged == 1)
        #expect(delays.first == backoff.firstDelay)
        #expect(delays.allSatisfy { $0 > 0 && $0 <= backoff.maxDelay })
        #expect(delays.last == backoff.maxDelay)
        #expect(zip(delays, delays.dropFirst()).allSatisfy { $0 <= $1 })
        // Bounded: about giveUpAfter seconds at one retry per second at most, not a busy loop.
        #expect(delays.count < Int(backoff.giveUpAfter) + 10)
        #expect(now - 100 >= backoff.giveUpAfter)
    }

    @Test func successEndsTheEpisodeAndTheNextFailureStartsOver() {
        var backoff = PollFailureBackoff()
        let endedBeforeAnyFailure = backoff.succeeded()
        #expect(!endedBeforeAnyFailure)
        let first = backoff.failed(now: 0)
        let second = backoff.failed(now: 0.01)
        #expect(first == .retry(delay: backoff.firstDelay, log: true))
        #expect(second == .retry(delay: backoff.firstDelay * 2, log: false))
        let ended = backoff.succeeded()
        let endedAgain = backoff.succeeded()
        #expect(ended)
        #expect(!endedAgain)
        let later = backoff.failed(now: 1000)
        #expect(later == .retry(delay: backoff.firstDelay, log: true))
    }
}
