import Glibc
import StepdModel

/// CoreMotion-style activity from the generated classifier (`MotionModel`) over 5 s windows
/// taken every second, with the hysteresis that keeps the state from flickering.
///
/// The window probabilities are smoothed (half of each new window, half of the past), and the
/// state moves to the most probable class once it has led for a few windows: 2 for walking and
/// running (bouts are short), 3 for stationary, 4 for other movement, 6 for cycling and 30 for
/// automotive (a car is a long state; a few vehicle-like seconds at a desk are not a drive).
///
/// Three decisions are not the model's alone:
/// - A window the model calls walking is running when |a| swings as only running makes it
///   (see `isRunning`).
/// - A window that barely moves (see `isStill`) is stationary when the model's lead is other
///   movement or automotive: neither shows no vibration and no turn of the gravity direction.
/// - A window held steadily in a hand (see `isSteadyHand`) is stationary where the model's lead
///   is unknown.
/// - A window tilted slowly at rest-level vibration (see `isQuietTilt`) is stationary where the
///   model's lead is unknown, but holds no drive's onset evidence.
/// - On a noisy sensor a window tilted slowly within the sensor's noise (see `isNoiseLevelTilt`) is
///   stationary where the model leads automotive, outside a walk or a drive, and still counts as
///   automotive evidence (see `readsNoiseLevelTiltAsRest`).
/// - Walking and running need steps (see `hasSteps`): outside a vehicle the state does not
///   become walking or running while the step gate has neither a confirmed run nor a credited
///   step within `steplessSeconds`, whatever the model leads with.
/// - Automotive evidence accumulates across stops: a car at a light or on a smooth road looks
///   still, so stationary windows (three-axis, at most 3 minutes in a row) neither count nor reset
///   the 30 automotive windows of the onset; any other class, a magnitude-only stationary window
///   (|a| alone cannot tell a forearm resting on a desk from a hand on a wheel) or a gap does.
///   The automotive state then starts at the first automotive window of the evidence.
/// - A forearm on a desk is not a car (see `isQuietTurn`): while half of the last minute's windows
///   turn the gravity direction at rest-level vibration, the state leaves automotive, and while a
///   fifth of them do it does not become automotive.
/// - A meal is not a car (see `isWideTurn`): while half of the last minute's windows turn the
///   wrist by 46 degrees or more, the state leaves automotive, and while 30 % do it does not
///   become automotive.
/// - A car sways (see `isSway`): the state does not become automotive while fewer than 6 of the
///   last minute's windows move across gravity by 0.1 g.
/// - A road shakes a car (see `isRoad`): the state does not become automotive while fewer than
///   12 of the last minute's windows vibrate by 20 mg with a tenth of it along gravity.
/// - Steering is no walk off the car (see `roadHoldsEvidence`): while the step gate's model-free road
///   evidence is open, a walking lead without steps neither counts nor resets the automotive evidence.
/// - On a noisy sensor the road under a quiet hand meets the road onset (see `roadOnsetMet`): the step
///   gate's model-free road evidence, open while the road level is raised by the sensor's noise,
///   stands in for the last minute's road windows.
/// - A drive's onset is driving (see `AutomotiveEvidenceSpan`): the state does not become automotive
///   while its last 30 automotive windows span more than 2 minutes (stops hold the count, not forever).
///
/// While automotive, a still device stays automotive for 3 minutes (stops at lights), other
/// movement needs 30 windows, a three-axis walking lead without steps 15 (`steplessVehicleExit`),
/// and 90 s without an automotive-led window end it (`vehicleSilence`); a gap in the data ends it. Confidence: the smoothed probability of the state's class, high
/// from 0.8, medium from 0.55 (at least medium for a window a rule decided). The rules change the
/// decision only, never the smoothed probabilities: the step gate's locomotion stays the model's.
struct ActivityClassifier: Sendable {
    /// What the hysteresis reads of one window besides the model's probabilities.
    struct Window: Sendable {
        var end: Double
        var magnitudeOnly: Bool
        var still: Bool
        var running = false
        /// The gravity direction turns at rest-level vibration (`isQuietTurn`).
        var quietTurn = false
        /// The gravity direction turns by tens of degrees within the window (`isWideTurn`).
        var wideTurn = false
        /// The device moves across gravity as a car's body sways it (`isSway`); magnitude-only
        /// windows cannot tell and count as swaying.
        var sway = true
        /// The device vibrates along gravity as a road shakes a car (`isRoad`); magnitude-only
        /// windows cannot tell and count as road.
        var road = true
        /// A device held steadily in a hand (`isSteadyHand`).
        var steadyHand = false
        /// A device tilted slowly at rest-level vibration (`isQuietTilt`).
        var quietTilt = false
        /// The step gate's model-free road evidence was open at the previous window
        /// (`RoadEvidence.isOpen`; see `roadHoldsEvidence`).
        var roadOpen = false
        /// A device tilted slowly within a noisy sensor's own noise (`isNoiseLevelTilt`).
        var noiseLevelTilt = false

        /// Time of the window's first sample.
        var start: Double { end - Double(WindowFeatures.windowLength) / WindowFeatures.rate }
    }

    /// What the hysteresis reads of the step gate (where a walk started, its last step).
    struct Gait: Sendable {
        var walking: Bool
        var runStart: Double
        var lastStep: Double

        init(walking: Bool, runStart: Double, lastStep: Double) {
            self.walking = walking
            self.runStart = runStart
            self.lastStep = lastStep
        }

        init(_ gate: StepGate) {
            self.init(walking: gate.walking, runStart: gate.runStart, lastStep: gate.lastStep)
        }
    }

    /// Automotive windows (stops held) before the state becomes automotive.
    static let automotiveOnset = 30
    /// How long a stop may hold the automotive evidence, and how long a still device stays
    /// automotive (a red light, a traffic jam).
    static let vehicleStop = 180.0
    /// A still window: the median 1 s deviation of |a| below 10 mg. Road vibration keeps a device
    /// in a moving vehicle above it (the drives' automotive windows: 90 % above about 20 mg), while a
    /// device at rest shows its noise (1-5 mg in the still recordings and clips; 8-bit LIS3DH
    /// quantisation about 5 mg).
    static let stillVibration = 0.01
    /// ... and the gravity direction turning less than 0.05 rad (3 degrees) between the window's
    /// halves and between any 1 s mean and the window's mean: a moving arm or a turning car
    /// turns it.
    static let stillAngle = 0.05

    /// A running window: the deviation of |a| over the window at least 0.7 g, at 2.5 step
    /// candidates a second (150 steps/min) or more. Running has a flight phase in every step:
    /// |a| falls towards 0 g in the air and reaches 2-3 g at landing, so it deviates by about
    /// 1 g (the running clips: 90 % of windows above 0.9 g, 385 of 389 past both limits);
    /// walking keeps a foot on the ground and |a| within about 0.5 g of 1 g (90 % of walking
    /// windows below 0.55 g; none of the 16,693 walking windows of the recordings and clips past
    /// both limits). A walk played faster keeps its amplitude, so it stays walking.
    /// A quiet turn: a three-axis window whose vibration is below `stillVibration` while its
    /// gravity direction turns (not `isSteady`): a hand that moves without road vibration. A
    /// moving vehicle keeps its device vibrating (the Bangle drives: 4 % of windows quiet turns,
    /// at most 38 % of any minute, also a stop with the hand on the wheel); a forearm on a desk,
    /// typing or on the mouse, turns at its sensor's noise (`bangle-hughb-work-0`: 29 % of its
    /// windows, half or more of a minute in 13 % of its time). Over the last `quietTurnSpan`
    /// windows, a share of `quietTurnExit` leaves automotive and a share of `quietTurnOnset`
    /// withholds its onset (the evidence is kept, not reset). The absolute limit, not the noise
    /// floor: a clip that starts in a moving car takes the road as its floor.
    static let quietTurnSpan = 60
    static let quietTurnExit = 0.5
    static let quietTurnOnset = 0.2

    /// A wide turn: a three-axis window whose gravity direction turns by `wideTurnAngle` (0.8 rad,
    /// 46 degrees) or more, between its halves or between a 1 s mean and the window's mean. A hand
    /// lifted to the mouth, a cup tipped, a forearm swung between keyboard and mouse turn the
    /// wrist that far every few seconds; a hand on a wheel or in a lap seldom does (the Bangle
    /// drives: at most 42 % of any minute, 5-8 % at the median; the synthetic eating the model
    /// calls a car: 38-63 % at the median). Like the quiet turns, over the last `quietTurnSpan`
    /// windows a share of `wideTurnExit` leaves automotive and a share of `wideTurnOnset`
    /// withholds its onset (the evidence is kept). The angle, not the vibration: noise and
    /// quantisation barely move a 1 s mean's direction, so the rule reads the same on a 6-bit watch.
    static let wideTurnAngle = 0.8
    static let wideTurnExit = 0.5
    static let wideTurnOnset = 0.3

    /// Sway: a window whose movement across gravity (`horizontal_rms_log`: vibration and tilt)
    /// reaches `swayLevel` (0.1 g). A car rocks, brakes and turns the body that carries the wrist:
    /// every minute of the ST car clip and of the short Bangle drive has 47 % and 38 % or more such
    /// windows, the 36-minute drive 48 % at the median (the ST phone-driving clip 29 % of its
    /// windows). A forearm typing on a desk vibrates like a road but hardly moves across gravity
    /// (the synthetic typing the model called a car: 0 % at the median). The onset of automotive needs `swayOnset` of them among the last `quietTurnSpan`
    /// windows (the evidence is kept meanwhile): more than one kind of vehicle sign. Onset only: the
    /// 36-minute drive has minutes without sway, so its absence does not end a drive.
    static let swayLevel = 0.1
    static let swayOnset = 6

    /// Road vibration: a window whose vibration (`vibration_log`, the median 1 s deviation of
    /// |a|) reaches `roadVibration` (20 mg) with at least `roadVertical` (10 %) of its movement
    /// along gravity (`vertical_share`). A road shakes a car through its wheels, suspension and
    /// seat, up and down: the drives' windows the model calls a car vibrate at 28-35 mg at the
    /// median with 20-26 % of it along gravity, the ST car clips 19-49 mg and 27-46 %. A forearm
    /// lying on a desk vibrates with the keys and the mouse at rest level, and what it does move,
    /// it moves across gravity: the Bangle desk work the model held out by activity calls a car
    /// vibrates at 10 mg with 5 % along gravity at the median. The onset of automotive needs
    /// `roadOnset` such windows among the last `quietTurnSpan` (the evidence is kept meanwhile):
    /// the Bangle drives' minutes hold 28-30 at the median (9 at the 10th percentile: smooth
    /// stretches, which only delay the onset, backdated to the first automotive window), the ST
    /// car clip 52, while no minute of the desk work holds more than 11. Onset only, like the
    /// sway: a smooth stretch of road must not end a drive.
    static let roadVibration = 0.02
    static let roadVertical = 0.1
    static let roadOnset = 12

    /// How long (s) after the step gate's last credited step the state may still become walking
    /// or running without a confirmed run: one window. A pedometer that counts nothing is not
    /// walking (CoreMotion never says so either): the held-out ST still clips were called walking
    /// 10.6 % of their time with not one step counted, the model's lead after a few arm-moving
    /// windows held by the hysteresis.
    static let steplessSeconds = 5.0
    /// Three-axis walking-led windows without steps before a vehicle state leaves for walking
    /// (with steps: 2). A hand on the wheel moves like an arm swing: held out, the Bangle drives
    /// were 12 % walking with no step counted. Magnitude-only windows leave after 2 as before
    /// (|a| alone: a held-out rieck PC-work file stayed automotive 33 -> 49 % of its time).
    static let steplessVehicleExit = 15
    /// Seconds without an automotive-led window after which an other-movement (or cycling) window
    /// ends a vehicle state: the held-out drives never go more than 61 s without one, a desk
    /// wrongly called a car goes 2-3 minutes (mixing stationary and other-movement windows, it
    /// never meets the still-device or other-movement exits). A still device at a red light
    /// keeps the 3-minute `vehicleStop`: stationary windows do not end it here.
    static let vehicleSilence = 90.0

    static let runningDeviation = 0.7
    static let runningStepRate = 2.5

    private static let deviationFeature = NamedFeature("magnitude_std_log")
    private static let stepRateFeature = NamedFeature("peak_rate")
    static let vibrationFeature = NamedFeature("vibration_log")
    static let gravityMoveFeature = NamedFeature("gravity_move")
    static let orientationSpreadFeature = NamedFeature("orientation_spread")
    private static let horizontalFeature = NamedFeature("horizontal_rms_log")
    static let verticalShareFeature = NamedFeature("vertical_share")

    private var probabilities: [Double]
    private(set) var smoothed: [Double]
    private var fresh = true
    private(set) var state: ActivityState
    private var streakClass = -1
    private var streakStart = 0.0
    private var streakWindows = 0
    private var automotiveWindows = 0
    /// When the onset's automotive windows were counted (`AutomotiveEvidenceSpan`).
    private var automotiveEvidence = AutomotiveEvidenceSpan()
    private var automotiveStart = 0.0
    private var stillInVehicleSince: Double?
    /// The end of the last automotive-led window (`vehicleSilence`).
    private var vehicleEvidenceAt = 0.0
    /// Which of the last `quietTurnSpan` windows were quiet turns, and which wide turns.
    private var quietTurns = RecentShare(span: quietTurnSpan)
    private var wideTurns = RecentShare(span: quietTurnSpan)
    private var swayWindows = RecentShare(span: quietTurnSpan)
    private var roadWindows = RecentShare(span: quietTurnSpan)
    private let walkingIndex: Int
    private let runningIndex: Int
    private let stationaryIndex: Int
    private let unknownIndex: Int
    private let model: MotionModel

    init(start: Double, model: MotionModel) {
        self.model = model
        probabilities = [Double](repeating: 0, count: MotionModel.classCount)
        smoothed = [Double](repeating: 1 / Double(MotionModel.classCount), count: MotionModel.classCount)
        state = ActivityState(kind: .unknown, confidence: .low, start: start)
        walkingIndex = MotionModel.index(of: .walking) ?? 0
        runningIndex = MotionModel.index(of: .running) ?? 0
        stationaryIndex = MotionModel.index(of: .stationary) ?? 0
        unknownIndex = MotionModel.index(of: .unknown) ?? 0
    }

    /// After a gap the next window starts the smoothing and the streaks afresh: nothing is
    /// bridged across it.
    mutating func resetWindow() { fresh = true }

    /// Smoothed probability that the recent windows are walking or running.
    var locomotion: Double { smoothed[walkingIndex] + smoothed[runningIndex] }

    /// Whether a three-axis window barely moves (`stillVibration`, `stillAngle`). Magnitude-only
    /// windows never are: |a| does not change when the wrist turns slowly.
    /// `noiseFloor` (g): the sensor's own vibration at rest (the classifier's `noiseFloor`), 0 when unknown.
    static func isStill(_ values: [Double], magnitudeOnly: Bool, noiseFloor: Double = 0) -> Bool {
        guard !magnitudeOnly, let vibration = vibrationFeature.value(in: values), isSteady(values) else { return false }
        let limit = max(stillVibration, noiseFloorMargin * min(noiseFloor, noiseFloorCap))
        return vibration < log10(limit)
    }

    /// Whether a three-axis window's gravity direction turns at rest-level vibration (below
    /// `stillVibration`; see `quietTurnSpan`).
    static func isQuietTurn(_ values: [Double], magnitudeOnly: Bool) -> Bool {
        guard !magnitudeOnly, let vibration = vibrationFeature.value(in: values) else { return false }
        return vibration < log10(stillVibration) && !isSteady(values)
    }

    /// Whether a three-axis window's gravity direction turns by `wideTurnAngle` or more.
    static func isWideTurn(_ values: [Double], magnitudeOnly: Bool) -> Bool {
        guard !magnitudeOnly, let move = gravityMoveFeature.value(in: values),
              let spread = orientationSpreadFeature.value(in: values) else { return false }
        return max(move, spread) >= wideTurnAngle
    }

    /// Whether a window sways (`swayLevel`); magnitude-only windows always do (`Window.sway`).
    static func isSway(_ values: [Double], magnitudeOnly: Bool) -> Bool {
        guard !magnitudeOnly, let level = horizontalFeature.value(in: values) else { return true }
        return level >= log10(swayLevel)
    }

    /// Whether a window shows road vibration (`roadVibration`, raised on a noisy sensor by
    /// `roadLevel`; `roadVertical`); magnitude-only windows always do (`Window.road`).
    /// `noiseFloor` (g): the classifier's `noiseFloor`, 0 when unknown.
    static func isRoad(_ values: [Double], magnitudeOnly: Bool, noiseFloor: Double = 0) -> Bool {
        guard !magnitudeOnly, let vibration = vibrationFeature.value(in: values),
              let vertical = verticalShareFeature.value(in: values) else { return true }
        return vibration >= log10(roadLevel(noiseFloor: noiseFloor)) && vertical >= roadVertical
    }

    /// Whether a three-axis window's gravity direction holds: it moves between the window's halves,
    /// and its 1 s means spread, by less than `angle` (rad; `stillAngle` for the still rule).
    static func isSteady(_ values: [Double], within angle: Double = stillAngle) -> Bool {
        guard let move = gravityMoveFeature.value(in: values), let spread = orientationSpreadFeature.value(in: values)
        else { return false }
        return move < angle && spread < angle
    }

    /// Whether a three-axis window vibrates below `vibration` (g) while its gravity direction turns by
    /// less than `angle` (rad); magnitude-only windows never do. The one reading of the steady hand,
    /// the quiet tilt and the noise-level tilt, each at its own limits.
    static func isCalmTurn(_ values: [Double], magnitudeOnly: Bool, vibrationBelow vibration: Double, angleBelow angle: Double) -> Bool {
        guard !magnitudeOnly, let level = vibrationFeature.value(in: values) else { return false }
        return level < log10(vibration) && isSteady(values, within: angle)
    }

    /// A noisy sensor (a cheap part, low-power modes, 8-bit output) never shows less vibration
    /// than its own noise, so the still limit rises above the lowest vibration of any window whose
    /// gravity direction held: a still window stays within `noiseFloorMargin` of it. White noise of
    /// 0.03 g otherwise lifts a resting device to a car's vibration (`stepbench robustness`). The
    /// floor counts up to `noiseFloorCap`: more than that is movement, not a sensor.
    static let noiseFloorMargin = 1.5
    static let noiseFloorCap = 0.04

    /// The lowest vibration (g) of the three-axis windows whose gravity direction held; nil
    /// before the first.
    private(set) var noiseFloor: Double?
    /// The lowest vibration (g) of those windows whose movement is spread like a sensor's noise
    /// (`isSensorNoise`): the floor a road's level rises with; nil before the first.
    private(set) var sensorNoiseFloor: Double?

    mutating func noteNoise(_ values: [Double], magnitudeOnly: Bool) {
        guard !magnitudeOnly, Self.isSteady(values), let vibration = Self.vibrationFeature.value(in: values) else { return }
        noiseFloor = min(noiseFloor ?? .infinity, pow(10, vibration))
        if Self.isSensorNoise(values) { sensorNoiseFloor = min(sensorNoiseFloor ?? .infinity, pow(10, vibration)) }
    }

    /// Whether a window's |a| deviation and step rate are a runner's (`runningDeviation`,
    /// `runningStepRate`); |a| alone, so magnitude-only windows too.
    static func isRunning(_ values: [Double]) -> Bool {
        guard let deviation = deviationFeature.value(in: values), let rate = stepRateFeature.value(in: values) else { return false }
        return deviation >= log10(runningDeviation) && rate >= runningStepRate
    }

    /// Feeds one window; returns the new state when it changed.
    mutating func feed(_ features: WindowFeatures, gait: StepGate) -> ActivityState? {
        model.probabilities(features, into: &probabilities)
        noteNoise(features.values, magnitudeOnly: features.magnitudeOnly)
        let window = Window(end: features.windowEnd, magnitudeOnly: features.magnitudeOnly,
                            still: Self.isStill(features.values, magnitudeOnly: features.magnitudeOnly, noiseFloor: noiseFloor ?? 0),
                            running: Self.isRunning(features.values),
                            quietTurn: Self.isQuietTurn(features.values, magnitudeOnly: features.magnitudeOnly),
                            wideTurn: Self.isWideTurn(features.values, magnitudeOnly: features.magnitudeOnly),
                            sway: Self.isSway(features.values, magnitudeOnly: features.magnitudeOnly),
                            road: Self.isRoad(features.values, magnitudeOnly: features.magnitudeOnly, noiseFloor: sensorNoiseFloor ?? 0),
                            steadyHand: Self.isSteadyHand(features.values, magnitudeOnly: features.magnitudeOnly),
                            quietTilt: Self.isQuietTilt(features.values, magnitudeOnly: features.magnitudeOnly),
                            roadOpen: gait.roadEvidence.isOpen,
                            noiseLevelTilt: Self.isNoiseLevelTilt(features.values, magnitudeOnly: features.magnitudeOnly,
                                                                  sensorNoiseFloor: sensorNoiseFloor ?? 0))
        return decide(window, gait: Gait(gait))
    }

    /// Feeds one window's class probabilities (in `MotionModel.classes` order) as the model
    /// would give them: the hysteresis alone, for tests.
    mutating func feed(probabilities given: [Double], window: Window, gait: Gait) -> ActivityState? {
        for k in 0..<min(given.count, probabilities.count) { probabilities[k] = given[k] }
        return decide(window, gait: gait)
    }

    /// The end of the last window whose state was automotive, nil before any: a rhythm that
    /// starts soon after a drive must hold longer before the step gate counts it
    /// (`StepGate.afterDrive`).
    private(set) var lastVehicleTime: Double?

    private mutating func decide(_ window: Window, gait: Gait) -> ActivityState? {
        // A gap ends a vehicle state: the onset evidence restarts after it, and a drive that goes
        // on is backdated to its first automotive window again. Held, a still device the model
        // once called a car stayed automotive across every later clip (the held-out ST still
        // clips: 72 % automotive once stepless walking leads no longer leave vehicles).
        var afterGap: ActivityState?
        if fresh && state.kind == .automotive {
            afterGap = change(to: ActivityState(kind: .unknown, confidence: .low, start: max(window.start, state.start)))
        }
        return decideWindow(window, gait: gait) ?? afterGap
    }

    private mutating func decideWindow(_ window: Window, gait: Gait) -> ActivityState? {
        defer { if state.kind == .automotive { lastVehicleTime = window.end } }
        let firstOfInput = fresh
        if fresh {
            streakClass = -1
            automotiveWindows = 0
            quietTurns.clear()
            wideTurns.clear()
            swayWindows.clear()
            roadWindows.clear()
        }
        quietTurns.note(window.quietTurn)
        wideTurns.note(window.wideTurn)
        swayWindows.note(window.sway)
        roadWindows.note(window.road)
        for k in 0..<probabilities.count {
            smoothed[k] = fresh ? probabilities[k] : 0.5 * smoothed[k] + 0.5 * probabilities[k]
        }
        fresh = false
        var best = 0
        for k in 1..<smoothed.count where smoothed[k] > smoothed[best] { best = k }
        var p = smoothed[best]
        // A slow tilt the model leads unknown is stationary, but no stop inside a drive (`isQuietTilt`).
        let tiltedStill = window.quietTilt && !window.still && !window.steadyHand && MotionModel.classes[best] == .unknown
        // A tilt within a noisy sensor's noise the model calls a car: at rest for the state, a car's
        // window for the evidence (`readsNoiseLevelTiltAsRest`).
        let restingTilt = Self.readsNoiseLevelTiltAsRest(window, lead: MotionModel.classes[best], state: state.kind,
                                                         counted: automotiveWindows)
        if tiltedStill || restingTilt || (window.still && (MotionModel.classes[best] == .unknown || MotionModel.classes[best] == .automotive))
            || (window.steadyHand && MotionModel.classes[best] == .unknown) {
            best = stationaryIndex
            p = max(smoothed[best], 0.55)
        } else if window.running && best == walkingIndex {
            best = runningIndex
            p = max(smoothed[best], 0.55)
        }
        let t = window.end
        // The evidence for a class starts in the middle of the first window that showed it.
        let windowMiddle = t - Double(WindowFeatures.windowLength) / 2 / WindowFeatures.rate
        // The first window of the input (or after a gap) follows nothing: no change inside it to
        // place, so its class holds from the window's start (a still clip was unknown for its
        // first 2.5 s, 8 % of a 32 s clip). Not a walk or a run: those start at their first step.
        let leadIsGait = MotionModel.classes[best] == .walking || MotionModel.classes[best] == .running
        let evidenceStart = firstOfInput && !leadIsGait ? max(window.start, state.start) : windowMiddle
        let previousLead = streakClass
        if best == streakClass {
            streakWindows += 1
        } else {
            streakClass = best
            streakStart = evidenceStart
            streakWindows = 1
        }
        let kind = MotionModel.classes[best]
        let confidence = Self.confidence(of: p)

        if kind == .automotive || restingTilt {
            if automotiveWindows == 0 { automotiveStart = evidenceStart }
            automotiveWindows += 1
            automotiveEvidence.note(t)
        } else if automotiveWindows > 0 {
            // A stop at a light, stepless steering under an open road, a lone unknown lead: the
            // evidence neither counts nor resets.
            let holds = (kind == .stationary && !window.magnitudeOnly && !tiltedStill && t - streakStart < Self.vehicleStop)
                || Self.roadHoldsEvidence(window, kind: kind, gait: gait, at: t)
                || Self.loneUnknownHolds(window, kind: kind, previousLead: previousLead)
            if !holds { automotiveWindows = 0 }
        }

        if kind == .automotive || restingTilt { vehicleEvidenceAt = t }
        if state.kind == .automotive && kind != .walking && kind != .running {
            if kind != .automotive && kind != .stationary && t - vehicleEvidenceAt >= Self.vehicleSilence {
                stillInVehicleSince = nil
                automotiveWindows = 0
                return change(to: ActivityState(kind: kind, confidence: confidence, start: max(vehicleEvidenceAt, state.start)))
            }
            if kind == .stationary {
                if stillInVehicleSince == nil { stillInVehicleSince = streakStart }
                if let since = stillInVehicleSince, t - since >= Self.vehicleStop {
                    stillInVehicleSince = nil
                    return change(to: ActivityState(kind: .stationary, confidence: confidence, start: since))
                }
                return nil
            }
            stillInVehicleSince = nil
            if quietTurns.share >= Self.quietTurnExit || wideTurns.share >= Self.wideTurnExit {
                // A hand moving at rest, or turning the wrist as a driver's seldom does: no road
                // under it. The evidence starts afresh.
                automotiveWindows = 0
                let left = kind == .automotive ? ActivityKind.unknown : kind
                let leftConfidence = Self.confidence(of: kind == .automotive ? max(smoothed[unknownIndex], 0.55) : p)
                return change(to: ActivityState(kind: left, confidence: leftConfidence, start: max(windowMiddle, state.start)))
            }
            if kind == .automotive {
                return confidence > state.confidence ? change(to: ActivityState(kind: .automotive, confidence: confidence, start: state.start)) : nil
            }
            guard streakWindows >= Self.automotiveOnset else { return nil }
            return change(to: ActivityState(kind: kind, confidence: confidence, start: max(streakStart, state.start)))
        }
        stillInVehicleSince = nil

        let needed: Int
        switch kind {
        case .walking, .running:
            let stepless = state.kind == .automotive && !window.magnitudeOnly && !Self.hasSteps(gait, at: t)
            needed = stepless ? Self.steplessVehicleExit : 2
        case .stationary: needed = 3
        case .cycling: needed = 6
        case .automotive: needed = Self.automotiveOnset
        case .unknown: needed = 4
        }
        guard (kind == .automotive ? automotiveWindows : streakWindows) >= needed else { return nil }
        // The model's lead alone does not start a walk: the streak goes on, and the state follows
        // (backdated to the run's start) once the gate confirms steps.
        if (kind == .walking || kind == .running) && state.kind != .automotive && !Self.hasSteps(gait, at: t) {
            return nil
        }
        if kind == .automotive && (quietTurns.share >= Self.quietTurnOnset || wideTurns.share >= Self.wideTurnOnset
                                    || swayWindows.count < Self.swayOnset
                                    || !Self.roadOnsetMet(roadWindows: roadWindows.count, window: window, noiseFloor: sensorNoiseFloor ?? 0)
                                    || !automotiveEvidence.isDense(at: t)) { return nil }
        if state.kind == kind {
            return confidence > state.confidence ? change(to: ActivityState(kind: kind, confidence: confidence, start: state.start)) : nil
        }
        var start = kind == .automotive ? automotiveStart : streakStart
        if kind == .walking || kind == .running, Self.hasSteps(gait, at: t) {
            // A walk starts at its run's first step (without a run: its last credited step), or
            // up to one window before it where the model already led with it; a longer stepless
            // lead was not the walk (`hasSteps`).
            let stepsFrom = gait.walking ? gait.runStart : gait.lastStep
            start = max(min(start, stepsFrom), stepsFrom - Self.steplessSeconds)
        }
        // Leaving gait: the new state starts after the last step.
        if state.kind == .walking || state.kind == .running { start = max(start, gait.lastStep) }
        var earliest = state.start
        if kind == .automotive {
            // A drive begins after the last step; a stop inside its evidence may have become a
            // stationary state, which the drive covers (earlier states keep their time).
            start = max(start, gait.lastStep)
            if state.kind == .stationary { earliest = min(earliest, start) }
        }
        return change(to: ActivityState(kind: kind, confidence: confidence, start: max(start, earliest)))
    }

    /// Whether the step gate shows gait at `t`: a confirmed run, or a credited step within
    /// `steplessSeconds` (0 is no step yet).
    static func hasSteps(_ gait: Gait, at t: Double) -> Bool {
        gait.walking || (gait.lastStep > 0 && t - gait.lastStep <= steplessSeconds)
    }

    /// The confidence of a smoothed probability: high from 0.8, medium from 0.55.
    private static func confidence(of probability: Double) -> ActivityConfidence {
        probability >= 0.8 ? .high : probability >= 0.55 ? .medium : .low
    }

    private mutating func change(to new: ActivityState) -> ActivityState? {
        guard new != state else { return nil }
        state = new
        return new
    }
}

/// Which of the last `span` windows showed a sign (a ring), and their share of the span (also
/// before it has filled).
struct RecentShare: Sendable {
    let span: Int
    private var marks: [Bool] = []
    private var next = 0
    private(set) var count = 0

    init(span: Int) { self.span = span }

    var share: Double { Double(count) / Double(span) }

    mutating func clear() {
        marks.removeAll(keepingCapacity: true)
        next = 0
        count = 0
    }

    mutating func note(_ mark: Bool) {
        if marks.count < span {
            marks.append(mark)
        } else {
            if marks[next] { count -= 1 }
            marks[next] = mark
            next = (next + 1) % span
        }
        if mark { count += 1 }
    }
}
