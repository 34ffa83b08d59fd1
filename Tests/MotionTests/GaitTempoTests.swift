@testable import MotionCore
import Testing

/// Peaks through the step gate with a window every second showing `window`. `faint`: the
/// classifier is below the unsure level (`MotionEngine.locomotionUnsure`) but above the level
/// where a run ends, as the engine then calls the gate; otherwise it says locomotion throughout.
private func tempoSteps(_ peaks: [Double], window: StepGate.WindowCadence, faint: Bool = false) -> Int {
    creditedSteps(peaks, firstWindow: 1, faint: faint, closingWindow: true, locomotion: { _ in !faint }) { _ in window }
}

private func evenPeaks(_ count: Int, interval: Double) -> [Double] {
    (0..<count).map { 0.5 + interval * Double($0) }
}

/// A window of a brisk walk at `period` s per step: the band repeats at the step and, stride
/// after stride, at the stride lag; the dominant frequency is the step rate.
private func briskWindow(period: Double, stepCorrelation: Double = 0.8, strideCorrelation: Double = 0.8) -> StepGate.WindowCadence {
    var window = StepGate.WindowCadence(stepCorrelation: stepCorrelation, stepLag: period, dominantFrequency: 1 / period)
    window.strideCorrelation = strideCorrelation
    return window
}

/// While the classifier is faint (0.2-0.6 locomotion, as the held-out fold models are on brisk
/// in-hand walks at 3 Hz) a long regular chain at the cadence the window shows starts a run.
@Suite struct FaintLocomotion {
    @Test func aBriskWalkTheWindowShowsCountsWhole() {
        // 176 steps/min for 34 s: credited back to its first step once 21 peaks keep the rhythm.
        #expect(tempoSteps(evenPeaks(100, interval: 0.34), window: briskWindow(period: 0.34), faint: true) == 100)
    }

    @Test func aShortRhythmIsNotEnough() {
        #expect(tempoSteps(evenPeaks(20, interval: 0.34), window: briskWindow(period: 0.34), faint: true) == 0)
        #expect(StepGate.unsureFactor * DetectorParameters.fitted.confirmSteps > 20)
    }

    @Test func theWindowMustShowTheCadence() {
        let peaks = evenPeaks(100, interval: 0.34)
        // The band does not repeat at the peaks' interval...
        #expect(tempoSteps(peaks, window: briskWindow(period: 0.34, stepCorrelation: 0.2), faint: true) == 0)
        // ...or the dominant frequency is not their rate (two readings must agree).
        var otherRate = briskWindow(period: 0.34)
        otherRate.dominantFrequency = 1.2
        #expect(tempoSteps(peaks, window: otherRate, faint: true) == 0)
    }
}

/// Runs that have shown the gait (80 steps, the band repeating at a stride lag): double intervals
/// of a 180+ steps/min walk hold a step, and a stride run stays at the stride.
@Suite struct ProvenGait {
    /// 100 steps at `period`, then 100 intervals of two steps each (the band shows one peak per
    /// stride for a while, as a brisk wrist walk's does).
    private func stepsThenStrides(period: Double) -> [Double] {
        let steps = evenPeaks(100, interval: period)
        let start = (steps.last ?? 0) + 2 * period
        return steps + (0..<100).map { start + 2 * period * Double($0) }
    }

    @Test func strideIntervalsAt187StepsPerMinuteHoldTheirStep() {
        // 0.32 s steps: below the 0.33 s floor of unproven runs, within 200 steps/min; 100 steps
        // and 100 strides.
        let peaks = stepsThenStrides(period: 0.32)
        #expect(abs(tempoSteps(peaks, window: briskWindow(period: 0.32)) - 300) <= 2)
    }

    @Test func withoutTheGaitTheFloorStays() {
        // The same rhythm from movement whose band never repeats at a stride lag (clapping at
        // 3 Hz): its double intervals are not filled.
        let peaks = stepsThenStrides(period: 0.32)
        #expect(tempoSteps(peaks, window: briskWindow(period: 0.32, strideCorrelation: 0.3)) < 240)
        // Nor before the run has counted a walk's worth of steps (a clapping bout is 3-10 s).
        let short = evenPeaks(20, interval: 0.32) + (0..<30).map { 0.5 + 0.32 * 21 + 0.64 * Double($0) }
        #expect(tempoSteps(short, window: briskWindow(period: 0.32)) < 60)
    }

    @Test func aStrideRunWhoseIntervalsWanderKeepsItsStepPeriod() {
        // A wrist walk at 176 steps/min with one arm-swing peak per stride: 60 even strides of
        // 0.68 s, then strides alternating 0.53 / 0.83 s (mean 0.68 s, +-22 %), as a lopsided
        // swing does. The window shows the step rhythm at half the stride, so the run counts two
        // steps per stride.
        var t = 0.5
        let peaks = (0..<120).map { k -> Double in
            defer { t += k < 60 ? 0.68 : k % 2 == 0 ? 0.53 : 0.83 }
            return t
        }
        var window = StepGate.WindowCadence(stepCorrelation: 0.5, stepLag: 0.34, dominantFrequency: 1 / 0.34)
        window.strideCorrelation = 0.8
        #expect(abs(tempoSteps(peaks, window: window) - 239) <= 3)
    }
}

/// A double interval credits its step only where the band does not refute the run's period: a
/// run confirmed at a short, wrong period (a turn's burst of peaks 0.6 s apart on a slow wrist
/// walk, held out `rieck-l2-25hz-bw4-slow-walking1`) must not fill every real step interval.
@Suite struct RefutedPeriod {
    /// 8 peaks 0.6 s apart confirm a run at 0.6 s, then 20 intervals of `later` s follow.
    private func shortThenLong(_ period: Double, later: Double) -> [Double] {
        let confirming = evenPeaks(8, interval: period)
        let start = (confirming.last ?? 0) + later
        return confirming + (0..<20).map { start + later * Double($0) }
    }

    /// A window whose band repeats nowhere in the step lags (its best, at `lag`, is negative) and
    /// not at a stride lag either; its dominant frequency is `frequency`.
    private func refutingWindow(lag: Double = 0.4, frequency: Double = 0.8) -> StepGate.WindowCadence {
        var window = StepGate.WindowCadence(stepCorrelation: -0.1, stepLag: lag, dominantFrequency: frequency)
        window.strideCorrelation = 0.3
        return window
    }

    @Test func intervalsAtTwiceAPeriodTheBandRefutesAreOneStepEach() {
        // 0.6 s lies within the step lags (up to 0.76 s): a walk at that period would repeat there.
        #expect(StepGate.longestStepLag > 0.6)
        #expect(tempoSteps(shortThenLong(0.6, later: 1.2), window: refutingWindow()) == 28)
    }

    @Test func aBandThatRepeatsAtThePeriodStillFills() {
        let peaks = shortThenLong(0.6, later: 1.2)
        // Its best step lag is the period, faintly (a walk's missed peaks: 48 steps)...
        let weak = StepGate.WindowCadence(stepCorrelation: 0.1, stepLag: 0.6, dominantFrequency: 0.8)
        #expect(tempoSteps(peaks, window: weak) == 48)
        // ...or it has shown the gait, repeating at a stride lag.
        var gait = refutingWindow()
        gait.strideCorrelation = 0.8
        #expect(tempoSteps(peaks, window: gait) == 48)
    }

    @Test func aPeriodBeyondTheStepLagsStillFills() {
        // A slow walk at 0.9 s per step: no window reading can show it, so none refutes it.
        #expect(tempoSteps(shortThenLong(0.9, later: 1.8), window: refutingWindow(frequency: 0.55)) == 48)
    }
}

/// While the classifier is faint, a slow chain (its period beyond the window's step lags, where no
/// step-lag reading can vouch for it) starts a run on 14 steady peaks whose rate is the window's
/// dominant frequency: the slow rieck walks break their chains every 10-25 peaks, so 21 never line up.
@Suite struct SlowFaintChains {
    /// A slow walk's window: no usable step-lag repeat (the best lag, at the longest, is weak),
    /// the dominant frequency at the step rate of `period`.
    private func slowWindow(period: Double) -> StepGate.WindowCadence {
        var window = StepGate.WindowCadence(stepCorrelation: 0.05, stepLag: 0.76, dominantFrequency: 1 / period)
        window.strideCorrelation = 0.3
        return window
    }

    @Test func fifteenSteadySlowPeaksCountWhole() {
        #expect(tempoSteps(slowPeaks(15), window: slowWindow(period: 1.1), faint: true) == 15)
        #expect(StepGate.slowFaintFactor * DetectorParameters.fitted.confirmSteps <= 15)
    }

    @Test func theWindowMustShowTheSlowRate() {
        // The dominant frequency is twice the step rate (a slow arm rhythm with two swings a cycle).
        #expect(tempoSteps(slowPeaks(15), window: slowWindow(period: 0.55), faint: true) == 0)
    }

    @Test func looseIntervalsAreNotEnough() {
        // Regular enough for the gate's test (each within 35 % of the mean), but spread by about
        // 25 %: alternating 0.8 / 1.4 s pairs are not a steady walk.
        var t = 0.5
        let peaks = (0..<15).map { k -> Double in
            defer { t += k % 4 < 2 ? 0.8 : 1.4 }
            return t
        }
        #expect(tempoSteps(peaks, window: slowWindow(period: 1.1), faint: true) == 0)
    }

    @Test func aSlowChainBelowTheStepLagsReachNeedsTheFullCount() {
        // 0.85 s steps: the step lags can still match that period, so the slow path does not apply.
        #expect(tempoSteps(evenPeaks(15, interval: 0.85), window: slowWindow(period: 0.85), faint: true) == 0)
    }
}
