@testable import MotionCore
import Testing

/// A brisk |a| walk whose band does not repeat at the dominant period (gate v2.22-B,
/// `BriskMagnitudeRun`): inside a run at a brisk period that has shown the gait, a magnitude-only
/// window takes the wide band on its spectrum alone, and leaves it when the run ends.
@Suite struct BriskMagnitudeRunRule {
    /// A window dominant at `hz` whose 2.5 Hz band barely repeats (0.2 at 0.76 s: merged heel strike
    /// and push-off), magnitude-only unless told.
    private func window(_ hz: Double = 2.8, correlation: Double = 0.2, lag: Double = 0.76, magnitudeOnly: Bool = true) -> StepGate.WindowCadence {
        var window = StepGate.WindowCadence(stepCorrelation: correlation, stepLag: lag, dominantFrequency: hz)
        if magnitudeOnly {
            window.armWork = MagnitudeArmWork.Evidence(balance: -0.3, swing: 0.3)
        } else {
            window.verticalShare = 0.4
        }
        return window
    }

    private func selector(after windows: Int, _ window: StepGate.WindowCadence, runPeriod: Double, runShowsGait: Bool) -> TempoSelector {
        var tempo = TempoSelector()
        for _ in 0..<windows { tempo.update(window, runPeriod: runPeriod, runShowsGait: runShowsGait, parameters: .fitted) }
        return tempo
    }

    @Test func aProvenBriskMagnitudeRunTakesTheWideBandAndLeavesItWhenTheRunEnds() {
        var tempo = selector(after: 1, window(), runPeriod: 0.36, runShowsGait: true)
        // Two windows in a row, as for the usual reading.
        #expect(!tempo.fast)
        tempo.update(window(), runPeriod: 0.36, runShowsGait: true, parameters: .fitted)
        #expect(tempo.fast && tempo.heldByRun)
        // The run ends: the band so taken goes back after two windows, whatever the spectrum says.
        tempo.update(window(), runPeriod: 0, parameters: .fitted)
        #expect(tempo.fast)
        tempo.update(window(), runPeriod: 0, parameters: .fitted)
        #expect(!tempo.fast && !tempo.heldByRun)
    }

    @Test func notWithoutTheGaitTheBriskPeriodTheRunOrMagnitudeOnlyInput() {
        #expect(!selector(after: 4, window(), runPeriod: 0.36, runShowsGait: false).fast)
        #expect(!selector(after: 4, window(), runPeriod: 0.42, runShowsGait: true).fast)
        #expect(!selector(after: 4, window(), runPeriod: 0, runShowsGait: false).fast)
        #expect(!selector(after: 4, window(magnitudeOnly: false), runPeriod: 0.36, runShowsGait: true).fast)
        // Nor below the brisk dominant frequency (2.0 Hz).
        #expect(!selector(after: 4, window(1.9), runPeriod: 0.36, runShowsGait: true).fast)
    }

    @Test func aBandTakenOnItsRepeatStaysAfterTheRun() {
        // The usual reading (the band repeats at the dominant period) is not held by the run.
        var tempo = selector(after: 2, window(2.8, correlation: 0.8, lag: 0.36), runPeriod: 0.36, runShowsGait: true)
        #expect(tempo.fast && !tempo.heldByRun)
        for _ in 0..<3 { tempo.update(window(), runPeriod: 0, parameters: .fitted) }
        #expect(tempo.fast)
    }

    @Test func thePeriodLimit() {
        #expect(BriskMagnitudeRun.takesWideBand(window(), runPeriod: 0.39, runShowsGait: true))
        #expect(!BriskMagnitudeRun.takesWideBand(window(), runPeriod: BriskMagnitudeRun.maxPeriod, runShowsGait: true))
    }
}
