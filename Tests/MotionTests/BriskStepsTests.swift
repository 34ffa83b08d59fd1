@testable import MotionCore
import Testing

/// Brisk walks at ~180-200 steps/min (gate v2.20-R, `BriskSteps`): a run at a 0.31 s step
/// period fills its double intervals on three-axis windows, and strides of 0.5-0.6 s after a
/// walk counted at half of them are strides.
@Suite struct BriskStepsRule {
    /// A window whose band repeats at `lag` with |a| dominant there; three-axis unless told.
    private func window(correlation: Double, lag: Double, threeAxis: Bool = true) -> StepGate.WindowCadence {
        var window = StepGate.WindowCadence(stepCorrelation: correlation, stepLag: lag, dominantFrequency: 1 / lag)
        if threeAxis { window.verticalShare = 0.4 }
        return window
    }

    /// `count` steps 0.31 s apart (194 steps/min) from 0.5 s; after the first 20, every 5th
    /// step gives no peak (the band merged it: a 0.62 s double interval).
    private func walkWithMissedPeaks(count: Int) -> [Double] {
        var peaks: [Double] = []
        for i in 0..<count where i < 20 || i % 5 != 0 { peaks.append(0.5 + 0.31 * Double(i)) }
        return peaks
    }

    @Test func aBriskRunFillsItsDoubleIntervalsOnThreeAxisWindows() {
        let peaks = walkWithMissedPeaks(count: 200)
        let threeAxis = creditedSteps(peaks, firstWindow: 1, closingWindow: true) { _ in window(correlation: 0.8, lag: 0.31) }
        // Every missed peak is a step credited in its interval's middle (36 of them).
        #expect(threeAxis >= 198 && threeAxis <= 200)
        // Magnitude-only windows keep the 0.33 s floor: the 36 missed steps stay missed.
        let magnitude = creditedSteps(peaks, firstWindow: 1, closingWindow: true) { _ in
            window(correlation: 0.8, lag: 0.31, threeAxis: false)
        }
        #expect(magnitude == peaks.count)
    }

    /// 100 steps 0.29 s apart (a run the walk memory keeps), 3 s without a peak, then `strides`
    /// peaks 0.56 s apart.
    private func briskWalkThenStrides(strides: Int, walkFirst: Bool = true) -> [Double] {
        let walk = walkFirst ? (0..<100).map { 0.5 + 0.29 * Double($0) } : []
        let start = (walk.last ?? 0) + 3
        return walk + (0..<strides).map { start + 0.56 * Double($0) }
    }

    private func strideWindows(strideCorrelation: Double) -> (Double) -> StepGate.WindowCadence {
        { t in t < 30.5 ? window(correlation: 0.8, lag: 0.29) : window(correlation: strideCorrelation, lag: 0.56) }
    }

    @Test func stridesJustUnderSixTenthsAfterABriskWalkAreStrides() {
        let peaks = briskWalkThenStrides(strides: 60)
        let steps = creditedSteps(peaks, firstWindow: 1, closingWindow: true, window: strideWindows(strideCorrelation: 0.4))
        // 100 steps, then 60 strides (two steps each, the last peak one): 219.
        #expect(steps >= 216 && steps <= 219)
    }

    @Test func aClearStepRhythmOrNoRememberedWalkKeepsThemSteps() {
        // The window repeats clearly at the interval with |a| dominant there: steps.
        let clear = creditedSteps(briskWalkThenStrides(strides: 60), firstWindow: 1, closingWindow: true,
                                  window: strideWindows(strideCorrelation: 0.8))
        #expect(clear == 160)
        // No walk before: nothing says the 0.56 s peaks are strides (a 107 steps/min walk).
        let alone = creditedSteps(briskWalkThenStrides(strides: 60, walkFirst: false), firstWindow: 1, closingWindow: true) { _ in
            window(correlation: 0.4, lag: 0.56)
        }
        #expect(alone == 60)
    }

    @Test func theFloorsAndTheirSides() {
        #expect(BriskSteps.fillFloor(0.33, threeAxis: true) == BriskSteps.threeAxisFillMinPeriod)
        #expect(BriskSteps.fillFloor(0.33, threeAxis: false) == 0.33)
        #expect(BriskSteps.fillFloor(0.2, threeAxis: true) == 0.2)
        var gate = StepGate(parameters: .fitted)
        gate.observe(window(correlation: 0.4, lag: 0.56), end: 1)
        // Without a remembered walk a 0.56 s interval is a step; 0.45 s never a stride.
        #expect(!gate.isStride(0.56, at: 1))
        #expect(!gate.isStride(0.45, at: 1))
        // Below 0.6 s the window's rhythm at half the interval does not call it a stride (claps).
        gate.observe(window(correlation: 0.5, lag: 0.28), end: 2)
        #expect(!gate.isStride(0.56, at: 2))
        #expect(gate.isStride(0.62, at: 2))
    }
}
