/// What the user may configure; the activity classifier is the generated `MotionModelParameters`
/// (see docs/motion.md).
public struct MotionConfiguration: Sendable, Equatable {
    /// The wearer's height in metres; nil uses `StrideModel.defaultHeight`.
    public var userHeight: Double?
    public var detector: DetectorParameters
    /// The activity classifier: the generated one, or a fold model for cross-validation.
    public var model: MotionModel

    public init(userHeight: Double? = nil, detector: DetectorParameters = .fitted, model: MotionModel = .generated) {
        self.userHeight = userHeight
        self.detector = detector
        self.model = model
    }
}

/// The step detector's parameters (docs/motion.md says how each was chosen).
public struct DetectorParameters: Sendable, Equatable {
    /// Upper edge (Hz) of the gait band; faster content is vibration, not walking.
    public var lowpassHz: Double
    /// Time constant (s) of the baseline removed from the magnitude (gravity, slow drift).
    public var baselineSeconds: Double
    /// Smallest peak-to-valley swing (g) that can be a step.
    public var hysteresisFloor: Double
    /// Fraction of the running RMS a swing must exceed, so small wobbles between steps do not count.
    public var hysteresisRelative: Double
    public var rmsSeconds: Double
    /// Shortest step interval (s): 4 steps/s.
    public var minInterval: Double
    /// Longest pause (s) inside a walk before the gait counts as broken.
    public var maxInterval: Double
    /// Regular steps in a row, inside windows the classifier calls locomotion, before the bout
    /// is credited (all of its regular steps, with their own times).
    public var confirmSteps: Int
    /// Allowed relative deviation of an interval from the run's period.
    public var regularity: Double
    /// How fast the tracked period follows new intervals.
    public var periodGain: Double
    /// Credit one missed step in a double interval, but only at periods at least this long (s):
    /// below it a double interval is more likely a double peak than a missed step. 0.33 s
    /// (180 steps/min, the top of the walking range): a brisk wrist walk's gait band drifts
    /// between one peak per step and one per stride, and each stride interval holds a step.
    public var fillMinPeriod: Double
    /// While the classifier is not sure of locomotion (below the crediting threshold), this
    /// many intervals in a row that are neither about one step period nor two (each within
    /// `regularity`) end the run: rhythmic arm work (dressing, tying laces) keeps the loose
    /// rhythm a run tolerates at low locomotion, a walk keeps its period. 0 turns it off.
    public var maxIrregular: Int
    /// A run ends after this many periods without a peak.
    public var maxSkippedPeriods: Double
    /// Inside a run, a peak sooner than this fraction of the period after the last step is a
    /// double peak of that step, whatever the cadence (the fixed `minInterval` only covers 4 /s).
    /// 0.55: a slow pocket or purse walk shows heel strike and push-off as two peaks about half
    /// a period apart (0.4 counted ~1.2 peaks per step at ~80 steps/min).
    public var refractory: Double
    /// Before the first window has been classified, regular peaks at least this far apart (s)
    /// are strides, one peak per two steps (on the wrist the arm swing can dominate |a|); after
    /// it the window's step-lag periodicity decides (`StepGate.isStride`).
    public var strideInterval: Double
    /// Inside a run whose cadence the window shows, band maxima that clear this fraction of the
    /// peak hysteresis (weak peaks) about one period after the last step are steps
    /// (`StepGate.offerWeak`); 0 turns them off.
    public var weakHysteresis: Double
    /// A weak peak's swing must reach this share of the run's typical swing: the band at a stop
    /// still wobbles at the walk's rhythm for a moment, a tenth of the walk's swing.
    public var weakSwing: Double
    /// Allowed relative deviation of a weak peak's interval from the run's period.
    public var weakRegularity: Double
    /// Step-lag autocorrelation at which the window shows a cadence; 1 or more turns it off.
    public var cadenceCorrelation: Double
    /// Relative agreement of the window's step lag and dominant frequency with the run's period.
    public var cadenceTolerance: Double
    /// Upper edge (Hz) of the wide gait band whose peaks the gate reads while the cadence is
    /// brisk (`TempoSelector`); 0 turns it off (the 2.5 Hz band always).
    public var fastLowpassHz: Double
    /// Dominant frequency of |a| (Hz) at or above which the cadence is brisk (120 steps/min)...
    public var fastTempoHz: Double
    /// ...and at or below which it is not any more (the gap keeps the choice from flickering).
    public var slowTempoHz: Double
    /// Windows in a row that must agree before the band changes.
    public var tempoWindows: Int
    /// A run counted at this step period (s) or longer keeps the narrow band (<= 133 steps/min).
    public var slowRunPeriod: Double
    /// The brisk cadence also needs the 2.5 Hz band to repeat at the dominant period or twice it:
    /// step-lag autocorrelation at least this...
    public var tempoCorrelation: Double
    /// ...at a lag within this relative tolerance.
    public var tempoTolerance: Double

    public init(
        lowpassHz: Double, baselineSeconds: Double, hysteresisFloor: Double, hysteresisRelative: Double,
        rmsSeconds: Double, minInterval: Double, maxInterval: Double, confirmSteps: Int,
        regularity: Double, periodGain: Double, fillMinPeriod: Double, maxIrregular: Int,
        maxSkippedPeriods: Double, refractory: Double, strideInterval: Double,
        weakHysteresis: Double, weakSwing: Double, weakRegularity: Double, cadenceCorrelation: Double, cadenceTolerance: Double,
        fastLowpassHz: Double = 0, fastTempoHz: Double = 2.0, slowTempoHz: Double = 1.8, tempoWindows: Int = 2,
        slowRunPeriod: Double = 0.45, tempoCorrelation: Double = 0.5, tempoTolerance: Double = 0.15
    ) {
        self.lowpassHz = lowpassHz
        self.baselineSeconds = baselineSeconds
        self.hysteresisFloor = hysteresisFloor
        self.hysteresisRelative = hysteresisRelative
        self.rmsSeconds = rmsSeconds
        self.minInterval = minInterval
        self.maxInterval = maxInterval
        self.confirmSteps = min(max(confirmSteps, 2), StepGate.capacity)
        self.regularity = regularity
        self.periodGain = periodGain
        self.fillMinPeriod = fillMinPeriod
        self.maxIrregular = max(maxIrregular, 0)
        self.maxSkippedPeriods = maxSkippedPeriods
        self.refractory = refractory
        self.strideInterval = strideInterval
        self.weakHysteresis = weakHysteresis
        self.weakSwing = weakSwing
        self.weakRegularity = weakRegularity
        self.cadenceCorrelation = cadenceCorrelation
        self.cadenceTolerance = cadenceTolerance
        self.fastLowpassHz = fastLowpassHz
        self.fastTempoHz = fastTempoHz
        self.slowTempoHz = slowTempoHz
        self.tempoWindows = max(tempoWindows, 1)
        self.slowRunPeriod = slowRunPeriod
        self.tempoCorrelation = tempoCorrelation
        self.tempoTolerance = tempoTolerance
    }

    public static let fitted = DetectorParameters(
        lowpassHz: 2.5, baselineSeconds: 1.0, hysteresisFloor: 0.10, hysteresisRelative: 0.3,
        rmsSeconds: 2.0, minInterval: 0.25, maxInterval: 1.5, confirmSteps: 7,
        regularity: 0.35, periodGain: 0.2, fillMinPeriod: 0.33, maxIrregular: 2,
        maxSkippedPeriods: 3, refractory: 0.55, strideInterval: 0.9,
        weakHysteresis: 0.5, weakSwing: 0.3, weakRegularity: 0.25, cadenceCorrelation: 0.5, cadenceTolerance: 0.2,
        fastLowpassHz: 3.5, fastTempoHz: 2.0, slowTempoHz: 1.8, tempoWindows: 2, slowRunPeriod: 0.45,
        tempoCorrelation: 0.5, tempoTolerance: 0.15)
}
