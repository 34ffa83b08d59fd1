@testable import MotionCore
import Testing

/// A run confirmed at one peak per stride of a brisk walk halves its period once the refractory
/// has dropped a peak in the middle of `MiddlePeaks.streak` intervals in a row while |a| is
/// dominant at half the period (gate v2.18-T).
@Suite struct MiddlePeaksRule {
    /// A window of a back-pocket walk at ~180 steps/min: the band repeats best at the stride
    /// (`stepLag` 0.58 s), |a| is dominant at the step (`dominant` Hz), three-axis unless told.
    private func window(dominant: Double, threeAxis: Bool = true) -> StepGate.WindowCadence {
        var window = StepGate.WindowCadence(stepCorrelation: 0.95, stepLag: 0.58, dominantFrequency: dominant)
        window.strideCorrelation = 0.9
        if threeAxis { window.verticalShare = 0.4 }
        return window
    }

    /// 20 peaks one stride (0.58 s) apart, then `strides` strides with a peak at each step
    /// (0.29 s) or, with `everyOther`, a middle peak only in every other stride.
    private func walk(strides: Int, everyOther: Bool = false) -> [Double] {
        var times = (0..<20).map { 0.5 + 0.58 * Double($0) }
        for i in 0..<strides {
            let last = times.last ?? 0
            if !everyOther || i % 2 == 0 { times.append(last + 0.29) }
            times.append(last + 0.58)
        }
        return times
    }

    private func counted(_ peaks: [Double], window: StepGate.WindowCadence) -> Int {
        creditedSteps(peaks, firstWindow: 1, closingWindow: true) { _ in window }
    }

    @Test func aStrideRunFindsTheStepsBetween() {
        // 20 + 2 x 40 peaks, every one a step of a 207 steps/min walk: the run confirmed at the
        // stride halves after 4 intervals and credits the 3 middle peaks it dropped before.
        let steps = counted(walk(strides: 40), window: window(dominant: 1 / 0.29))
        #expect(steps >= 98 && steps <= 100)
    }

    @Test func aRunDominantAtItsOwnRateOrMagnitudeOnlyKeepsItsPeriod() {
        // The same run is left at the stride when |a| is dominant at the peak interval (the
        // wrist's arm swing: nothing says the peaks are strides) or on magnitude-only input.
        #expect(counted(walk(strides: 40), window: window(dominant: 1 / 0.58)) == 60)
        #expect(counted(walk(strides: 40), window: window(dominant: 1 / 0.29, threeAxis: false)) == 60)
    }

    @Test func aMiddlePeakNowAndThenDoesNotHalveTheRun() {
        // A middle peak in every other interval (double peaks, a push-off): never 4 in a row.
        #expect(counted(walk(strides: 40, everyOther: true), window: window(dominant: 1 / 0.29)) == 60)
    }

    @Test func theStreakCountsEachIntervalOnceAndBreaksOnAnEmptyOne() {
        var middle = MiddlePeaks()
        let first = middle.note(1.3, lastStep: 1.0)
        let again = middle.note(1.35, lastStep: 1.0)  // the same interval: not counted again
        #expect(!first && !again && middle.count == 1)
        middle.noteStep(previousStep: 1.0)  // the interval that held it closes: streak kept
        #expect(middle.count == 1)
        middle.noteStep(previousStep: 1.6)  // an interval without a middle peak: broken
        #expect(middle.count == 0)
        var complete: [Bool] = []
        for i in 0..<MiddlePeaks.streak {
            let step = 2.0 + 0.6 * Double(i)
            complete.append(middle.note(step + 0.3, lastStep: step))
        }
        #expect(complete == Array(repeating: false, count: MiddlePeaks.streak - 1) + [true])
        #expect(MiddlePeaks.fits(0.29, period: 0.58, window: window(dominant: 1 / 0.29)))
        #expect(!MiddlePeaks.fits(0.15, period: 0.58, window: window(dominant: 1 / 0.29)))
        #expect(!MiddlePeaks.fits(0.4, period: 0.8, window: window(dominant: 2.5)))
    }
}
