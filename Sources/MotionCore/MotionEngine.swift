import StepdModel

/// What one call to `MotionEngine.process` produced.
public struct MotionUpdate: Sendable, Equatable {
    /// Credited steps, oldest first, in sample seconds; steps confirmed late carry their own
    /// (earlier) times.
    public var stepTimes: [Double]
    /// Metres added by these steps.
    public var distance: Double
    public var activityChange: ActivityState?

    public init(stepTimes: [Double], distance: Double, activityChange: ActivityState?) {
        self.stepTimes = stepTimes
        self.distance = distance
        self.activityChange = activityChange
    }
}

/// The on-device motion core: samples in, steps, distance and activity out. Pure: the caller
/// supplies every sample with its own timestamp; nothing here reads a clock.
///
/// Pipeline: samples at any rate are averaged into 40 ms bins on their timestamps (a boxcar
/// anti-alias filter when the input is faster than 25 Hz, linear fill when slower), so the
/// rest runs at 25 Hz whatever the sensor does. Then |a| (orientation-free), the gait band
/// filter, hysteresis peak picking, the step gate (only rhythmic sustained gait counts) and
/// the activity classifier. More than 1 s without samples is a gap: filters restart, no step
/// is bridged across it.
public struct MotionEngine: Sendable {
    public static let internalRate = 25.0
    static let gapSeconds = 1.0

    public let configuration: MotionConfiguration
    public let strideModel: StrideModel
    private var filter: GaitFilter
    private var peaks = PeakPicker()
    private var gate: StepGate
    private var classifier: ActivityClassifier?

    // Resampler state: the open bin and the last emitted value.
    private var bin: Int64 = .min
    private var sumX = 0.0, sumY = 0.0, sumZ = 0.0
    private var binCount = 0
    private var lastBin: Int64 = .min
    private var lastMagnitude = 0.0

    private var timestamps = TimestampSanitizer()
    private var credited: [Double] = []
    private var pendingChange: ActivityState?

    public private(set) var totalSteps = 0
    public private(set) var totalDistance = 0.0

    public init(configuration: MotionConfiguration = .init()) {
        self.configuration = configuration
        strideModel = StrideModel(height: configuration.userHeight)
        filter = GaitFilter(parameters: configuration.detector, sampleRate: Self.internalRate)
        gate = StepGate(parameters: configuration.detector)
        credited.reserveCapacity(64)
    }

    public var activity: ActivityState {
        classifier?.state ?? ActivityState(kind: .unknown, confidence: .low, start: 0)
    }

    /// The classifier's vibration level (g): median over 10 s of each second's deviation of |a|.
    public var vibrationLevel: Double { classifier?.level ?? 0 }

    /// Steps per second of the current walk; nil when not walking.
    public var cadence: Double? { gate.cadence }

    /// Seconds per metre of the current walk; nil when not walking.
    public var pace: Double? { cadence.flatMap { strideModel.pace(cadence: $0) } }

    /// Floors climbed need a barometer, which the boards do not have.
    public var floorsAvailable: Bool { false }

    public mutating func process(_ sample: AccelSample) -> MotionUpdate? {
        guard sample.t.isFinite, sample.x.isFinite, sample.y.isFinite, sample.z.isFinite else { return nil }
        // Small backward steps (burst boundaries) are absorbed; a real jump back still goes back.
        let t = timestamps.admit(sample.t)
        guard let b = timeBin(t, rate: Self.internalRate) else { return nil }
        // Created with the first sample so it sees every internal sample (as the Python model).
        if classifier == nil { classifier = ActivityClassifier(start: t, parameters: configuration.activity) }
        if b == bin {
            sumX += sample.x
            sumY += sample.y
            sumZ += sample.z
            binCount += 1
            return nil
        }
        if binCount > 0 {
            if b < bin {
                // The clock went backwards: a discontinuity, not data to sort.
                markGap()
            } else {
                closeBin()
            }
        }
        bin = b
        sumX = sample.x
        sumY = sample.y
        sumZ = sample.z
        binCount = 1
        return takeUpdate()
    }

    /// A discontinuity in the input (sensor reset, FIFO overflow): pending candidates are
    /// dropped and filters restart; nothing is bridged across it.
    public mutating func markGap() {
        timestamps.reset()
        binCount = 0
        bin = .min
        lastBin = .min
        restartDetector()
    }

    /// End of input: closes the open bin. Steps still waiting for confirmation are not
    /// credited: too few regular steps is not a walk.
    public mutating func finish() -> MotionUpdate? {
        if binCount > 0 { closeBin() }
        binCount = 0
        return takeUpdate()
    }

    private mutating func restartDetector() {
        filter.reset()
        peaks.reset()
        gate.reset()
        classifier?.resetWindow()
    }

    private mutating func closeBin() {
        let n = Double(binCount)
        let mx = sumX / n, my = sumY / n, mz = sumZ / n
        let magnitude = (mx * mx + my * my + mz * mz).squareRoot()
        if lastBin != .min && bin - lastBin > 1 {
            if Double(bin - lastBin) > Self.gapSeconds * Self.internalRate {
                restartDetector()
            } else {
                let span = Double(bin - lastBin)
                var k = lastBin + 1
                while k < bin {
                    let w = Double(k - lastBin) / span
                    consume(magnitude: lastMagnitude + (magnitude - lastMagnitude) * w, at: (Double(k) + 0.5) / Self.internalRate)
                    k += 1
                }
            }
        }
        consume(magnitude: magnitude, at: (Double(bin) + 0.5) / Self.internalRate)
        lastBin = bin
        lastMagnitude = magnitude
    }

    @inline(__always)
    private mutating func consume(magnitude: Double, at t: Double) {
        let band = filter(magnitude)
        let detector = configuration.detector
        let h = max(detector.hysteresisFloor, detector.hysteresisRelative * filter.meanSquare.squareRoot())
        let inVehicle = classifier?.state.kind == .automotive
        if let peak = peaks.feed(band, at: t, hysteresis: h) {
            gate.offer(peak, inVehicle: inVehicle, steps: &credited)
        }
        gate.advance(to: t)
        if let change = classifier?.feed(magnitude: magnitude, at: t, gait: gate) {
            pendingChange = change
        }
    }

    private mutating func takeUpdate() -> MotionUpdate? {
        guard !credited.isEmpty || pendingChange != nil else { return nil }
        let distance = credited.isEmpty ? 0 : Double(credited.count) * strideModel.stepLength(cadence: gate.cadence ?? 1.8)
        let update = MotionUpdate(stepTimes: credited, distance: distance, activityChange: pendingChange)
        totalSteps += credited.count
        totalDistance += distance
        credited.removeAll(keepingCapacity: true)
        pendingChange = nil
        return update
    }
}
