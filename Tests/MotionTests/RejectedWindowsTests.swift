@testable import MotionCore
import Testing

/// Gate v2.23-R: an ended chain is not credited back past a long stretch the classifier rejected.
@Suite struct RejectedWindowsTests {
    /// A still wrist (no candidates of its own) under gravity: samples, so the gate knows the time.
    private static func still(_ t: Double) -> (x: Double, y: Double, z: Double) { (0, 0, 1) }

    /// Peaks every 0.5 s from 1 s for `seconds`; windows end every second from 6 s; the classifier
    /// rejects every window up to `rejectedUntil` and confirms the first window after it.
    private func credited(seconds: Double, rejectedUntil: Double, rejectedFrom: Double = 0) -> Int {
        let peaks = chain(from: 1, count: Int(seconds / 0.5), interval: 0.5)
        return creditedSteps(peaks, firstWindow: 6, closingWindow: true, restWindows: 3,
                             locomotion: { $0 > rejectedUntil },
                             confirms: { $0 > rejectedUntil && $0 < rejectedUntil + 1.5 },
                             sample: Self.still,
                             rejects: { $0 >= rejectedFrom && $0 <= rejectedUntil },
                             window: { _ in gaitWindow(period: 0.5) })
    }

    @Test func aRhythmTheClassifierRejectedIsNotCreditedByTheWindowWhereItStops() {
        // A minute of 2 Hz movement called other movement throughout; the window where it stops
        // reads as the end of a walk. Without the rule the chain's 64 candidates are credited.
        #expect(credited(seconds: 60, rejectedUntil: 62) == 0)
    }

    @Test func aWalkTheClassifierRejectedForAWhileIsCreditedBackWhileItGoesOn() {
        // The same rejection, but the rhythm goes on after the confirming window: a walk the
        // classifier came round to (the slowed in-hand walks held out), credited back whole.
        #expect(credited(seconds: 80, rejectedUntil: 60) >= 64)
    }

    @Test func aShortRejectionDoesNotCutAChain() {
        // Nine rejected windows inside the chain (fewer than `minWindows`), then the window where
        // it stops confirms: credited back as before.
        #expect(credited(seconds: 30, rejectedUntil: 31, rejectedFrom: 23) >= 55)
    }

    @Test func windowsThatBeganBeforeTheChainDoNotCutIt() {
        var windows = RejectedWindows()
        // Rest from 0 s: twelve rejected windows (starts 0-11 s, ends 5-16 s), then a chain from 8 s.
        for k in 0..<12 { windows.note(rejected: true, start: Double(k), end: Double(k) + 5) }
        #expect(windows.rejectedUntil(chainStart: 8) == nil)   // only 4 began inside it
        #expect(windows.rejectedUntil(chainStart: 2) == 16)    // 10 began inside it
        // An accepted window ends the streak; a later streak of nine is not long.
        windows.note(rejected: false, start: 12, end: 17)
        for k in 13..<22 { windows.note(rejected: true, start: Double(k), end: Double(k) + 5) }
        #expect(windows.rejectedUntil(chainStart: 13) == nil)
        windows.note(rejected: true, start: 22, end: 27)
        #expect(windows.rejectedUntil(chainStart: 13) == 27)
        windows.reset()
        #expect(windows.rejectedUntil(chainStart: 0) == nil)
    }
}
