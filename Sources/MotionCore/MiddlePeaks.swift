/// Steps the refractory hid: a run confirmed at one peak per stride (gate v2.18-T, issue 10 round 11).
///
/// Why: inside a run a peak sooner than `refractory` (0.55) of the step period after the last step
/// is taken for a double peak of that step and dropped (`StepGate.offer`). A brisk walk whose run
/// confirmed at one peak per stride (a phone in one back pocket at ~180 steps/min: its band repeats
/// best at the stride, its lopsided intervals pair up, and the chain settles at 0.57 s) then drops
/// every real step between two strides for the rest of the run, and the stride test
/// (`StepGate.isStride`) never applies below 0.6 s: `oxford-pixel_jamie_hard_backpocket_1` at ~180
/// held out counted 130 of 257. The window tells the two apart: the dominant frequency of |a| is
/// the rate of half the run's period (3.2-3.4 Hz against 0.57-0.62 s), and the dropped peaks sit in
/// the middle of the intervals, one per interval, interval after interval. A double peak of a step
/// comes early in the interval, a slow walk's push-off is not at the |a| dominant rate's half
/// period of a 0.5-0.75 s step, and magnitude-only arm work is left alone (three-axis windows only).
/// After `streak` intervals in a row with such a peak the run's step period halves and the middle
/// peaks that showed it are credited.
struct MiddlePeaks: Sendable {
    /// Intervals in a row with a middle peak before the period halves (3 gives the same figures).
    static let streak = 4
    /// Where in the interval (fraction of the period after the last step) a middle peak lies.
    static let middle = 0.35...0.65
    /// Step periods at which a run may be one peak per stride of a brisk walk: its half is a step
    /// of 0.25-0.375 s (160-240 steps/min). 0.45-0.8 gives the same figures.
    static let periods = 0.5...0.75
    /// Tolerance of the dominant frequency against the rate of half the period (0.2 the same).
    static let tolerance = 0.15

    /// The middle peaks of the current streak, oldest first (`count` of them).
    private(set) var times: [Double]
    private(set) var count = 0
    /// The step after which the last middle peak came (so each interval counts once).
    private var lastStepSeen = -Double.infinity

    init() {
        times = [Double](repeating: 0, count: Self.streak)
    }

    mutating func reset() {
        count = 0
        lastStepSeen = -.infinity
    }

    /// Whether a peak `dt` after the run's last step, dropped by the refractory, may be a step the
    /// run's period hides: three-axis, a period of a stride of a brisk walk, the peak in the middle
    /// of the interval, and |a| dominant at half the period.
    static func fits(_ dt: Double, period: Double, window: StepGate.WindowCadence?) -> Bool {
        guard periods.contains(period), middle.contains(dt / period), let window, window.threeAxis else { return false }
        return window.frequencyMatches(period / 2, tolerance: tolerance)
    }

    /// A middle peak at `t` in the interval after the run's step at `lastStep`; true when the
    /// streak is complete (the peaks to credit are `times[0..<count]`).
    mutating func note(_ t: Double, lastStep: Double) -> Bool {
        if lastStep == lastStepSeen { return false }
        lastStepSeen = lastStep
        times[count] = t
        count += 1
        return count >= Self.streak
    }

    /// The run credited a peak ending the interval that began at `previousStep`: an interval
    /// without a middle peak breaks the streak.
    mutating func noteStep(previousStep: Double) {
        if previousStep != lastStepSeen { count = 0 }
    }
}
