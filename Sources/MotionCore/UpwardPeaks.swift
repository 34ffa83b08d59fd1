/// Arm work whose |a| peaks do not push up: a walk's step candidates are the moments the body,
/// and whatever carries the sensor, is pushed upwards, while clapping and combing peak where the
/// hand is stopped or swung across gravity.
///
/// Why: at every step the leg stops the body's fall and lifts it (the bounce, with the heel
/// strike's jolt), so at the |a| maximum of a step the acceleration beyond gravity points up along
/// it, on a wrist as in a pocket: the cosine between that acceleration and the window's mean
/// gravity direction, averaged over the window's peaks, stays above 0.43 in 99 % of the Bangle
/// wrist walks' and the ST walks' stepping windows (0.53 Oxford, 0.62 running; ~10 s means).
/// |a| also rises when the hand is stopped or swung hard in any direction (|a|^2 = 1 + 2 a.g +
/// |a - g|^2): a clap's contact, a comb's quick return across the head. Their peaks point across
/// or against gravity (synthetic clapping: a mean of -0.23, 95 % below 0.08; combing 0.16). The
/// measure is rotation invariant (a cosine between two vectors of the same frame) and uses no
/// feature (the samples and the peaks the gate is offered), so the model is untouched. One
/// window's value is noisy (a few peaks, a turn of the wrist), so an exponential mean over the
/// three-axis windows with enough peaks (`gain` a window, about 10 s, as the vertical share)
/// decides: while it is below `floor`, a chain waits and is credited back whole once the peaks
/// push up again and the chain still keeps its rhythm. A run already credited goes on, and so
/// does a chain within `StepGate.recentSeconds` of a walk (the hook in `StepGate.confirm`, as for
/// `TurningArmWork`). Magnitude-only input carries no direction and clears the mean.
struct UpwardPeaks: Sendable {
    static let span = WindowFeatures.windowLength
    static let peakCapacity = 32
    /// Where a band peak's |a| maximum is sought (s before and after the band's peak time: the
    /// 2.5 Hz band lags |a| by about a tenth of a second, more at the wide band's edge).
    static let searchBefore = 0.28
    static let searchAfter = 0.04
    /// Peaks a window needs for its mean direction to count: fewer leave the mean as it is.
    static let minPeaks = 3
    /// Windows the mean needs before it judges (as `TurningArmWork.minWindows`).
    static let minWindows = 10
    /// The mean cosine below which the peaks are not a walk's: under every real walk's mean (the
    /// lowest, 0.20, three windows inside a credited run of `bangle-hughb-walk-6605`; p1 0.43-0.53)
    /// and over 99.7 % of synthetic clapping's. 0.3 and 0.4 move no real count either but sit in
    /// the walks' lower tail (0.4: the Bangle walks' p1) for a gain on synthetic gesturing only
    /// (docs/motion.md, "Peaks that do not push up (gate v2.15-A)").
    static let floor = 0.2

    private var peaks: [Double]
    private var peakHead = 0
    private var peakCount = 0

    /// The recent mean cosine of the peaks' acceleration to gravity, over the windows with enough
    /// peaks since it was cleared (a magnitude-only window or a gap clears it).
    private(set) var mean = RecentMean()
    /// The recent mean cosine; nil before a three-axis window with enough peaks, after a
    /// magnitude-only window and after a gap.
    var lift: Double? { mean.value }

    init() {
        peaks = [Double](repeating: 0, count: Self.peakCapacity)
    }

    mutating func reset() {
        peakHead = 0
        peakCount = 0
        mean.clear()
    }

    /// A step candidate (the band peak's time) offered to the gate.
    mutating func notePeak(at t: Double) {
        peaks[peakHead] = t
        peakHead = peakHead + 1 == Self.peakCapacity ? 0 : peakHead + 1
        if peakCount < Self.peakCapacity { peakCount += 1 }
    }

    /// The mean cosine, over the peaks of the last window, between the acceleration beyond the
    /// window's mean (gravity) at each peak's |a| maximum and gravity; nil without enough
    /// samples, peaks or gravity (a free fall). `samples`: the gate's recent 25 Hz samples, the
    /// newest at `newest` (s); `gravity`: their mean over the last `span` (`SampleRing.mean(of:)`).
    func windowLift(samples: SampleRing, gravity: (x: Double, y: Double, z: Double), newest: Double) -> Double? {
        guard samples.count >= Self.span else { return nil }
        let (gx, gy, gz) = gravity
        let norm = (gx * gx + gy * gy + gz * gz).squareRoot()
        guard norm > 0.3 else { return nil }
        var sum = 0.0
        var used = 0
        forEachPeak(samples: samples, newest: newest) { back in
            let peak = samples.sample(back)
            let dx = peak.x - gx, dy = peak.y - gy, dz = peak.z - gz
            let size = (dx * dx + dy * dy + dz * dz).squareRoot()
            guard size > 0 else { return }
            sum += (dx * gx + dy * gy + dz * gz) / (size * norm)
            used += 1
        }
        return used >= Self.minPeaks ? sum / Double(used) : nil
    }

    /// Calls `body` with the ring index (samples back from the newest) of each recent peak's |a|
    /// maximum inside the last window, newest first. The one search for the peaks' samples, read
    /// by `windowLift` and by `SwingAlignedPeaks`.
    func forEachPeak(samples: SampleRing, newest: Double, _ body: (Int) -> Void) {
        guard samples.count >= Self.span else { return }
        let rate = MotionEngine.internalRate
        for k in 0..<peakCount {
            var index = peakHead - 1 - k
            if index < 0 { index += Self.peakCapacity }
            let age = newest - peaks[index]
            let first = Int(((age - Self.searchAfter) * rate).rounded())
            let last = Int(((age + Self.searchBefore) * rate).rounded())
            // Peaks are offered in time order: the rest are older still.
            if last >= Self.span { break }
            guard first >= 0 else { continue }
            var best = first
            for back in first...last where samples.magnitude(back) > samples.magnitude(best) { best = back }
            body(best)
        }
    }

    /// Takes one window (`threeAxis` false: a magnitude-only window, which clears the mean);
    /// `gravity`: the samples' mean over the last `span`, nil before that many.
    mutating func observe(threeAxis: Bool, samples: SampleRing, gravity: (x: Double, y: Double, z: Double)?, newest: Double) {
        guard threeAxis else {
            mean.clear()
            return
        }
        guard let gravity, let value = windowLift(samples: samples, gravity: gravity, newest: newest) else { return }
        mean.add(value)
    }

    /// Whether a chain must wait: the recent peaks do not push up.
    var holdsBack: Bool {
        guard let lift = mean.formed(after: Self.minWindows) else { return false }
        return lift < Self.floor
    }
}
