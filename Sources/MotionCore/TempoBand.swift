/// Which gait band the step gate reads its peaks from: the 2.5 Hz band, or a wider one
/// (`DetectorParameters.fastLowpassHz`) once the windows show a brisk cadence.
///
/// Why two: at ~150 steps/min a step is a 2.5 Hz wave, right at the 2.5 Hz band's edge, where it
/// is attenuated and its peaks sink under the hysteresis (and on the wrist the arm swing at half
/// that frequency takes over the band: one peak per stride). A wider band everywhere lets slow
/// walks show heel strike and push-off as two peaks (docs/motion.md, "Tempo and model size":
/// 3.0 Hz fixed ~150 but broke ~80). So the wide band is read only while the cadence is brisk.
///
/// The cadence is the window's dominant frequency of |a| (0.6-4 Hz, not low-passed, so the band
/// edge does not hide it). It must hold for `tempoWindows` windows in a row before the choice
/// changes, with a gap between the two thresholds, so the choice does not flicker; and a run the
/// gate counts at a slow step period keeps the narrow band whatever the spectrum says (a slow
/// pocket walk's |a| can peak at twice its cadence, its heel strike and push-off). Inside a
/// magnitude-only run at a brisk period that has shown the gait the spectrum alone is enough, and
/// the band so taken is left when the run ends (gate v2.22-B, `BriskMagnitudeRun`).
struct TempoSelector: Sendable {
    private(set) var fast = false
    private var streak = 0
    /// The wide band was taken inside a proven brisk |a| run without the band's repeat
    /// (`BriskMagnitudeRun`): it is left when that run ends.
    private(set) var heldByRun = false

    mutating func reset() {
        fast = false
        streak = 0
        heldByRun = false
    }

    /// One window's rhythm, the gate's step period (s; 0 outside a run) and whether the run's band
    /// has shown the gait (`StepGate.runShowsGait`).
    mutating func update(_ window: StepGate.WindowCadence, runPeriod: Double, runShowsGait: Bool = false, parameters p: DetectorParameters) {
        let slowRun = runPeriod >= p.slowRunPeriod
        let dominant = window.dominantFrequency
        let repeats = Self.bandRepeats(window, parameters: p)
        // Gate v2.22-B: inside a proven brisk |a| run the spectrum alone is enough.
        let provenRun = !repeats && BriskMagnitudeRun.takesWideBand(window, runPeriod: runPeriod, runShowsGait: runShowsGait)
        let wantsFast = fast ? dominant > p.slowTempoHz && !slowRun && (!heldByRun || runPeriod > 0)
            : dominant >= p.fastTempoHz && !slowRun && (repeats || provenRun)
        guard wantsFast != fast else {
            streak = 0
            return
        }
        streak += 1
        if streak >= p.tempoWindows {
            heldByRun = wantsFast && provenRun
            fast = wantsFast
            streak = 0
        }
    }

    /// Whether the 2.5 Hz band repeats at the dominant period or twice it (a step, or a stride
    /// on the wrist), clearly: a slow pocket walk whose |a| peaks at a harmonic of its cadence
    /// repeats at neither (its band repeats at the step or stride, 1.5-3 dominant periods).
    static func bandRepeats(_ window: StepGate.WindowCadence, parameters p: DetectorParameters) -> Bool {
        guard window.dominantFrequency > 0, window.stepCorrelation >= p.tempoCorrelation else { return false }
        return window.lagMatches(1 / window.dominantFrequency, tolerance: p.tempoTolerance)
    }
}

/// One gait band and its two peak pickers: step candidates at the full hysteresis and weak peaks
/// at `weakHysteresis` of it (`StepGate.offerWeak`). The engine keeps two, the 2.5 Hz band and
/// the wide one, fed with every sample, so either is current when the tempo switches.
struct BandPeaks: Sendable {
    private var filter: GaitFilter
    private var peaks = PeakPicker()
    private var weakPeaks = PeakPicker()
    /// The chain these peaks would have given the gate, adopted when the tempo switches to this band.
    private(set) var chain: BandChain
    private let hysteresisFloor: Double
    private let hysteresisRelative: Double
    private let weakHysteresis: Double

    /// What one sample gave: the band's value, a confirmed peak and a confirmed weak peak (times
    /// and swings in g), if any.
    struct Sample {
        var band: Double
        var peak: (t: Double, swing: Double)?
        var weak: (t: Double, swing: Double)?
    }

    init(parameters: DetectorParameters, lowpassHz: Double, sampleRate: Double) {
        var band = parameters
        band.lowpassHz = lowpassHz
        filter = GaitFilter(parameters: band, sampleRate: sampleRate)
        chain = BandChain(parameters: parameters)
        hysteresisFloor = parameters.hysteresisFloor
        hysteresisRelative = parameters.hysteresisRelative
        weakHysteresis = parameters.weakHysteresis
    }

    mutating func reset() {
        filter.reset()
        peaks.reset()
        weakPeaks.reset()
        chain.reset()
    }

    @inline(__always) mutating func feed(_ magnitude: Double, at t: Double) -> Sample {
        let band = filter(magnitude)
        let h = max(hysteresisFloor, hysteresisRelative * filter.meanSquare.squareRoot())
        var sample = Sample(band: band)
        if let peak = peaks.feed(band, at: t, hysteresis: h) {
            sample.peak = (peak, peaks.lastSwing)
            chain.note(peak)
        }
        if weakHysteresis > 0, let weak = weakPeaks.feed(band, at: t, hysteresis: weakHysteresis * h) {
            sample.weak = (weak, weakPeaks.lastSwing)
        }
        return sample
    }
}
