/// Gate v2.20-F: a chain waiting for confirmation is not broken by one stride of the walk that
/// just ended.
///
/// Why: a chain breaks at a gap above `maxInterval` (1.5 s). A walk that goes on more quietly
/// after its run ended (a slow or gentle walker, a wrist whose arm swing takes over |a|) can give
/// the 0.10 g hysteresis floor only one peak per stride, and at ~80 steps/min a stride is 1.4-1.6 s:
/// every stride beyond 1.5 s broke the chain, which then never reached the regular candidates that
/// restart a run, although the classifier said walking at 0.93-1.00 throughout
/// (`bangle-hughb-walk-1834` slowed to ~80 steps/min lost its last 418 s: 1304 of 1834; docs/motion.md,
/// "A quiet walk whose run ended"). The walk that just ended has proved its cadence: within
/// `StepGate.recentSeconds` of a run of `StepGate.recentMinSteps` steps, a candidate up to one
/// stride of that run's step period (two periods, within `StepGate.recentTolerance`) after the
/// chain's last one keeps the chain, while the classifier calls the candidate's window locomotion.
/// The chain is then confirmed as any other (regular, every arm-work and drive hold), and
/// `StepGate.isStride` reads its peaks as strides from the same remembered period, so the run
/// restarts at the cadence the walk proved. No new picker and no lower floor: the peaks are the
/// floor's own. Only walks slower than 100 steps/min are touched (two periods of 0.6 s, with the
/// tolerance, reach `maxInterval`).
enum RecentStrideLink {
    /// Whether a candidate `dt` s after the chain's last one (a gap above `maxInterval`) still joins
    /// the chain. `recentStepPeriod`: `StepGate.recentStepPeriod` at the candidate; `locomotion`:
    /// the classifier calls its window locomotion (`MotionEngine.locomotionOn`).
    static func keepsChain(after dt: Double, recentStepPeriod: Double?, locomotion: Bool) -> Bool {
        guard locomotion, let period = recentStepPeriod else { return false }
        return dt <= 2 * period * (1 + StepGate.recentTolerance)
    }
}
