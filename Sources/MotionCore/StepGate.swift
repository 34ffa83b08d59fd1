/// Decides which peak candidates are steps: only rhythmic, sustained gait counts. Candidates
/// wait until `confirmSteps` of them in a row have regular intervals; then all of them are
/// credited with their own times (late, not lost), and each further candidate that keeps the
/// rhythm is credited at once. A pause longer than a few periods ends the run.
struct StepGate: Sendable {
    static let capacity = 32

    private let parameters: DetectorParameters
    private var pending: [Double]
    private var pendingCount = 0
    private(set) var walking = false
    private(set) var period = 0.0
    private var lastInterval = 0.0
    private(set) var lastStep = 0.0
    private(set) var runStart = 0.0
    private(set) var runSteps = 0
    /// The run's peaks come one per stride (two steps): on the wrist the arm swing can
    /// dominate |a|. `period` is still the step period; double intervals are expected.
    private(set) var strideRun = false

    init(parameters: DetectorParameters) {
        self.parameters = parameters
        pending = [Double](repeating: 0, count: Self.capacity)
    }

    mutating func reset() {
        pendingCount = 0
        walking = false
        period = 0
        lastInterval = 0
        runSteps = 0
        strideRun = false
    }

    /// Cadence of the current run in steps per second, nil outside a run.
    var cadence: Double? { walking && period > 0 ? 1 / period : nil }

    /// Ends the run when the walker has stopped (called for every internal sample).
    mutating func advance(to t: Double) {
        guard walking else { return }
        let limit = max(parameters.maxInterval, (parameters.maxSkippedPeriods + parameters.regularity) * period)
        if t - lastStep > limit {
            walking = false
            pendingCount = 0
            runSteps = 0
        }
    }

    /// Offers a peak at time `t`; credited step times are appended to `steps`.
    mutating func offer(_ t: Double, inVehicle: Bool, steps: inout [Double]) {
        let p = parameters
        if walking {
            var dt = t - lastStep
            // A second peak this soon after a step is a double peak of the same step.
            if dt < max(p.minInterval, p.refractory * period) { return }
            let multiple = (dt / period).rounded()
            if multiple == 2 && (period >= p.fillMinPeriod || strideRun) && abs(dt - 2 * period) <= p.regularity * period {
                steps.append(lastStep + dt / 2)
                runSteps += 1
                dt /= 2
            }
            // The period follows the mean of the last two intervals (half a stride), so a
            // lopsided gait (phone in one pocket: short, long, short, ...) does not drag it
            // towards the short interval and make every long one look like a missed step.
            let half = (dt + lastInterval) / 2
            lastInterval = dt
            if abs(half - period) <= p.regularity * period {
                period += p.periodGain * (half - period)
            }
            // The run drifted to stride intervals (the arm swing took over |a|): keep tracking
            // the step period, so every double interval credits the step in between.
            if period >= p.strideInterval {
                period /= 2
                lastInterval /= 2
                strideRun = true
            }
            steps.append(t)
            runSteps += 1
            lastStep = t
            return
        }
        if pendingCount > 0 {
            let dt = t - pending[pendingCount - 1]
            if dt < p.minInterval { return }
            if dt > p.maxInterval { pendingCount = 0 }
        }
        if pendingCount == Self.capacity { dropOldest(keeping: Self.capacity - 1) }
        pending[pendingCount] = t
        pendingCount += 1
        let needed = inVehicle ? p.confirmStepsInVehicle : p.confirmSteps
        guard pendingCount >= needed else { return }
        let first = pendingCount - needed
        let intervalCount = needed - 1
        let mean = (t - pending[first]) / Double(intervalCount)
        // Regular: every half stride (mean of two neighbouring intervals) within the tolerance
        // of the mean interval, and no single interval beyond twice the tolerance, so a
        // lopsided gait (short, long, short, ...) confirms like a symmetric one.
        var regular = true
        for i in 0..<intervalCount {
            let interval = pending[first + i + 1] - pending[first + i]
            if abs(interval - mean) > 2 * p.regularity * mean {
                regular = false
                break
            }
            if i > 0 {
                let previous = pending[first + i] - pending[first + i - 1]
                if abs((interval + previous) / 2 - mean) > p.regularity * mean {
                    regular = false
                    break
                }
            }
        }
        if regular {
            walking = true
            period = mean
            lastInterval = t - pending[pendingCount - 2]
            runSteps = needed
            strideRun = mean >= p.strideInterval
            if strideRun {
                // Peaks a stride apart (one per two steps): each interval holds one more
                // step, credited at its middle.
                for i in first..<(pendingCount - 1) {
                    steps.append(pending[i])
                    steps.append((pending[i] + pending[i + 1]) / 2)
                }
                steps.append(t)
                period /= 2
                lastInterval /= 2
                runSteps = 2 * needed - 1
            } else {
                for i in first..<pendingCount { steps.append(pending[i]) }
            }
            lastStep = t
            runStart = pending[first]
            pendingCount = 0
        } else {
            dropOldest(keeping: needed - 1)
        }
    }

    private mutating func dropOldest(keeping keep: Int) {
        guard pendingCount > keep else { return }
        let shift = pendingCount - keep
        for i in 0..<keep { pending[i] = pending[i + shift] }
        pendingCount = keep
    }
}
