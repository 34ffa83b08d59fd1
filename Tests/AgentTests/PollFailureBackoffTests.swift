import Foundation
import Glibc
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

/// The real agent with poll(2) failing: lowering its open-file limit below the number of
/// descriptors it polls makes poll fail with EINVAL on every turn. The agent must log that once
/// and pause between turns (a retry at once spins a core and floods the journal), then carry on
/// when the limit is raised again.
@Suite struct PollFailureAgentTests {
    @Test func failingPollIsLoggedOnceAndTheAgentRecovers() throws {
        let agent = try AgentProcess(arguments: ["--simulate", "builtin", "--log-level", "info"])
        try agent.connect().close()
        var limit = rlimit()
        try #require(getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0)
        let pid = String(agent.process.processIdentifier)

        let lowered = try runTool("/usr/bin/prlimit", ["--pid", pid, "--nofile=1:"])
        try #require(lowered.status == 0, "prlimit: \(lowered.error)")
        // Long enough for many turns: a retry-at-once loop logs thousands of lines meanwhile.
        Thread.sleep(forTimeInterval: 1.5)
        let restored = try runTool("/usr/bin/prlimit", ["--pid", pid, "--nofile=\(limit.rlim_cur):"])
        try #require(restored.status == 0, "prlimit: \(restored.error)")

        // An agent that flooded its stderr pipe is stuck in write(2) and never answers; SIGKILL
        // it so its log can still be read and counted.
        let answered = (try? agent.waitForStatus(timeout: 10) { $0["sensor"] != nil }) != nil
        if answered { #expect(agent.terminate() == 0) } else { agent.kill9() }
        #expect(answered, "the agent did not answer once the limit was raised")
        let log = agent.stderrText()
        let failures = log.split(separator: "\n").filter { $0.contains("poll failed") }
        #expect(failures.count == 1, "\(failures.count) 'poll failed' lines")
        #expect(failures.first?.contains("Invalid argument") == true)
        #expect(log.contains("poll works again"))
    }
}
