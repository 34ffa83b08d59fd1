@testable import MotionCore
import Testing

/// A short walk away from the desk that ends at rest (`DeskBoutAtRest`, gate v2.20-B): a chain the
/// desk minute held (fewer than 21 candidates, no stride, not keeping time) is credited when a
/// magnitude-only window at rest follows it with no other chain between; PC work goes on moving.
@Suite struct DeskBoutAtRestTests {
    /// A window's feature vector as `DeskMinuteTests` builds it (|a| spread, candidates per second).
    static let typing = DeskMinuteTests.values(spreadLog: -1.0, peakRate: 0.2)
    static let still = DeskMinuteTests.values(spreadLog: -2.8, peakRate: 0)
    static let walking = DeskMinuteTests.values(spreadLog: -0.7, peakRate: 1.4)

    /// Steps credited for `peaks` peaks from 61 s, 0.7 s apart on average but not keeping time (the
    /// intervals cycle through `DeskMinuteTests.unsteady`, spread 0.20), after a minute of typing, each
    /// bout window called locomotion (`unsure`: only leaning to it) on a magnitude-only watch; then the
    /// windows `after` (classifier at 0.1, `afterWindows` of them, `restFrom` s after the bout's last
    /// window the wrist at rest), with peaks `later` (the PC work's next candidates) offered among them.
    private func steps(peaks: Int = 12, after: [Double] = Self.typing, restFrom: Double? = 0, afterWindows: Int = 15,
                       later: [Double] = [], unsure: Bool = false, threeAxis: Bool = false) -> Int {
        var bout = [61.0]
        for i in 1..<peaks { bout.append(bout[i - 1] + 0.7 * DeskMinuteTests.unsteady[(i - 1) % DeskMinuteTests.unsteady.count]) }
        let boutEnd = (bout.last ?? 61) + 1
        return creditedSteps(bout + later, firstWindow: 1, unsure: unsure, closingWindow: true, restWindows: afterWindows,
                             locomotion: { end in end > 61 && end <= boutEnd + 1 && !unsure },
                             confirms: { end in end > 61 && end <= boutEnd + 1 },
                             desk: { end in
                                 if end <= 61 { return (Self.typing, !threeAxis, 0.1) }
                                 if end <= boutEnd { return (Self.walking, !threeAxis, 0.9) }
                                 if let restFrom, end > boutEnd + restFrom { return (Self.still, !threeAxis, 0.1) }
                                 return (after, !threeAxis, 0.1)
                             }) { _ in
            var window = StepGate.WindowCadence(stepCorrelation: 0.8, stepLag: 0.7, dominantFrequency: 1 / 0.7)
            window.armWork = MagnitudeArmWork.Evidence(balance: -0.3, swing: -0.6)
            return window
        }
    }

    @Test func aHeldBoutIsCreditedWhenTheWristComesToRest() {
        // 12 peaks out of the desk minute: held (21 needed), credited whole once a window is at rest.
        #expect(steps() == 12)
        // PC work that goes on moving after the chain: never at rest, never credited.
        #expect(steps(restFrom: nil) == 0)
    }

    @Test func aNewChainBeforeTheRestForgetsTheHeldOne() {
        // The hand goes on offering candidates (a new chain 3 s after the bout), then rests: the held
        // chain was PC work, and so is the new one (3 candidates, not regular, not held).
        #expect(steps(restFrom: 7, later: [72.2, 72.6, 73.8]) == 0)
        // Without them the same rest credits the bout.
        #expect(steps(restFrom: 7) == 12)
    }

    @Test func restLaterThanTheBoundIsNoCredit() {
        // The wrist rests 12 s after the bout's last window: beyond `restWithin` of its last candidate.
        #expect(steps(restFrom: 12) == 0)
        #expect(steps(restFrom: 4) == 12)
    }

    @Test func onlyAChainHeldAtAConfidentClassifierIsKept() {
        // Unsure: the chain needs 21 whatever the minute, and the desk minute's hold is not what stops it.
        #expect(steps(unsure: true) == 0)
        // Three-axis windows: the desk minute does not judge, the chain is credited at 7 as before.
        #expect(steps(restFrom: nil, threeAxis: true) == 12)
    }

    @Test func theHeldSpanIsCreditedOnceAndForgottenWhenTheMovementGoesOn() {
        var rest = DeskBoutAtRest()
        rest.hold([1.0, 1.7, 2.4, 3.1, 3.8, 4.5, 5.2][...])
        #expect(rest.last == 5.2)
        // Moving, or a three-axis window: wait.
        let moving = rest.creditsAtRest(resting: false, magnitudeOnly: true, end: 8, walking: false, lastCredited: -.infinity, chainStart: 4.5)
        let threeAxis = rest.creditsAtRest(resting: true, magnitudeOnly: false, end: 8, walking: false, lastCredited: -.infinity, chainStart: nil)
        #expect(!moving && !threeAxis)
        #expect(rest.last == 5.2)
        // At rest, the chain waiting is the held one (or none): credited.
        let resting = rest.creditsAtRest(resting: true, magnitudeOnly: true, end: 10, walking: false, lastCredited: -.infinity, chainStart: 1.0)
        #expect(resting)
        var steps: [Double] = []
        rest.take(into: &steps)
        #expect(steps == [1.0, 1.7, 2.4, 3.1, 3.8, 4.5, 5.2])
        #expect(rest.last == nil)
        // A chain started after the held one, a run, a step credited since, or rest too late: forgotten.
        for (walking, lastCredited, chainStart, end) in [(false, -Double.infinity, 6.0, 10.0), (true, -Double.infinity, nil, 10.0),
                                                         (false, 5.2, nil, 10.0), (false, -Double.infinity, nil, 15.5)] as [(Bool, Double, Double?, Double)] {
            rest.hold([1.0, 1.7, 2.4, 3.1, 3.8, 4.5, 5.2][...])
            let credits = rest.creditsAtRest(resting: true, magnitudeOnly: true, end: end, walking: walking, lastCredited: lastCredited,
                                             chainStart: chainStart)
            #expect(!credits)
            #expect(rest.last == nil)
        }
    }
}
