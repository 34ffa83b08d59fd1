@testable import MotionCore
import Testing

/// A chain that waits long for confirmation keeps its candidates (`StepGate.capacity`): a walk the
/// classifier calls locomotion only after ~30 s is credited back to its first step, but never
/// through peaks that do not keep its rhythm.
@Suite struct LongWaitingChain {
    /// A brisk walk at 0.5 s per step: the band repeats at the step and the stride.
    private let walkWindow: StepGate.WindowCadence = {
        var window = StepGate.WindowCadence(stepCorrelation: 0.8, stepLag: 0.5, dominantFrequency: 2)
        window.strideCorrelation = 0.8
        return window
    }()

    /// Peaks with no window until `firstWindow` (the classifier silent), then one that says
    /// locomotion.
    private func steps(_ peaks: [Double]) -> Int {
        let last = peaks.last ?? 0
        return creditedSteps(peaks, firstWindow: last.rounded(.up) + 1, closingWindow: true,
                             locomotion: { _ in false }) { _ in walkWindow }
    }

    @Test func aWalkConfirmedAfterHalfAMinuteCountsWhole() {
        // 60 steps 0.5 s apart (30 s), more than the 32 a chain used to keep.
        #expect(steps((0..<60).map { 0.5 + 0.5 * Double($0) }) == 60)
    }

    @Test func oldPeaksOutsideTheRhythmStayOut() {
        // 15 loose peaks 0.9 s apart, then 45 steps 0.5 s apart: only the walk is credited.
        let loose = (0..<15).map { 0.5 + 0.9 * Double($0) }
        let walk = (0..<45).map { 14.5 + 0.5 * Double($0) }
        #expect(steps(loose + walk) == 45)
    }
}
