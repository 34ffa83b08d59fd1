import Glibc

/// Magnitude-only arm work without impacts (gate v2.15-B): on a watch that logs only |a|, a walk's
/// |a| is an impact train or a smooth pendulum, arm work at a sink or a desk is neither.
///
/// Why: at every heel strike the wrist's |a| jumps well above its running mean and then sinks back
/// below it for the rest of the step, so its values spread further above their median than below
/// it; wiping, scrubbing, typing and reaching move the hand back and forth with no impact, and their
/// |a| spreads about as far below the median as above. The reading is one window's detrended |a|
/// (`meanLength` running mean removed): log10 of the 95th percentile's height above the median over
/// the 5th percentile's depth below it (`windowAsymmetry`). The rieck walks (slow to fast, 12.5 and
/// 25 Hz) read 0.15-0.35 as a ~10 s mean, the rieck desk work and dishwashing -0.05 to 0.10
/// (docs/motion.md, "Magnitude-only arm work without impacts"). Percentiles do not move when a walk
/// is played faster or slower, so unlike the |a| balance of `MagnitudeArmWork` (power above 6 Hz,
/// which time-scaling shifts) it keeps the walks time-scaled to ~80-180 steps/min as walk-like as
/// their originals. Some real walks seen as |a| have no clear impacts (a phone in the hand, one
/// Bangle wrist walker), but their |a| is a smooth pendulum with little power above 6 Hz: a chain
/// whose recent |a| balance is at or below `smoothBalance` is not judged, so the two readings
/// cover each other (a time-compressed walk keeps its impacts, a soft walk its smoothness).
/// One window is noisy, so an exponential mean over the moving magnitude-only windows decides
/// (`RecentMean`, about 10 s, as the other arm-work means); a window that barely moves (`minimumSpread`)
/// ends the reading (the next movement is read afresh), a three-axis window or a gap clears it,
/// and only a reading of `evidenceWindows` moving windows holds a chain back: the first seconds of
/// a walk from rest (a bout, the first steps of a file, the steps after a hole) are not yet an
/// impact train. While the reading is below `ceiling`, a chain at a step period of at least
/// `MagnitudeArmWork.minPeriod` waits, and is credited back whole once the impacts show and it
/// still keeps its rhythm (brisk chains stay exempt, as for the balance).
struct MagnitudeImpacts: Sendable {
    /// The recent asymmetry over the moving windows of the current reading.
    private(set) var reading = RecentMean()
    /// The recent asymmetry, nil before the first moving magnitude-only window of a movement.
    var asymmetry: Double? { reading.value }
    /// Mean asymmetry below which the |a| shows no impacts: desk work and dishwashing held out read
    /// -0.05 to 0.10 (5th-95th percentile), the rieck walks' chains 0.11-0.35 (5th percentiles of
    /// each walk 0.11-0.22). 0.03-0.09 cost no walk held out; 0.12 moves the walks and the bouts.
    static let ceiling = 0.06
    /// The recent |a| balance (`MagnitudeArmWork.balance`) at or below which the movement is a
    /// smooth pendulum and not judged: the rieck walks read -0.27 to -0.31 (medians), desk work
    /// -0.05, dishwashing -0.18, PC work -0.21. Without it the Oxford and Bangle walks seen as |a|
    /// lose steps at ~80 steps/min (MAPE 2.08 -> 2.74 %, person folds); -0.2 measures the same.
    static let smoothBalance = -0.25
    /// Moving windows a reading needs before it holds a chain back: 4-5 hold the first chain of a
    /// walk from rest (a 2 s hole's restart: 3 -> 17 steps lost in one held-out walk).
    static let evidenceWindows = 8
    /// The smallest standard deviation (g) of a window's detrended |a| that is read: a still
    /// wrist's percentiles are noise.
    static let minimumSpread = 0.02
    /// The running mean the samples are detrended by (samples, 2 s at 25 Hz): longer than a stride.
    static let meanLength = 50
    static let windowLength = WindowFeatures.windowLength

    private var raw: [Double]
    private var rawSum = 0.0
    /// Samples in `raw` (at most `meanLength`) and the slot of the next.
    private var rawCount = 0
    private var rawSlot = 0
    private var detrended: [Double]
    /// The window's values, reordered by the quantile selection.
    private var ranked: [Double]
    private var filled = 0
    private var head = 0

    init() {
        raw = [Double](repeating: 0, count: Self.meanLength)
        detrended = [Double](repeating: 0, count: Self.windowLength)
        ranked = [Double](repeating: 0, count: Self.windowLength)
    }

    /// Takes one |a| sample (g) at the engine's rate (every sample: the rings wrap by comparison,
    /// not by division).
    mutating func push(_ magnitude: Double) {
        if rawCount == Self.meanLength { rawSum -= raw[rawSlot] } else { rawCount += 1 }
        raw[rawSlot] = magnitude
        rawSum += magnitude
        rawSlot = rawSlot + 1 == Self.meanLength ? 0 : rawSlot + 1
        // Until the running mean spans its length, a sample is detrended by too few (the first
        // seconds after a restart would all sit at the median).
        guard rawCount == Self.meanLength else { return }
        detrended[head] = magnitude - rawSum / Double(Self.meanLength)
        head = head + 1 == Self.windowLength ? 0 : head + 1
        filled = min(filled + 1, Self.windowLength)
    }

    /// The asymmetry of the last window of samples; nil until a window is in, or when it barely moves.
    mutating func windowAsymmetry() -> Double? {
        guard filled == Self.windowLength else { return nil }
        var sum = 0.0, squares = 0.0
        for i in 0..<Self.windowLength {
            ranked[i] = detrended[i]
            sum += detrended[i]
            squares += detrended[i] * detrended[i]
        }
        let n = Double(Self.windowLength)
        let variance = squares / n - (sum / n) * (sum / n)
        guard variance >= Self.minimumSpread * Self.minimumSpread else { return nil }
        // Only three order statistics are read: select them (the same values a sort would give)
        // rather than sort the window, and without the sort's scratch allocation.
        let lowIndex = Self.quantileIndex(0.05), medianIndex = Self.quantileIndex(0.5), highIndex = Self.quantileIndex(0.95)
        let (low, median, high) = ranked.withUnsafeMutableBufferPointer { values in
            OrderStatistics.select(medianIndex, in: values, from: 0, to: values.count)
            // Now every value before the median is at most it and every value after at least it.
            OrderStatistics.select(lowIndex, in: values, from: 0, to: medianIndex)
            OrderStatistics.select(highIndex, in: values, from: medianIndex + 1, to: values.count)
            return (values[lowIndex], values[medianIndex], values[highIndex])
        }
        let above = max(high - median, 1e-4), below = max(median - low, 1e-4)
        return log10(above / below)
    }

    /// Takes one window (the gate, every window): a magnitude-only window that moves updates the
    /// reading, one that barely moves ends it, a three-axis window clears it.
    mutating func observe(magnitudeOnly: Bool) {
        guard magnitudeOnly, let value = windowAsymmetry() else {
            reading.clear()
            return
        }
        reading.add(value)
    }

    /// Whether a chain at `stepPeriod` (s) shows no impacts, while the recent |a| `balance`
    /// (`MagnitudeArmWork.balance`, nil: none) is not a smooth pendulum's (or is, at a step period
    /// slower than a smooth walk's, `SlowSmoothMagnitude`), and must wait.
    func holdsBack(stepPeriod: Double, balance: Double?) -> Bool {
        guard stepPeriod >= MagnitudeArmWork.minPeriod, let asymmetry = reading.formed(after: Self.evidenceWindows), let balance else { return false }
        // A slow smooth rhythm is not exempt once the reading is long: a wrist at the wheel (gate v2.19-V).
        if balance <= Self.smoothBalance && !SlowSmoothMagnitude.judgesSmooth(stepPeriod: stepPeriod, readingWindows: reading.windows) {
            return false
        }
        return asymmetry < Self.ceiling
    }

    /// The index of quantile `q` in the window's sorted values (the nearest rank).
    private static func quantileIndex(_ q: Double) -> Int { Int((q * Double(windowLength - 1)).rounded()) }

    mutating func reset() {
        reading.clear()
        rawSum = 0
        rawCount = 0
        rawSlot = 0
        filled = 0
        head = 0
    }
}
