@testable import MotionCore
import Testing

/// A proven run's step period does not drift above 1.3 times the period it had at its 80th step
/// (gate v2.17-T): peaks that come late for a while (the band giving one peak per stride now and
/// then) no longer drag the period to the stride, so the strides that follow still count two steps.
@Suite struct CadenceCeilingRule {
    /// `steps` peaks `period` apart, then each stretch of (count, interval) peaks.
    private func peaks(steps: Int, period: Double, then stretches: [(Int, Double)]) -> [Double] {
        var times = (0..<steps).map { 0.5 + period * Double($0) }
        for (count, interval) in stretches {
            for _ in 0..<count { times.append((times.last ?? 0) + interval) }
        }
        return times
    }

    private func counted(_ peaks: [Double], window: StepGate.WindowCadence) -> Int {
        creditedSteps(peaks, firstWindow: 1, closingWindow: true) { _ in window }
    }

    @Test func lateStretchesDoNotDragTheRunToTheStride() {
        // 100 steps at 0.42 s (143 steps/min), 12 peaks 0.55 s apart and 12 at 0.58 s (intervals
        // of 1.3-1.4 periods, each one step), then 40 strides of 0.9 s: two steps each.
        let walk = peaks(steps: 100, period: 0.42, then: [(12, 0.55), (12, 0.58), (40, 0.9)])
        let steps = counted(walk, window: gaitWindow(period: 0.45))
        #expect(abs(steps - (100 + 24 + 80)) <= 3)
    }

    @Test func aWalkThatSlowsALittleIsFollowed() {
        // 100 steps at 0.42 s, then 60 at 0.52 s (1.24 times): within the ceiling, every peak
        // one step and no double interval invented.
        let walk = peaks(steps: 100, period: 0.42, then: [(60, 0.52)])
        #expect(counted(walk, window: gaitWindow(period: 0.45)) == 160)
    }

    @Test func theCeilingIsSetAtTheRunsEightiethStep() {
        var ceiling = CadenceCeiling()
        ceiling.note(runSteps: StepGate.recentMinSteps - 1, period: 0.4)
        #expect(ceiling.allows(2))
        ceiling.note(runSteps: StepGate.recentMinSteps, period: 0.4)
        #expect(ceiling.allows(0.4 * CadenceCeiling.span))
        #expect(!ceiling.allows(0.4 * CadenceCeiling.span + 0.01))
        // Later steps do not move it; a switch to stride counting halves it; a new run clears it.
        ceiling.note(runSteps: StepGate.recentMinSteps + 1, period: 0.5)
        #expect(!ceiling.allows(0.53))
        ceiling.halve()
        #expect(!ceiling.allows(0.27))
        ceiling.reset()
        #expect(ceiling.allows(2))
    }
}
