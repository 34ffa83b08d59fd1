/// How far a proven run's step period may drift up (gate v2.17-T, issue 10 round 10).
///
/// Why: inside a run the step period follows the peak intervals (`StepGate.offer`), so it drifts
/// wherever the intervals lead. On a brisk wrist walk the band starts giving one peak per stride
/// for some steps (the arm swing takes over |a|): intervals of 1.3-1.5 step periods round to one
/// step, pull the period up a fifth of the way each time, and once it sits near the stride every
/// stride counts one step. The native magnitude-only brisk walk `rieck-l2-12hz-bw2-fast-walking-bf`
/// counted 0.42-0.43 s steps for 50 s, then its period crept to 0.69 s in 20 s while the walk went
/// on, and the Bangle wrist walk `bangle-hughb-walk-6605` at ~150 steps/min drifted from 0.46 to
/// 0.63 s, after which the walk's memory (`recentStepPeriod`) carried the wrong period into the next
/// runs. A walker does not slow by a third without a stop, which ends the run; so once a run has
/// counted a walk's worth of steps (`StepGate.recentMinSteps`) its period then is the walker's
/// cadence, and the period no longer follows intervals beyond `span` times it. Double intervals
/// then still credit their step. Only upward: a period drifting down is the band resolving steps
/// it had merged (a brisk walk confirmed at one peak per stride finds its 0.29 s steps), and the
/// refractory (`DetectorParameters.refractory`) already keeps a run from halving on double peaks.
struct CadenceCeiling: Sendable {
    /// Largest period, as a multiple of the anchor, the run may drift to (1.2 loses in-sample
    /// hole and ~80 figures: a walk's own cadence wanders by a fifth; 1.4 keeps less of the gain).
    static let span = 1.3
    /// The run's step period when it had counted `StepGate.recentMinSteps` steps; 0 before.
    private(set) var anchor = 0.0

    mutating func reset() {
        anchor = 0
    }

    /// A step of a run that has counted `runSteps` steps at step period `period`.
    mutating func note(runSteps: Int, period: Double) {
        if anchor == 0 && runSteps >= StepGate.recentMinSteps { anchor = period }
    }

    /// The run switched to counting a peak per stride: its step period (and the anchor) halve.
    mutating func halve() {
        anchor /= 2
    }

    /// Whether the run's period may move to `period`.
    func allows(_ period: Double) -> Bool {
        anchor == 0 || period <= Self.span * anchor
    }
}
