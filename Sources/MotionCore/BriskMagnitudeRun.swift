/// Gate v2.22-B: a magnitude-only run that has shown its gait reads the wide gait band at a brisk
/// period on the spectrum alone (docs/motion.md, "Brisk |a| walks: why the shipped model counts ~150
/// worse than the folds, and the wide band inside a proven |a| run").
///
/// Why: `TempoSelector` takes the wide band only while the 2.5 Hz band repeats clearly at the
/// dominant period (or twice it), a guard against a slow pocket walk whose |a| peaks at a harmonic.
/// A brisk walk logged as |a| alone (the rieck watch at 12.5 Hz, its walks taken to ~150 steps/min)
/// rarely shows that repeat: at 2.5-3 Hz its heel strike and push-off merge in the narrow band, whose
/// step-lag autocorrelation stays at 0-0.5, so the gate keeps reading merged peaks while |a| itself
/// is dominant at the step rate; the run's intervals turn irregular, and at an unsure classifier it
/// ends and the chain after it must confirm anew. Inside a run the gate already counts at a brisk
/// period, whose band has repeated at a stride lag (`StepGate.gaitShownCorrelation`) since it
/// started, the run itself is the evidence the band repeat stands for: it is not a harmonic of a
/// slow walk (those runs count at >= 0.45 s, `DetectorParameters.slowRunPeriod`).
/// Measured (issue 10 round 15): without the shown gait, or on three-axis windows, or outside a run,
/// the rieck shoe laces and PC work under clock drift and noise gain false steps; at 0.42 s the
/// 12.5 Hz robustness rows lose 0.05 point of walking MAPE; at 0.40 s every output but the tempo rows
/// is identical. A band so taken is left when the run ends (`TempoSelector`): the next chain is
/// judged on the band the usual reading picks.
enum BriskMagnitudeRun {
    /// Longest step period (s) of a run that takes the wide band this way: 150 steps/min. The native
    /// rieck fast walks (110-131 steps/min) run above it and keep their counts; 0.38 s keeps most of
    /// the gain, 0.42 s moves the 12.5 Hz robustness rows.
    static let maxPeriod = 0.40

    /// Whether `window`, inside the gate's run at `runPeriod` (0 outside a run), takes the wide band
    /// on its dominant frequency alone: magnitude-only input, a brisk run, and a run whose band has
    /// shown the gait (`runShowsGait`).
    @inline(__always)
    static func takesWideBand(_ window: StepGate.WindowCadence, runPeriod: Double, runShowsGait: Bool) -> Bool {
        window.magnitudeOnly && runPeriod > 0 && runPeriod < maxPeriod && runShowsGait
    }
}
