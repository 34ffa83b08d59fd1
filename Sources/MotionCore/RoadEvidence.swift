import Glibc

/// Model-free evidence of a road, for the step gate's drive context (gate v2.17-V).
///
/// Why: the drive context (`StepGate.afterDrive`: a chain needs twice the regular candidates)
/// opens on the activity state or the model's own automotive lead (`VehicleEvidence`). A model
/// that has never seen a car (the Bangle drives held out by activity) leads with unknown through
/// the whole drive, so neither opens, and steering gives 7-regular-peak chains the model calls
/// walking at 0.9: 26 false steps in 0.79 h (33 per still/driving hour).
/// What a road does without any model: the wrist vibrates above its sensor's noise (a road
/// window, `ActivityClassifier.roadLevel`, also raised on a noisy sensor) while the hand, on a
/// wheel or in a lap, barely moves across gravity (`horizontalLimit`), and no step chain forms.
/// A walk's pauses are arm work: a hand that vibrates by 20 mg swings it across gravity by far
/// more (`bangle-hughb-walk-6605` stops and turns its wrist at 300-770 mg).
struct RoadEvidence {
    /// Windows (one a second) over which the evidence is counted: two minutes.
    static let span = 120
    /// Road windows with a quiet hand among the last `span` that open the drive context.
    static let onsetWindows = 18
    /// Movement across gravity (`horizontal_rms_log`, g) below which a vibrating hand is quiet.
    static let horizontalLimit = 0.25

    private static let vibrationFeature = ActivityClassifier.vibrationFeature
    private static let horizontalFeature = NamedFeature("horizontal_rms_log")

    private var windows = RecentShare(span: span)
    /// The end of the last window at which the evidence held.
    private(set) var lastTime: Double?
    /// Whether `onsetWindows` of the last `span` windows were roads under a quiet hand.
    var isOpen: Bool { windows.count >= Self.onsetWindows }

    /// Whether one window is a road under a quiet hand: three axes, vibration at a road's level
    /// above the sensor's noise floor (g), movement across gravity below `horizontalLimit`.
    static func isQuietRoad(_ values: [Double], magnitudeOnly: Bool, noiseFloor: Double) -> Bool {
        guard !magnitudeOnly, let vibration = vibrationFeature.value(in: values),
              let horizontal = horizontalFeature.value(in: values) else { return false }
        return vibration >= log10(ActivityClassifier.roadLevel(noiseFloor: noiseFloor)) && horizontal < log10(horizontalLimit)
    }

    /// One window; `stepping`: the gate has a credited run or a chain of `VehicleEvidence.chainLimit`
    /// candidates waiting (a walk is no road, whatever it vibrates).
    mutating func observe(values: [Double], magnitudeOnly: Bool, noiseFloor: Double, stepping: Bool, at t: Double) {
        windows.note(!stepping && Self.isQuietRoad(values, magnitudeOnly: magnitudeOnly, noiseFloor: noiseFloor))
        if isOpen { lastTime = t }
    }

    mutating func reset() {
        windows.clear()
        lastTime = nil
    }
}
