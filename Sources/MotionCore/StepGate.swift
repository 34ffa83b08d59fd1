/// Decides which peak candidates are steps: only rhythmic, sustained gait counts. Candidates
/// wait until `confirmSteps` of them in a row have regular intervals; then all of them are
/// credited with their own times (late, not lost), and each further candidate that keeps the
/// rhythm is credited at once. A pause longer than a few periods ends the run.
struct StepGate: Sendable {
    static let capacity = 32

    private let parameters: DetectorParameters
    private var pending: [Double]
    private var pendingCount = 0
    private var scratch: [Double]
    private(set) var walking = false
    private(set) var period = 0.0
    private(set) var lastStep = 0.0
    private(set) var runStart = 0.0
    private(set) var runSteps = 0

    init(parameters: DetectorParameters) {
        self.parameters = parameters
        pending = [Double](repeating: 0, count: Self.capacity)
        scratch = [Double](repeating: 0, count: Self.capacity)
    }

    mutating func reset() {
        pendingCount = 0
        walking = false
        period = 0
        runSteps = 0
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
            if dt < p.minInterval { return }
            let multiple = (dt / period).rounded()
            if multiple == 2 && period >= p.fillMinPeriod && abs(dt - 2 * period) <= p.regularity * period {
                steps.append(lastStep + dt / 2)
                runSteps += 1
                dt /= 2
            }
            if abs(dt - period) <= p.regularity * period {
                period += p.periodGain * (dt - period)
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
        for i in 0..<intervalCount { scratch[i] = pending[first + i + 1] - pending[first + i] }
        let median = Self.upperMedian(&scratch, count: intervalCount)
        var regular = true
        for i in 0..<intervalCount where abs(pending[first + i + 1] - pending[first + i] - median) > p.regularity * median {
            regular = false
            break
        }
        if regular {
            for i in first..<pendingCount { steps.append(pending[i]) }
            walking = true
            period = median
            lastStep = t
            runStart = pending[first]
            runSteps = needed
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

    /// sorted(values)[count / 2], by insertion sort on a prefix of a scratch buffer.
    private static func upperMedian(_ values: inout [Double], count: Int) -> Double {
        if count <= 1 { return count == 1 ? values[0] : 0 }
        for i in 1..<count {
            let v = values[i]
            var j = i - 1
            while j >= 0 && values[j] > v {
                values[j + 1] = values[j]
                j -= 1
            }
            values[j + 1] = v
        }
        return values[count / 2]
    }
}
