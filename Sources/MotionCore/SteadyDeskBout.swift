/// A short walk away from the desk whose steps keep time (gate v2.18-D, issue 10 round 11).
///
/// Why: `DeskMinute` makes a magnitude-only chain out of a minute of desk work wait for 21 regular
/// candidates, which a 10-20-step bout never offers; v2.18-B releases the chains whose band repeats
/// stride after stride, but most rieck bouts after PC work do not reach that (stride correlation
/// 0.2-0.6 in their chains), and held out they were still counted only 62 % (10-step) and 75 %
/// (20-step; `stepbench accuracy`'s "bouts after daily life"). Per lost step (a trace of the person
/// folds, docs/motion.md "A walk away from the desk"), the desk minute held 84 % (10-step) and 83 %
/// (20-step) of them, at a classifier that called the bout locomotion a median 3.2 s into it.
/// What the PC chains the minute stops do not do is keep time: the spread of their last 7
/// candidates' intervals (standard deviation over mean) is at least 0.17 held out (typing and
/// mousing land peaks at a roughly steady rate, never on a beat), while a walk's steps are within a
/// few percent at 25 Hz and within the sample quantisation (about 0.1) at 12.5 Hz. Synthetic |a|
/// clapping keeps time too, but mostly at twice the rate of its candidate chain, and with more of its
/// |a| above 6 Hz than in the gait band; a walk's band has its dominant frequency at the step rate
/// and most of the energy, so both must hold as well.
enum SteadyDeskBout {
    /// The largest spread (standard deviation over mean) of the chain's last `confirmSteps` intervals
    /// that still keeps time: 0.10-0.14 release real bouts and nothing else; at 0.15 synthetic |a|
    /// clapping is credited (arm-busy +98 steps in-sample), at 0.20 a held-out PC chain (daily life
    /// 64.5 -> 69.4 per hour; both measured before the balance and period conditions were added).
    static let maximumIntervalSpread = 0.12

    /// The window's |a| balance (`MagnitudeArmWork.Evidence.balance`, log10 of the RMS above 6 Hz over
    /// the gait band's) below which the band holds the movement: every released bout chain reads -0.13
    /// or lower (person folds), the synthetic |a| clapping chains that keep time at their window's rate
    /// +0.19 and +0.43 (seed 3; 63 steps without it).
    static let maximumBalance = 0.0

    /// Whether the intervals between `candidates` (the chain's last ones, in time order) keep time and
    /// `window`'s dominant frequency is their rate within `tolerance` (`MotionConfiguration.cadenceTolerance`),
    /// on a magnitude-only window whose gait band holds the movement (`maximumBalance`). A chain slower
    /// than `longestPeriod` (`StepGate.longestShownPeriod`, about 0.95 s: no step-lag reading vouches for
    /// it) is left to the slow paths: the released bouts' chains are 0.41-0.87 s apart, a synthetic |a|
    /// gesturing chain at 1.22 s keeps time too.
    static func keepsTime(_ candidates: ArraySlice<Double>, window: StepGate.WindowCadence?, tolerance: Double,
                          longestPeriod: Double) -> Bool {
        guard let window, let first = candidates.first, let last = candidates.last, candidates.count >= 3 else { return false }
        let count = Double(candidates.count - 1)
        let mean = (last - first) / count
        guard mean > 0, mean <= longestPeriod, window.frequencyMatches(mean, tolerance: tolerance),
              let balance = window.armWork?.balance, balance < maximumBalance else { return false }
        var squares = 0.0
        var previous = first
        for t in candidates.dropFirst() {
            squares += (t - previous - mean) * (t - previous - mean)
            previous = t
        }
        return (squares / count).squareRoot() / mean <= maximumIntervalSpread
    }
}
