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

/// One window's feature vector, as `stepctl features` writes it for the trainer.
public struct FeatureWindow: Sendable, Equatable {
    /// End of the 5 s window (s).
    public var end: Double
    public var magnitudeOnly: Bool
    public var values: [Double]

    public static var names: [String] { WindowFeatures.names }
    public static var magnitudeCount: Int { WindowFeatures.magnitudeCount }
    /// Seconds of samples a window reads (nothing shorter is ever classified).
    public static var seconds: Double { Double(WindowFeatures.windowLength) / WindowFeatures.rate }
}

/// The on-device motion core: samples in, steps, distance and activity out. Pure: the caller
/// supplies every sample with its own timestamp; nothing here reads a clock.
///
/// Pipeline: samples at any rate are averaged into 40 ms bins on their timestamps (a boxcar
/// anti-alias filter when the input is faster than 25 Hz, linear fill when slower), so the
/// rest runs at 25 Hz whatever the sensor does. Then |a| and the gait band filter with
/// hysteresis peak picking (step candidates); every second the features of the last 5 s of all
/// three axes go to the generated activity classifier, and the step gate credits the regular
/// candidates inside windows it calls locomotion. More than 1 s without samples is a gap:
/// filters restart, no step is bridged across it.
public struct MotionEngine: Sendable {
    public static let internalRate = 25.0
    static let gapSeconds = 1.0

    public let configuration: MotionConfiguration
    public let strideModel: StrideModel
    /// The 2.5 Hz gait band and its pickers: step candidates for the gate and the features.
    private var narrowBand: BandPeaks
    /// The wide band (`fastLowpassHz`), read by the gate instead while the cadence is brisk
    /// (`TempoSelector`); not fed when `fastLowpassHz` is 0.
    private var wideBand: BandPeaks
    private var tempo = TempoSelector()
    private var gate: StepGate
    private var classifier: ActivityClassifier
    private var started = false
    private var features = WindowFeatures()
    /// Only for `stepctl features`: every window's vector is kept here when set.
    var recordedWindows: [FeatureWindow]?

    // Resampler state: the open bin and the last emitted value.
    private var bin: Int64 = .min
    private var sumX = 0.0, sumY = 0.0, sumZ = 0.0
    private var binCount = 0
    private var lastBin: Int64 = .min
    private var lastX = 0.0, lastY = 0.0, lastZ = 0.0

    private var timestamps = TimestampSanitizer()
    private var credited: [Double] = []
    private var pendingChange: ActivityState?

    public private(set) var totalSteps = 0
    public private(set) var totalDistance = 0.0

    public init(configuration: MotionConfiguration = .init()) {
        self.configuration = configuration
        strideModel = StrideModel(height: configuration.userHeight)
        let detector = configuration.detector
        narrowBand = BandPeaks(parameters: detector, lowpassHz: detector.lowpassHz, sampleRate: Self.internalRate)
        wideBand = BandPeaks(parameters: detector, lowpassHz: detector.fastLowpassHz > 0 ? detector.fastLowpassHz : detector.lowpassHz,
                             sampleRate: Self.internalRate)
        gate = StepGate(parameters: configuration.detector)
        classifier = ActivityClassifier(start: 0, model: configuration.model)
        credited.reserveCapacity(64)
    }

    public var activity: ActivityState {
        classifier.state
    }

    /// Steps per second of the current walk; nil when not walking.
    public var cadence: Double? { gate.cadence }

    /// Seconds per metre of the current walk; nil when not walking.
    public var pace: Double? { cadence.flatMap { strideModel.pace(cadence: $0) } }

    /// Floors climbed need a barometer, which the boards do not have.
    public var floorsAvailable: Bool { false }

    /// Read by the credit-delay diagnosis (`GateHolds`, CreditDelay.swift), never by the pipeline.
    var gateForDiagnosis: StepGate { gate }
    var locomotionForDiagnosis: Double { classifier.locomotion }

    /// The sample-ingest entry point: every sample, in time order, with its sensor timestamp.
    public mutating func process(_ sample: AccelSample) -> MotionUpdate? {
        guard sample.t.isFinite, sample.x.isFinite, sample.y.isFinite, sample.z.isFinite else { return nil }
        // Small backward steps (burst boundaries) are absorbed; a real jump back still goes back.
        let t = timestamps.admit(sample.t)
        guard let b = timeBin(t, rate: Self.internalRate) else { return nil }
        // Created with the first sample: the first activity segment starts there.
        if !started {
            classifier = ActivityClassifier(start: t, model: configuration.model)
            started = true
        }
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
    /// credited: too few regular steps is not a walk. Input shorter than one window is judged
    /// as if the device came to rest after it (`settleShortInput`).
    public mutating func finish() -> MotionUpdate? {
        if binCount > 0 { closeBin() }
        binCount = 0
        settleShortInput()
        return takeUpdate()
    }

    /// Seconds of input (since the start or the last gap) below which `finish` leaves short
    /// input as it is: too little to hold a chain.
    static let shortInputMinimum = 2.0
    /// Seconds of rest `settleShortInput` adds beyond the first window.
    static let shortInputSettle = 5.0

    /// Input shorter than one window (a clip of just a 10-step bout at 120 steps/min lasts
    /// 5 s) never reaches the classifier, so its chain would be lost whatever it held
    /// (`stepbench accuracy`, "bouts recorded alone": 12 % of such clips' steps). A clip ends
    /// where its walk ends: the input is followed by the device at rest at its own mean level
    /// until the first window and `shortInputSettle` s more have been judged by the usual
    /// rules, and nothing after its last sample is credited or starts an activity.
    /// Three-axis input only: the |a|-only model tells arm work from walking by minutes of
    /// context a clip does not have (the non-walking recordings cut into 3 and 4.5 s clips:
    /// 0 false steps on three axes, 121 on the magnitude-only ones).
    private mutating func settleShortInput() {
        // The gate's ring holds every sample since the start or the last gap (up to 12 s), and
        // the first window comes with the `windowLength`-th: fewer held means none came yet.
        let held = gate.recentSamples.count
        guard lastBin != .min, Double(held) >= Self.shortInputMinimum * Self.internalRate,
              held < WindowFeatures.windowLength, !gate.recentSamples.isMagnitudeOnly(held) else { return }
        let rest = gate.recentSamples.mean(of: held)
        let end = (Double(lastBin) + 0.5) / Self.internalRate
        var change = pendingChange
        let restBins = Int64(WindowFeatures.windowLength - held) + Int64(Self.shortInputSettle * Self.internalRate)
        for k in 1...restBins {
            consume(x: rest.x, y: rest.y, z: rest.z, at: (Double(lastBin + k) + 0.5) / Self.internalRate)
            if let next = pendingChange, next.start <= end { change = next }
        }
        pendingChange = change
        credited.removeAll { $0 > end }
    }

    private mutating func restartDetector() {
        narrowBand.reset()
        wideBand.reset()
        tempo.reset()
        gate.reset()
        features.reset()
        classifier.resetWindow()
    }

    private mutating func closeBin() {
        let n = Double(binCount)
        let mx = sumX / n, my = sumY / n, mz = sumZ / n
        if lastBin != .min && bin - lastBin > 1 {
            if Double(bin - lastBin) > Self.gapSeconds * Self.internalRate {
                restartDetector()
            } else {
                let span = Double(bin - lastBin)
                var k = lastBin + 1
                while k < bin {
                    let w = Double(k - lastBin) / span
                    consume(x: lastX + (mx - lastX) * w, y: lastY + (my - lastY) * w, z: lastZ + (mz - lastZ) * w,
                            at: (Double(k) + 0.5) / Self.internalRate)
                    k += 1
                }
            }
        }
        consume(x: mx, y: my, z: mz, at: (Double(bin) + 0.5) / Self.internalRate)
        lastBin = bin
        lastX = mx
        lastY = my
        lastZ = mz
    }

    /// Locomotion probability at which candidates are credited, and below which a run ends.
    /// 0.72 rather than 0.65: with fold models (`stepbench accuracy --folds`) the held-out
    /// daily-life files reach 0.65-0.72 on rhythmic arm work far more often than held-out walks.
    static let locomotionOn = 0.72
    static let locomotionOff = 0.2
    /// Locomotion at which a long, steady chain is credited although the classifier is unsure
    /// (`StepGate.unsureFactor` times the regular candidates): 0.5 and 0.55 cost in-sample
    /// daily life false steps (12.5 Hz resampling, -3 % drift), 0.65 leaves the slowest walk.
    static let locomotionUnsure = 0.6

    @inline(__always)
    private mutating func consume(x: Double, y: Double, z: Double, at t: Double) {
        let magnitude = (x * x + y * y + z * z).squareRoot()
        let detector = configuration.detector
        let inLocomotion = classifier.locomotion >= Self.locomotionOn
        let narrow = narrowBand.feed(magnitude, at: t)
        // The features always see the 2.5 Hz band and its peaks; the gate the band the tempo picked.
        if let peak = narrow.peak { features.notePeak(at: peak.t, swing: peak.swing) }
        if detector.fastLowpassHz > 0 {
            let wide = wideBand.feed(magnitude, at: t)
            offer(tempo.fast ? wide : narrow, locomotion: inLocomotion)
        } else {
            offer(narrow, locomotion: inLocomotion)
        }
        gate.advance(to: t)
        gate.noteSample(x: x, y: y, z: z, magnitude: magnitude, at: t)
        guard features.push(x: x, y: y, z: z, magnitude: magnitude, band: narrow.band, at: t) else { return }
        if recordedWindows != nil {
            recordedWindows?.append(FeatureWindow(end: t, magnitudeOnly: features.magnitudeOnly, values: features.values))
        }
        gate.observe(StepGate.WindowCadence(features: features.values, magnitudeOnly: features.magnitudeOnly), end: t)
        if detector.fastLowpassHz > 0, let window = gate.window {
            let wasFast = tempo.fast
            tempo.update(window, runPeriod: gate.walking ? gate.period : 0, runShowsGait: gate.runShowsGait, parameters: detector)
            // Gate v2.15-C: a waiting chain becomes the wide band's own (`BandChain`).
            if tempo.fast && !wasFast && !features.magnitudeOnly { gate.adoptChain(wideBand.chain) }
        }
        if let change = classifier.feed(features, gait: gate) { pendingChange = change }
        gate.noteActivity(classifier.state.kind)
        gate.vehicleTime = classifier.lastVehicleTime
        let stepping = gate.walking || gate.waitingCandidates >= VehicleEvidence.chainLimit
        gate.vehicleEvidence.observe(smoothed: classifier.smoothed, values: features.values, magnitudeOnly: features.magnitudeOnly,
                                     noiseFloor: classifier.sensorNoiseFloor ?? 0, stepping: stepping, at: t)
        gate.roadEvidence.observe(values: features.values, magnitudeOnly: features.magnitudeOnly,
                                  noiseFloor: classifier.sensorNoiseFloor ?? 0, stepping: stepping, at: t)
        let locomotion = classifier.locomotion
        gate.deskMinute.observe(values: features.values, magnitudeOnly: features.magnitudeOnly, locomotion: locomotion)
        gate.creditDeskBoutAtRest(resting: !MovingMagnitude.isMoving(features.values), magnitudeOnly: features.magnitudeOnly, end: t,
                                  steps: &credited)
        let windowStart = t - Double(WindowFeatures.windowLength) / Self.internalRate
        if locomotion >= Self.locomotionOn {
            gate.locomotionConfirmed(since: windowStart, steps: &credited)
        } else if locomotion >= Self.locomotionUnsure {
            gate.locomotionConfirmed(since: windowStart, unsure: true, steps: &credited)
        } else if locomotion >= Self.locomotionOff {
            // A run goes on down to this locomotion; a long chain at the cadence the window shows
            // may start one (the classifier held out gives brisk in-hand walks 0.2-0.5).
            gate.locomotionConfirmed(since: windowStart, faint: true, steps: &credited)
        } else if gate.walking {
            gate.endRun()
        }
        gate.noteWindow(rejected: locomotion < Self.locomotionOff, start: windowStart, end: t)
    }

    @inline(__always)
    private mutating func offer(_ sample: BandPeaks.Sample, locomotion: Bool) {
        if let peak = sample.peak { gate.offer(peak.t, swing: peak.swing, locomotion: locomotion, steps: &credited) }
        if let weak = sample.weak { gate.offerWeak(weak.t, swing: weak.swing, locomotion: locomotion, steps: &credited) }
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
