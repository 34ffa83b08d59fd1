@testable import MotionCore
import StepdModel
import Testing
import ToolSupport

/// The credit delay (`CreditLog`, `stepbench accuracy`): each step's emission is the time of the
/// sample being pushed when the engine returned it, not the step's own time.
@Suite struct CreditDelay {
    @Test func anUpdateIsStampedWithThePushedSample() throws {
        var log = CreditLog()
        log.note(nil, pushedAt: 5)
        log.note(MotionUpdate(stepTimes: [7.0, 8.0], distance: 1.4, activityChange: nil), pushedAt: 10)
        log.note(MotionUpdate(stepTimes: [], distance: 0, activityChange: ActivityState(kind: .walking, confidence: .medium, start: 7)),
                 pushedAt: 11)
        log.note(MotionUpdate(stepTimes: [20.5], distance: 0.7, activityChange: nil), pushedAt: 21)
        #expect(log.stepTimes == [7, 8, 20.5])
        #expect(log.emittedAt == [10, 10, 21])
        #expect(log.delays == [3, 2, 0.5])
        #expect(log.firstReport(of: .walking) == 11)
        #expect(log.firstReport(of: .running) == nil)
        #expect(log.boutStarts(pause: 5) == [0, 2])
    }

    @Test func aSyntheticWalkIsCreditedLateWithTheEmittingSampleTime() throws {
        let walk = DailyLifeSynthesis.instance(.walking, seed: 11, seconds: 90)
        let log = CreditLog.run(walk.samples) { _ in }
        // The same engine, stepped by hand: each credited step carries the time of the sample
        // whose `process` call returned it.
        var engine = MotionEngine()
        var emitted: [Double] = []
        for sample in walk.samples {
            if let update = engine.process(sample) {
                emitted += repeatElement(sample.t, count: update.stepTimes.count)
            }
        }
        if let update = engine.finish(), let last = walk.samples.last {
            emitted += repeatElement(last.t, count: update.stepTimes.count)
        }
        #expect(log.stepTimes == RecordingAnalysis.run(walk.samples).stepTimes)
        #expect(log.stepTimes.count > 100)
        #expect(log.emittedAt == emitted)
        #expect(zip(log.emittedAt, log.stepTimes).allSatisfy { $0 >= $1 })
        let sampleTimes = Set(walk.samples.map(\.t))
        #expect(log.emittedAt.allSatisfy { sampleTimes.contains($0) })
        // The walk's first step waits for its chain's confirmation (7 regular candidates and a
        // window calling locomotion): seconds, not the zero an emission stamped with the step's own time gives.
        let first = try #require(log.delays.first)
        #expect(first >= 3 && first <= 15)
        // Inside the run steps come as their peaks are picked, well under a second late.
        let sorted = log.delays.sorted()
        #expect(percentile(sorted, 0.5) < 1)
    }

    @Test func theGateHoldsAreSnapshotsBeforeAndInsideTheRun() {
        let walk = DailyLifeSynthesis.instance(.walking, seed: 11, seconds: 90)
        var holds: [GateHolds] = []
        _ = CreditLog.run(walk.samples) { holds.append($0) }
        // The first sample: no run yet, and the classifier's prior is below the gate's threshold.
        #expect(holds.first?.walking == false)
        #expect(holds.first.map { $0.locomotion < MotionEngine.locomotionOn } == true)
        #expect(holds.first.map { $0.active.contains($0.first) } == true)
        #expect(holds.contains { $0.walking })
        #expect(zip(holds, holds.dropFirst()).allSatisfy { $1.t - $0.t >= GateHolds.step - 1e-9 })
    }
}
