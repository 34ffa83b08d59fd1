/// Gate v2.20-R: brisk walks at ~180 steps/min (docs/motion.md "Brisk walks at 180 steps/min").
///
/// Two limits of the step gate sat on the tempo itself:
/// - a double interval inside a run credits its missed step only at step periods of at least
///   `DetectorParameters.fillMinPeriod` (0.33 s, 182 steps/min): a walk at ~180 steps/min runs at
///   0.31-0.35 s, so half of its double intervals lost their step. On three-axis windows the
///   floor is `threeAxisFillMinPeriod` (0.28 s, 214 steps/min): a real run's period there comes
///   from a step train (the wrist at a jog repeats at each step), and the fill still needs the
///   band's consent (`StepGate.fillVouched`). Magnitude-only windows keep 0.33 s: the |a| of
///   clapping counted at that floor (measured: the synthetic |a| arm work's claps +12 steps).
/// - peak intervals under 0.6 s were never strides, so a brisk walk whose wrist peaks once per
///   stride (0.5-0.6 s strides: 200-240 steps/min) after a run that counted its steps was read
///   as a ~110 steps/min walk. Between `rememberedStrideFloor` and 0.6 s the walk memory alone
///   decides (a run of 80 steps that ended within 90 s at half the interval), and a clear step
///   rhythm at the interval itself still stands against it. The window's own half-lag reading
///   stays at 0.6 s and above: below, it called rhythmic clapping strides (measured).
enum BriskSteps {
    /// Step period (s) down to which a run on three-axis windows fills a double interval.
    static let threeAxisFillMinPeriod = 0.28
    /// Shortest peak interval (s) the walk memory may call a stride.
    static let rememberedStrideFloor = 0.5
    /// Shortest peak interval (s) the window's step rhythm at half of it calls a stride.
    static let readStrideFloor = 0.6

    /// The step period down to which a run fills its double intervals, given the gate's
    /// `floor` and whether the last window is three-axis.
    @inline(__always)
    static func fillFloor(_ floor: Double, threeAxis: Bool) -> Double {
        threeAxis ? min(floor, threeAxisFillMinPeriod) : floor
    }
}
