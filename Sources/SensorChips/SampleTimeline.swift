/// Gives FIFO samples timestamps on the sensor clock that follow the chip's own oscillator,
/// which is not its nominal rate: the MPU-6050's is specified at ±3 % plus ±1 % over
/// temperature, the LIS3DH's is not trimmed at all.
///
/// The true sample period is estimated from sample counts and read times over many bursts, as
/// the kernel's inv_mpu6050 driver does from its interrupt timestamps. Each burst gives one
/// observation: the index of its newest sample (counted since the timeline was anchored) and
/// the range of times it can have been taken: within the last period before the read, or from
/// the data-ready edge to the read when an edge is known. Over the observations of the last
/// `window` seconds, the period is the middle of the interval every pair of them allows; when
/// they contradict each other (a read stamped late, an oscillator drifting over the window),
/// the period that keeps the worst disagreement smallest. The trend of these window estimates
/// carries a drifting oscillator's period forward to the newest read. Until the observations
/// span `minimumSpan`, a provisional period from the first few reads stands in. The supervisor
/// spreads its reads over the sample period so the interval narrows quickly.
///
/// Samples are spaced at the estimated period, each burst continuing where the last one ended,
/// and the phase is pulled a fifth of the way towards the line through the observations (at
/// most a quarter period per burst), so timestamps stay continuous and evenly spaced.
///
/// Bounds, so a single bad read time cannot pull it: an observation further than
/// `outlierLimit` from the line is left out of the fit (three in a row mean the line is stale,
/// and the fit restarts from them); the period stays within ±`maxClockError` of nominal; and
/// the timeline re-anchors (jumps, which the caller treats as a gap) only when two bursts in a
/// row disagree with it by more than `reanchorThreshold`. Real data loss (FIFO overflow, chip
/// reset, bus failure) is the caller's to report: it calls `reset()`, which drops the phase and
/// the observations but keeps the period, since the oscillator is still the same.
public struct SampleTimeline: Sendable {
    /// A window's period, belonging to the middle of its observations.
    struct Estimate: Sendable {
        var time: Double
        var period: Double
    }

    /// Sample `index` was taken at or before `bound` (the read time) and less than `width`
    /// periods before it: 1 from the read time alone, less when a data-ready edge narrows it.
    /// `time` is the point estimate the line is fitted to.
    struct Observation: Sendable {
        var index: Double
        var bound: Double
        var width: Double
        var time: Double
    }

    /// Seconds of observations the fit uses: long enough for the reads to pin the period down,
    /// short enough that an oscillator drifting with temperature bends the line little.
    public static let window = 20.0
    static let maxObservations = 96
    /// The slope is trusted once the observations span this long.
    static let minimumSpan = 2.0
    /// A provisional period is taken from observations spanning this long.
    static let provisionalSpan = 0.4
    public static let maxClockError = 0.2
    static let phaseGain = 0.2
    static let restartAfterRejections = 3
    /// Seconds of window estimates the drift trend is taken from.
    static let trendSpan = 90.0
    /// Seconds between reading the clock and the FIFO count reaching the chip.
    static let readTolerance = 0.002

    public let nominalPeriod: Double
    /// The current estimate of the chip's sample period on the sensor clock.
    public private(set) var period: Double
    /// Disagreement (seconds) that re-anchors when it lasts two bursts.
    public let reanchorThreshold: Double
    /// Observations further than this from the line are left out of the fit.
    public let outlierLimit: Double
    /// True once the period has been measured (it survives `reset()`).
    public private(set) var hasEstimate = false

    private var nextTime: Double?
    private var nextIndex = 0
    private var observations: [Observation] = []
    private var rejected: [Observation] = []
    private var disagreedLastBurst = false
    private var averages: [Estimate] = []
    /// The period was measured before the last reset and is kept until the new observations
    /// span half a window.
    private var carriedOver = false

    public init(rate: Double) {
        nominalPeriod = 1 / rate
        period = nominalPeriod
        reanchorThreshold = max(0.25, 8 / rate)
        outlierLimit = max(0.04, 2 / rate)
    }

    /// The estimated sample rate of the chip, nil until it has been measured.
    public var estimatedRate: Double? { hasEstimate ? 1 / period : nil }

    /// Forget the phase after real data loss; the period estimate is kept.
    public mutating func reset() {
        nextTime = nil
        nextIndex = 0
        observations.removeAll(keepingCapacity: true)
        rejected.removeAll()
        disagreedLastBurst = false
        averages.removeAll()
        carriedOver = hasEstimate
    }

    /// Timestamps for `count` samples read at `readTime`; `lastSampleTime` is the newest
    /// sample's exact time when a data-ready edge gives it. Returns the times and whether the
    /// timeline had to re-anchor.
    public mutating func assign(count: Int, readTime: Double, lastSampleTime: Double? = nil)
        -> (times: [Double], reanchored: Bool)
    {
        guard count > 0 else { return ([], false) }
        // The newest sample came after readTime - period, or at the edge when one is known; a
        // sample may still have arrived between the edge and the FIFO count, so the edge
        // narrows the range (to [edge, readTime]) rather than replacing the read time.
        var bound = readTime
        var width = 1.0
        var observedLast = readTime - period / 2
        if let edge = lastSampleTime, edge > readTime - period {
            // The line is read just after the clock: an edge may be a hair later than readTime.
            bound = max(readTime, edge)
            width = (bound - edge) / period
            observedLast = edge
        }
        guard let next = nextTime else {
            return (anchor(count: count, bound: bound, width: width, observedLast: observedLast), false)
        }
        let newestIndex = Double(nextIndex + count - 1)
        let disagreement = observedLast - (next + Double(count - 1) * period)
        if abs(disagreement) > reanchorThreshold {
            if disagreedLastBurst {
                observations.removeAll(keepingCapacity: true)
                rejected.removeAll()
                disagreedLastBurst = false
                nextIndex = 0
                return (anchor(count: count, bound: bound, width: width, observedLast: observedLast), true)
            }
            // One late (or early) read: carry on with the timeline and see what the next says.
            disagreedLastBurst = true
            return (spaced(from: next, count: count), false)
        }
        disagreedLastBurst = false
        observe(Observation(index: newestIndex, bound: bound, width: width, time: observedLast))
        let expectedLast = next + Double(count - 1) * period
        let target = line(at: newestIndex) ?? observedLast
        let pull = max(-period / 4, min(period / 4, (target - expectedLast) * Self.phaseGain))
        return (spaced(from: next + pull, count: count), false)
    }

    // MARK: - Private

    private mutating func anchor(count: Int, bound: Double, width: Double, observedLast: Double) -> [Double] {
        nextIndex = 0
        observe(Observation(index: Double(count - 1), bound: bound, width: width, time: observedLast))
        return spaced(from: observedLast - Double(count - 1) * period, count: count)
    }

    private mutating func spaced(from first: Double, count: Int) -> [Double] {
        var times: [Double] = []
        times.reserveCapacity(count)
        for i in 0..<count { times.append(first + Double(i) * period) }
        nextTime = first + Double(count) * period
        nextIndex += count
        return times
    }

    private mutating func observe(_ observation: Observation) {
        if fitted, let predicted = line(at: observation.index), abs(observation.time - predicted) > outlierLimit {
            rejected.append(observation)
            guard rejected.count >= Self.restartAfterRejections else { return }
            // Several in a row disagree with the line: the line is what is wrong.
            observations = rejected
            rejected.removeAll()
        } else {
            rejected.removeAll()
            observations.append(observation)
        }
        if let newest = observations.last {
            let cut = observations.firstIndex { newest.time - $0.time <= Self.window } ?? 0
            let excess = max(cut, observations.count - Self.maxObservations)
            if excess > 0 { observations.removeFirst(excess) }
        }
        fitPeriod()
    }

    /// The period every pair of observations allows: between two reads the chip produced the
    /// samples counted, so p × (Δindex + width of the later) ≥ Δt and p × (Δindex − width of
    /// the earlier) ≤ Δt, each widened by `tolerance`. Read phases differ from burst to burst,
    /// so the interval narrows to well under the quantisation a regression on read times
    /// suffers. nil when the bounds contradict each other.
    private func periodInterval(tolerance: Double) -> (lower: Double, upper: Double)? {
        var lower = 0.0
        var upper = Double.infinity
        for j in observations.indices {
            let a = observations[j]
            for k in observations.indices where k > j {
                let b = observations[k]
                let steps = b.index - a.index
                let elapsed = b.bound - a.bound
                guard steps > 1 else { continue }
                lower = max(lower, (elapsed - tolerance) / (steps + b.width))
                upper = min(upper, (elapsed + tolerance) / (steps - a.width))
            }
        }
        guard lower > 0, upper.isFinite, lower <= upper else { return nil }
        return (lower, upper)
    }

    /// The middle of the interval at the read tolerance; when the observations contradict each
    /// other there (a drifting oscillator bends the line over the window, a read was stamped a
    /// little late), at the smallest tolerance that reconciles them, found by bisection up to
    /// `outlierLimit`: the period that keeps the worst disagreement smallest.
    private func feasiblePeriod() -> Double? {
        if let interval = periodInterval(tolerance: Self.readTolerance) { return (interval.lower + interval.upper) / 2 }
        guard var found = periodInterval(tolerance: outlierLimit) else { return nil }
        var low = Self.readTolerance
        var high = outlierLimit
        for _ in 0..<20 {
            let middle = (low + high) / 2
            if let interval = periodInterval(tolerance: middle) {
                found = interval
                high = middle
            } else {
                low = middle
            }
        }
        return (found.lower + found.upper) / 2
    }

    /// The window's period belongs to its middle; a drifting oscillator (warming up) has moved
    /// on since. The trend of the window estimates over the last `trendSpan` seconds (a
    /// regression on time: long, so the trend itself is quiet) carries it forward to the newest
    /// observation. Without drift the trend is about zero and so is the correction.
    private mutating func trendCorrected(_ average: Double) -> Double {
        guard let first = observations.first, let last = observations.last else { return average }
        let middle = (first.time + last.time) / 2
        averages.append(Estimate(time: middle, period: average))
        if let cut = averages.firstIndex(where: { middle - $0.time <= Self.trendSpan }), cut > 0 { averages.removeFirst(cut) }
        guard let oldest = averages.first, middle - oldest.time >= Self.trendSpan / 2 else { return average }
        guard let drift = Self.leastSquaresSlope(averages, x: \.time, y: \.period) else { return average }
        return average + drift * (last.time - middle)
    }

    /// Updates the period from the observations: provisional before they span `minimumSpan`,
    /// then the pairwise interval (trend-corrected), and a least-squares slope on centred
    /// values (indices and times are large, their spreads small) if even that finds no period.
    private mutating func fitPeriod() {
        let lower = nominalPeriod / (1 + Self.maxClockError)
        let upper = nominalPeriod / (1 - Self.maxClockError)
        if carriedOver {
            // A period measured before a reset is better than one from a few seconds after it.
            guard let first = observations.first, let last = observations.last,
                  last.time - first.time >= Self.window / 2 else { return }
            carriedOver = false
        }
        guard fitted else {
            // Until the span is long enough to trust, a rough period from the few reads there
            // are still beats the nominal one (a measured one, kept over a reset, beats both):
            // a chip 15 % fast would otherwise run the timeline off by more than the re-anchor
            // threshold within a few bursts.
            guard !hasEstimate, observations.count >= 2, let first = observations.first, let last = observations.last,
                  last.time - first.time >= Self.provisionalSpan,
                  let interval = periodInterval(tolerance: Self.readTolerance) ?? periodInterval(tolerance: outlierLimit)
            else { return }
            period = max(lower, min(upper, (interval.lower + interval.upper) / 2))
            return
        }
        if let feasible = feasiblePeriod() {
            period = max(lower, min(upper, trendCorrected(feasible)))
            hasEstimate = true
            return
        }
        guard let slope = Self.leastSquaresSlope(observations, x: \.index, y: \.time), slope.isFinite else { return }
        period = max(lower, min(upper, slope))
        hasEstimate = true
    }

    /// The least-squares slope of y over x (nil when x does not vary): the period from sample
    /// indices and read times, and the drift of the period estimates over time.
    private static func leastSquaresSlope<Points: Collection>(
        _ points: Points, x: (Points.Element) -> Double, y: (Points.Element) -> Double
    ) -> Double? {
        let n = Double(points.count)
        let meanX = points.reduce(0) { $0 + x($1) } / n
        let meanY = points.reduce(0) { $0 + y($1) } / n
        var sxx = 0.0, sxy = 0.0
        for point in points {
            sxx += (x(point) - meanX) * (x(point) - meanX)
            sxy += (x(point) - meanX) * (y(point) - meanY)
        }
        return sxx > 0 ? sxy / sxx : nil
    }

    /// The observations span enough time for their slope to be the period: only then can one
    /// be judged an outlier (before, the line may still have the nominal slope).
    private var fitted: Bool {
        guard observations.count >= 3, let first = observations.first, let last = observations.last else { return false }
        return last.time - first.time >= Self.minimumSpan
    }

    /// Where the observations put the sample with `index`: through their centre with the
    /// estimated period as slope; nil without observations.
    private func line(at index: Double) -> Double? {
        guard !observations.isEmpty else { return nil }
        let n = Double(observations.count)
        let meanIndex = observations.reduce(0) { $0 + $1.index } / n
        let meanTime = observations.reduce(0) { $0 + $1.time } / n
        return meanTime + (index - meanIndex) * period
    }
}
