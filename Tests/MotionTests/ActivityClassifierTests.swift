import Glibc
@testable import MotionCore
import StepdModel
import Testing

/// The activity hysteresis fed with window probabilities as the model would give them, one
/// window a second (window ends at 5, 6, 7, ... s; a window's middle is 2.5 s before its end).
@Suite struct ActivityHysteresis {
    struct Run {
        var classifier = ActivityClassifier(start: 0, model: .generated)
        var end = 5.0
        var changes: [ActivityState] = []

        /// `quietTurnEvery`: every so many windows (counting from the first) is a quiet turn;
        /// `wideTurnEvery` likewise a wide turn; `swayEvery` likewise a window that sways (the
        /// others then do not; 1, the default: every window sways); `roadEvery` likewise a window
        /// with road vibration.
        /// `runStart`: the step gate's confirmed run (a step in each window) started then; nil: no
        /// steps. By default walking and running windows have a run from the first of them.
        mutating func feed(_ kind: ActivityKind, windows: Int, magnitudeOnly: Bool = false, still: Bool = false, running: Bool = false,
                           steadyHand: Bool = false,
                           quietTurnEvery: Int = 0, wideTurnEvery: Int = 0, swayEvery: Int = 1, roadEvery: Int = 1,
                           runStart: Double?? = .none) {
            let gaitStart: Double? = switch runStart {
            case .some(let given): given
            case .none: kind == .walking || kind == .running ? end - 5 : nil
            }
            let others = 0.1 / Double(MotionModel.classes.count - 1)
            let probabilities = MotionModel.classes.map { $0 == kind ? 0.9 : others }
            for i in 0..<windows {
                let quietTurn = quietTurnEvery > 0 && i % quietTurnEvery == 0
                let wideTurn = wideTurnEvery > 0 && i % wideTurnEvery == 0
                let window = ActivityClassifier.Window(end: end, magnitudeOnly: magnitudeOnly, still: still, running: running,
                                                       quietTurn: quietTurn, wideTurn: wideTurn, sway: i % swayEvery == 0,
                                                       road: i % roadEvery == 0, steadyHand: steadyHand)
                let gait = gaitStart.map { ActivityClassifier.Gait(walking: true, runStart: $0, lastStep: end - 0.5) }
                    ?? ActivityClassifier.Gait(walking: false, runStart: 0, lastStep: 0)
                if let change = classifier.feed(probabilities: probabilities, window: window, gait: gait) {
                    changes.append(change)
                }
                end += 1
            }
        }

        var state: ActivityState { classifier.state }
    }

    /// An onset rule withholds a drive and keeps its evidence: `withholding` automotive windows in
    /// which `feed` puts the rule's condition are no drive, nor are `waiting` plain automotive
    /// windows after them; `more` further plain ones start it, backdated to its first window.
    private func expectOnsetWithheld(_ withholding: Int, waiting: Int, more: Int,
                                     sourceLocation: SourceLocation = #_sourceLocation,
                                     _ feed: (inout Run, Int) -> Void) {
        var run = Run()
        feed(&run, withholding)
        #expect(run.state.kind != .automotive, sourceLocation: sourceLocation)
        run.feed(.automotive, windows: waiting)
        #expect(run.state.kind != .automotive, sourceLocation: sourceLocation)
        run.feed(.automotive, windows: more)
        #expect(run.state.kind == .automotive, sourceLocation: sourceLocation)
        #expect(run.state.start == 0, sourceLocation: sourceLocation)
    }

    /// The input's first window follows nothing, so the class it shows holds from its start; a
    /// class that leads later starts in the middle of its first window (the change lies inside
    /// it); a walk starts at its first step either way.
    @Test func theInputsFirstWindowHoldsFromItsStart() {
        var still = Run()
        still.feed(.stationary, windows: 3)
        #expect(still.state.kind == .stationary)
        #expect(still.state.start == 0)
        var later = Run()
        later.feed(.unknown, windows: 4)
        later.feed(.stationary, windows: 3)
        #expect(later.state.kind == .stationary)
        #expect(later.state.start == 9 - 2.5)
        var walk = Run()
        walk.feed(.walking, windows: 2, runStart: 1.2)
        #expect(walk.state.kind == .walking)
        #expect(walk.state.start == 1.2)
    }

    @Test func automotiveEvidenceIsHeldAcrossAStop() {
        // 20 s of driving, 10 s at a light, 15 s of driving: no 30 automotive windows in a row,
        // 35 in all. The stop became a stationary state; the drive covers it from its start.
        var run = Run()
        run.feed(.automotive, windows: 20)
        run.feed(.stationary, windows: 10)
        #expect(run.state.kind == .stationary)
        run.feed(.automotive, windows: 15)
        #expect(run.state.kind == .automotive)
        #expect(run.state.start == 0)
        let analysis = RecordingAnalysis.segments(from: run.changes, first: 0, last: run.end)
        #expect(analysis.map(\.kind) == [.automotive])
    }

    @Test func automotiveOnsetNeedsThirtyAutomotiveWindows() {
        var run = Run()
        run.feed(.automotive, windows: 15)
        run.feed(.stationary, windows: 10)
        run.feed(.automotive, windows: 13)
        #expect(run.state.kind != .automotive)
        run.feed(.automotive, windows: 3)
        #expect(run.state.kind == .automotive)
    }

    @Test func otherMovementResetsTheAutomotiveEvidence() {
        var run = Run()
        run.feed(.automotive, windows: 20)
        run.feed(.unknown, windows: 6)
        run.feed(.automotive, windows: 20)
        #expect(run.state.kind != .automotive)
        run.feed(.automotive, windows: 12)
        #expect(run.state.kind == .automotive)
        // The evidence restarted after the other movement (ends 25-30 s, middles 22.5-27.5 s).
        #expect(run.state.start > 27.5)
    }

    @Test func aMagnitudeOnlyStopResetsTheAutomotiveEvidence() {
        // |a| alone cannot tell a forearm resting on a desk from a hand on a wheel.
        var run = Run()
        run.feed(.automotive, windows: 20, magnitudeOnly: true)
        run.feed(.stationary, windows: 10, magnitudeOnly: true)
        run.feed(.automotive, windows: 15, magnitudeOnly: true)
        #expect(run.state.kind != .automotive)
    }

    @Test func aStopLongerThanThreeMinutesResetsTheAutomotiveEvidence() {
        var run = Run()
        run.feed(.automotive, windows: 20)
        run.feed(.stationary, windows: 200)
        run.feed(.automotive, windows: 15)
        #expect(run.state.kind == .stationary)
    }

    @Test func aGapRestartsTheAutomotiveEvidence() {
        var run = Run()
        run.feed(.automotive, windows: 20)
        run.classifier.resetWindow()
        run.feed(.automotive, windows: 15)
        #expect(run.state.kind != .automotive)
        run.feed(.automotive, windows: 15)
        #expect(run.state.kind == .automotive)
    }

    @Test func aStillWindowIsStationaryWhereTheModelLeansToOtherOrAutomotive() {
        var other = Run()
        other.feed(.unknown, windows: 6, still: true)
        #expect(other.state.kind == .stationary)
        #expect(other.state.confidence == .medium)
        var automotive = Run()
        automotive.feed(.automotive, windows: 40, still: true)
        #expect(automotive.state.kind == .stationary)
        var moving = Run()
        moving.feed(.unknown, windows: 6)
        #expect(moving.state.kind == .unknown)
    }

    @Test func aStillWindowLeavesLocomotionToTheModel() {
        var run = Run()
        run.feed(.walking, windows: 4, still: true)
        #expect(run.state.kind == .walking)
        #expect(run.classifier.locomotion > 0.8)
    }

    @Test func aRunnersWindowCalledWalkingIsRunning() {
        var run = Run()
        run.feed(.walking, windows: 4, running: true)
        #expect(run.state.kind == .running)
        // Only walking is overridden: the flight-phase evidence does not make other movement a run.
        var other = Run()
        other.feed(.unknown, windows: 6, running: true)
        #expect(other.state.kind == .unknown)
    }

    @Test func aWalkingLeadWithoutStepsIsNotAWalk() {
        // The model leads with walking while the pedometer counts nothing: the state holds.
        var run = Run()
        run.feed(.stationary, windows: 5)
        run.feed(.running, windows: 5, runStart: .some(nil))
        run.feed(.walking, windows: 20, runStart: .some(nil))
        #expect(run.state.kind == .stationary)
        // Once the gate confirms a run the state follows, starting one window before its
        // first step at the earliest (not at the stepless lead's first window, 12.5 s).
        let firstStep = run.end - 3
        run.feed(.walking, windows: 2, runStart: firstStep)
        #expect(run.state.kind == .walking)
        #expect(run.state.start == firstStep - ActivityClassifier.steplessSeconds)
    }

    @Test func aVehicleNeedsFifteenSteplessWalkingWindowsToLeaveOnFoot() {
        // A hand on the wheel: walking leads without steps do not end the drive at once ...
        var drive = Run()
        drive.feed(.automotive, windows: 40)
        drive.feed(.walking, windows: 14, runStart: .some(nil))
        #expect(drive.state.kind == .automotive)
        drive.feed(.automotive, windows: 5)
        drive.feed(.walking, windows: 14, runStart: .some(nil))
        #expect(drive.state.kind == .automotive)
        // ... fifteen in a row do, and with steps two do, as before.
        drive.feed(.walking, windows: 1, runStart: .some(nil))
        #expect(drive.state.kind == .walking)
        var walk = Run()
        walk.feed(.automotive, windows: 40)
        walk.feed(.walking, windows: 2)
        #expect(walk.state.kind == .walking)
        // |a| alone cannot tell a hand on the wheel from one on a keyboard: magnitude-only
        // windows leave after two.
        var watch = Run()
        watch.feed(.automotive, windows: 40, magnitudeOnly: true)
        watch.feed(.walking, windows: 2, magnitudeOnly: true, runStart: .some(nil))
        #expect(watch.state.kind == .walking)
    }

    @Test func ninetySecondsWithoutAnAutomotiveWindowEndAVehicle() {
        // A desk the model once called a car: stationary and other-movement windows alternate,
        // so neither the 3-minute stop nor the 30 other-movement windows end it.
        var desk = Run()
        desk.feed(.automotive, windows: 40)
        let lastAutomotive = desk.end - 1
        for _ in 0..<8 {
            desk.feed(.stationary, windows: 8)
            desk.feed(.unknown, windows: 3)
        }
        #expect(desk.end - 1 - lastAutomotive < ActivityClassifier.vehicleSilence)
        #expect(desk.state.kind == .automotive)
        desk.feed(.stationary, windows: 4)
        #expect(desk.state.kind == .automotive)
        desk.feed(.unknown, windows: 1)
        #expect(desk.state.kind == .unknown)
        #expect(desk.state.start == lastAutomotive)
        // One automotive window a minute keeps a drive (held-out drives: at most 61 s apart).
        var drive = Run()
        drive.feed(.automotive, windows: 40)
        for _ in 0..<5 {
            drive.feed(.stationary, windows: 8)
            drive.feed(.unknown, windows: 3)
            drive.feed(.stationary, windows: 48)
            drive.feed(.automotive, windows: 1)
        }
        #expect(drive.state.kind == .automotive)
    }

    @Test func aGapEndsAVehicle() {
        var run = Run()
        run.feed(.automotive, windows: 40)
        #expect(run.state.kind == .automotive)
        run.classifier.resetWindow()
        run.end += 5
        run.feed(.stationary, windows: 1)
        #expect(run.state.kind == .unknown)
        #expect(run.state.start == run.end - 1 - 5)
    }

    @Test func whileAutomotiveAStillDeviceStaysAutomotiveForThreeMinutes() {
        var run = Run()
        run.feed(.automotive, windows: 40)
        run.feed(.unknown, windows: 150, still: true)
        #expect(run.state.kind == .automotive)
        run.feed(.unknown, windows: 40, still: true)
        #expect(run.state.kind == .stationary)
        #expect(run.state.start == 45 - 2.5)
    }

    @Test func aForearmTurningAtRestLeavesAutomotive() {
        // The model keeps calling it a car, but every other window the gravity direction turns
        // without vibration: once half of a minute's windows do, the state is no longer automotive.
        var desk = Run()
        desk.feed(.automotive, windows: 40)
        #expect(desk.state.kind == .automotive)
        desk.feed(.automotive, windows: 100, quietTurnEvery: 2)
        #expect(desk.state.kind == .unknown)
        #expect(desk.state.confidence == .medium)
        // A drive with a quiet turn every third window (a third of a minute) stays a drive.
        var drive = Run()
        drive.feed(.automotive, windows: 40)
        drive.feed(.automotive, windows: 200, quietTurnEvery: 3)
        #expect(drive.state.kind == .automotive)
        #expect(drive.changes.count == 1)
    }

    @Test func quietTurnsWithholdTheAutomotiveOnset() {
        // Every other window a quiet turn: 40 automotive windows are not a drive yet ... and the
        // evidence is kept: once fewer than a fifth of the last minute's windows turn at rest (10
        // of 60 after 40 plain ones), the drive starts at its first window.
        expectOnsetWithheld(40, waiting: 30, more: 10) { $0.feed(.automotive, windows: $1, quietTurnEvery: 2) }
        // One in ten does not withhold it.
        var drive = Run()
        drive.feed(.automotive, windows: 30, quietTurnEvery: 10)
        #expect(drive.state.kind == .automotive)
    }

    @Test func aWristTurningWideAndOftenLeavesAutomotive() {
        // Hand to mouth every few seconds while the model calls it a car: once half of a
        // minute's windows turn the wrist by tens of degrees, the state is no longer automotive.
        var meal = Run()
        meal.feed(.automotive, windows: 40)
        #expect(meal.state.kind == .automotive)
        meal.feed(.automotive, windows: 100, wideTurnEvery: 2)
        #expect(meal.state.kind == .unknown)
        // A drive with a wide turn every third window (a third of a minute: steering, the
        // Bangle drives at most 42 %) stays a drive.
        var drive = Run()
        drive.feed(.automotive, windows: 40)
        drive.feed(.automotive, windows: 200, wideTurnEvery: 3)
        #expect(drive.state.kind == .automotive)
        #expect(drive.changes.count == 1)
    }

    @Test func wideTurnsWithholdTheAutomotiveOnset() {
        // Every window a wide turn: 60 automotive windows are not a drive yet ... and the evidence
        // is kept: once fewer than 30 % of the last minute's windows turn wide (17 of 60 after 43
        // plain ones), the drive starts at its first window.
        expectOnsetWithheld(60, waiting: 42, more: 1) { $0.feed(.automotive, windows: $1, wideTurnEvery: 1) }
        // One in five does not withhold it.
        var drive = Run()
        drive.feed(.automotive, windows: 30, wideTurnEvery: 5)
        #expect(drive.state.kind == .automotive)
    }

    @Test func aVehicleOnsetNeedsSway() {
        // Vibration with the device barely moving across gravity (a forearm typing on a desk;
        // only the first window sways): 40 automotive windows are not a drive ... until six
        // windows of the last minute sway; the evidence was kept.
        expectOnsetWithheld(40, waiting: 4, more: 1) { $0.feed(.automotive, windows: $1, swayEvery: 1000) }
        // One window in five swaying is enough for a drive.
        var drive = Run()
        drive.feed(.automotive, windows: 30, swayEvery: 5)
        #expect(drive.state.kind == .automotive)
    }

    @Test func aVehicleOnsetNeedsRoadVibration() {
        // Vibration the model calls a car, but at rest level or across gravity (a forearm on a
        // desk; only the first window shakes along gravity): 40 automotive windows are not a
        // drive ... until twelve windows of the last minute show a road; the evidence was kept.
        expectOnsetWithheld(40, waiting: 10, more: 1) { $0.feed(.automotive, windows: $1, roadEvery: 1000) }
        // One window in four on a rough stretch is enough for a drive.
        var drive = Run()
        drive.feed(.automotive, windows: 45, roadEvery: 4)
        #expect(drive.state.kind == .automotive)
    }

    @Test func aSteadilyHeldDeviceIsStationaryWhereTheModelIsUnsure() {
        // A hand holding a phone (`isSteadyHand`): the model leads with unknown, the state is
        // stationary after the three windows stationary needs, from the first of them.
        var held = Run()
        held.feed(.unknown, windows: 3, steadyHand: true)
        #expect(held.state.kind == .stationary)
        #expect(held.state.start == 0)
        // Unknown without the steady hand stays unknown.
        var moving = Run()
        moving.feed(.unknown, windows: 10)
        #expect(moving.state.kind == .unknown)
        // An automotive lead is the model's: a car on a smooth road is as steady.
        var drive = Run()
        drive.feed(.automotive, windows: 30, steadyHand: true)
        #expect(drive.state.kind == .automotive)
    }

    @Test func theLastAutomotiveWindowIsRemembered() {
        // The step gate asks more of a rhythm right after a drive (`StepGate.afterDrive`).
        var run = Run()
        run.feed(.walking, windows: 10)
        #expect(run.classifier.lastVehicleTime == nil)
        run.feed(.automotive, windows: 40)
        #expect(run.state.kind == .automotive)
        #expect(run.classifier.lastVehicleTime == run.end - 1)
        let drive = run.end - 1
        run.feed(.walking, windows: 10)
        #expect(run.state.kind == .walking)
        #expect(run.classifier.lastVehicleTime.map { $0 >= drive && $0 < drive + 2 } == true)
    }
}

/// `ActivityClassifier.isStill` on the features the engine computes.
@Suite struct StillWindow {
    private func isStill(_ features: WindowFeatures) -> Bool {
        ActivityClassifier.isStill(features.values, magnitudeOnly: features.magnitudeOnly)
    }

    @Test func aDeviceAtRestIsStill() {
        // 3 mg of ripple, about what the sensors show at rest.
        let rest = windowFeatures(seconds: 8) { t in (0.003 * sin(2 * .pi * 7.3 * t), 0.002 * sin(2 * .pi * 3.1 * t), 1 + 0.003 * sin(2 * .pi * 5.7 * t)) }
        #expect(isStill(rest))
    }

    @Test func roadVibrationIsNotStill() {
        // 30 mg at 11 Hz along gravity: a car on a road.
        let road = windowFeatures(seconds: 8) { t in (0.003 * sin(2 * .pi * 7.3 * t), 0, 1 + 0.03 * sin(2 * .pi * 11 * t)) }
        #expect(!isStill(road))
    }

    @Test func aSlowlyTurningWristIsNotStill() {
        // 0.2 rad in 5 s, no vibration: |a| stays 1 g, the gravity direction turns.
        let turning = windowFeatures(seconds: 8) { t in (sin(0.04 * t), 0, cos(0.04 * t)) }
        #expect(!isStill(turning))
    }

    @Test func theStillLimitRisesWithTheSensorsNoiseFloorUpToItsCap() {
        // 30 mg of road-like vibration: not still on a quiet sensor, still on one whose own
        // noise at rest is 25 mg, and not still again when the "floor" is movement (capped).
        let vibrating = windowFeatures(seconds: 8) { t in (0.003 * sin(2 * .pi * 7.3 * t), 0, 1 + 0.03 * sin(2 * .pi * 11 * t)) }
        #expect(!ActivityClassifier.isStill(vibrating.values, magnitudeOnly: false, noiseFloor: 0.003))
        #expect(ActivityClassifier.isStill(vibrating.values, magnitudeOnly: false, noiseFloor: 0.025))
        let shaking = windowFeatures(seconds: 8) { t in (0, 0, 1 + 0.12 * sin(2 * .pi * 11 * t)) }
        #expect(!ActivityClassifier.isStill(shaking.values, magnitudeOnly: false, noiseFloor: 0.085))
    }

    @Test func aNoisySensorAtRestIsStationary() {
        // Two minutes of a device at rest read through 0.03 g of white noise per axis (a cheap
        // part in a low-power mode): without the noise floor its vibration is a car's.
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func noise() -> Double {
            // Sum of 12 uniforms minus 6: zero mean, unit variance.
            var sum = 0.0
            for _ in 0..<12 {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                sum += Double(state >> 11) / Double(1 << 53)
            }
            return sum - 6
        }
        let samples = (0..<(120 * 50)).map { i in
            AccelSample(t: Double(i) / 50, x: 0.2 + 0.03 * noise(), y: 0.03 * noise(), z: 0.98 + 0.03 * noise())
        }
        let analysis = RecordingAnalysis.run(samples)
        let stationary = analysis.activities.filter { $0.kind == .stationary }.reduce(0) { $0 + $1.end - $1.start }
        #expect(stationary >= 0.8 * 120)
        #expect(analysis.steps == 0)
    }

    @Test func aWristTurningWithoutVibrationIsAQuietTurn() {
        let turning = windowFeatures(seconds: 8) { t in (sin(0.04 * t), 0, cos(0.04 * t)) }
        #expect(ActivityClassifier.isQuietTurn(turning.values, magnitudeOnly: false))
        // At rest the direction holds; on a road it turns with vibration: neither is one.
        let rest = windowFeatures(seconds: 8) { t in (0.003 * sin(2 * .pi * 7.3 * t), 0.002 * sin(2 * .pi * 3.1 * t), 1 + 0.003 * sin(2 * .pi * 5.7 * t)) }
        #expect(!ActivityClassifier.isQuietTurn(rest.values, magnitudeOnly: false))
        let road = windowFeatures(seconds: 8) { t in (sin(0.04 * t), 0, cos(0.04 * t) + 0.03 * sin(2 * .pi * 11 * t)) }
        #expect(!ActivityClassifier.isQuietTurn(road.values, magnitudeOnly: false))
        let magnitude = windowFeatures(seconds: 8) { t in (1 + 0.003 * sin(2 * .pi * 5.7 * t), 0, 0) }
        #expect(!ActivityClassifier.isQuietTurn(magnitude.values, magnitudeOnly: true))
    }

    @Test func aWristTurningByTensOfDegreesIsAWideTurn() {
        // The forearm raised from the table towards the mouth (90 degrees) and lowered again
        // within the window (a bite), with vibration on top: a wide turn.
        let bite = windowFeatures(seconds: 8) { t in
            let angle = 1.6 * max(0, sin(2 * .pi * t / 5))
            return (sin(angle), 0.02 * sin(2 * .pi * 9 * t), cos(angle) + 0.03 * sin(2 * .pi * 11 * t))
        }
        #expect(ActivityClassifier.isWideTurn(bite.values, magnitudeOnly: false))
        // A hand on a wheel: a 15-degree turn with road vibration is not one, nor |a| alone.
        let steering = windowFeatures(seconds: 8) { t in
            let angle = 0.26 * sin(2 * .pi * t / 6)
            return (sin(angle), 0, cos(angle) + 0.03 * sin(2 * .pi * 11 * t))
        }
        #expect(!ActivityClassifier.isWideTurn(steering.values, magnitudeOnly: false))
        let magnitude = windowFeatures(seconds: 8) { t in (1 + 0.3 * sin(2 * .pi * t / 4), 0, 0) }
        #expect(!ActivityClassifier.isWideTurn(magnitude.values, magnitudeOnly: true))
    }

    @Test func aDeviceRockingAcrossGravitySways() {
        // A car's body rocking the wrist by 0.15 g across gravity sways; keystroke vibration of
        // 0.02 g does not; |a| alone cannot tell and counts as swaying.
        let road = windowFeatures(seconds: 8) { t in (0.15 * sin(2 * .pi * 1.3 * t), 0.1 * sin(2 * .pi * 2.1 * t), 1) }
        #expect(ActivityClassifier.isSway(road.values, magnitudeOnly: false))
        let keys = windowFeatures(seconds: 8) { t in (0.02 * sin(2 * .pi * 5 * t), 0.01 * sin(2 * .pi * 6.3 * t), 1) }
        #expect(!ActivityClassifier.isSway(keys.values, magnitudeOnly: false))
        let magnitude = windowFeatures(seconds: 8) { t in (1 + 0.01 * sin(2 * .pi * 5 * t), 0, 0) }
        #expect(ActivityClassifier.isSway(magnitude.values, magnitudeOnly: true))
    }

    @Test func aRoadShakesTheWristAlongGravity() {
        // 28 mg of road vibration along gravity, the wrist rocking across it by 0.1 g, is a road;
        // the same vibration under a hand moving across gravity by 0.15 g (a forearm working the
        // mouse: 5 % of the movement along gravity) is not, nor 5 mg along it; |a| alone cannot
        // tell and counts as a road.
        let road = windowFeatures(seconds: 8) { t in (0.1 * sin(2 * .pi * 0.8 * t), 0, 1 + 0.04 * sin(2 * .pi * 11 * t)) }
        #expect(ActivityClassifier.isRoad(road.values, magnitudeOnly: false))
        let mouse = windowFeatures(seconds: 8) { t in (0.15 * sin(2 * .pi * 0.7 * t), 0.1 * sin(2 * .pi * 0.4 * t), 1 + 0.04 * sin(2 * .pi * 11 * t)) }
        #expect(!ActivityClassifier.isRoad(mouse.values, magnitudeOnly: false))
        let quiet = windowFeatures(seconds: 8) { t in (0.001 * sin(2 * .pi * 7.3 * t), 0, 1 + 0.007 * sin(2 * .pi * 11 * t)) }
        #expect(!ActivityClassifier.isRoad(quiet.values, magnitudeOnly: false))
        let magnitude = windowFeatures(seconds: 8) { t in (1 + 0.003 * sin(2 * .pi * 5 * t), 0, 0) }
        #expect(ActivityClassifier.isRoad(magnitude.values, magnitudeOnly: true))
    }

    @Test func aRoadOnANoisySensorShakesAboveItsNoise() {
        // 28 mg of vibration along gravity, the wrist rocking across it: a road on a quiet sensor
        // (3 mg at rest), not on one whose rest shows 16 mg of noise (0.03 g of white noise per
        // axis: a desk reads like that). 49 mg is a road on that sensor, and also where the
        // "floor" is a moving car's own vibration (49 mg; the floor counts up to 15 mg).
        let road = windowFeatures(seconds: 8) { t in (0.1 * sin(2 * .pi * 0.8 * t), 0, 1 + 0.04 * sin(2 * .pi * 11 * t)) }
        #expect(ActivityClassifier.isRoad(road.values, magnitudeOnly: false, noiseFloor: 0.003))
        #expect(!ActivityClassifier.isRoad(road.values, magnitudeOnly: false, noiseFloor: 0.016))
        let rough = windowFeatures(seconds: 8) { t in (0.1 * sin(2 * .pi * 0.8 * t), 0, 1 + 0.07 * sin(2 * .pi * 11 * t)) }
        #expect(ActivityClassifier.isRoad(rough.values, magnitudeOnly: false, noiseFloor: 0.016))
        #expect(ActivityClassifier.isRoad(rough.values, magnitudeOnly: false, noiseFloor: 0.049))
    }

    @Test func aHandHoldingADeviceIsASteadyHandButNotStill() {
        // 13 mg of tremor with the direction wandering by about 0.07 rad: held steadily, not at
        // rest (`isStill` wants 10 mg and 0.05 rad).
        let held = windowFeatures(seconds: 8) { t in
            let angle = 0.07 * sin(2 * .pi * t / 4)
            return (sin(angle) + 0.01 * sin(2 * .pi * 9.1 * t), 0.008 * sin(2 * .pi * 7.7 * t), cos(angle) + 0.018 * sin(2 * .pi * 8.3 * t))
        }
        #expect(ActivityClassifier.isSteadyHand(held.values, magnitudeOnly: false))
        #expect(!isStill(held))
        // A wrist turning by 0.2 rad, a road's 28 mg, |a| alone: none is.
        let turning = windowFeatures(seconds: 8) { t in (sin(0.04 * t), 0, cos(0.04 * t)) }
        #expect(!ActivityClassifier.isSteadyHand(turning.values, magnitudeOnly: false))
        let road = windowFeatures(seconds: 8) { t in (0.003 * sin(2 * .pi * 7.3 * t), 0, 1 + 0.04 * sin(2 * .pi * 11 * t)) }
        #expect(!ActivityClassifier.isSteadyHand(road.values, magnitudeOnly: false))
        let magnitude = windowFeatures(seconds: 8) { t in (1 + 0.003 * sin(2 * .pi * 5.7 * t), 0, 0) }
        #expect(!ActivityClassifier.isSteadyHand(magnitude.values, magnitudeOnly: true))
    }

    @Test func magnitudeOnlyInputIsNeverStill() {
        let rest = windowFeatures(seconds: 8) { t in (1 + 0.003 * sin(2 * .pi * 5.7 * t), 0, 0) }
        #expect(rest.magnitudeOnly)
        #expect(!isStill(rest))
    }
}

/// `ActivityClassifier.isRunning` on the feature windows the engine writes.
@Suite struct RunningWindow {
    /// The share of the windows of 20 s of |a| = `magnitude(t)` along z that look like running.
    private func runningShare(_ magnitude: (Double) -> Double) -> Double {
        let samples = (0..<500).map { i in
            let t = Double(i) / 25
            return AccelSample(t: t, x: 0, y: 0.001 * sin(2 * .pi * 0.37 * t), z: magnitude(t))
        }
        let windows = RecordingAnalysis.featureWindows(samples)
        let running = windows.filter { ActivityClassifier.isRunning($0.values) }.count
        return windows.count >= 10 ? Double(running) / Double(windows.count) : .nan
    }

    @Test func aFlightPhaseAtRunningCadenceIsRunning() {
        // 168 steps/min; |a| near 0 g in the air, 2.4 g at landing.
        #expect(runningShare { t in max(0.05, 1 + 1.4 * sin(2 * .pi * 2.8 * t)) } > 0.5)
    }

    @Test func aBriskWalkIsNotRunning() {
        // 156 steps/min, but a foot stays on the ground: |a| within 0.4 g of 1 g.
        #expect(runningShare { t in 1 + 0.4 * sin(2 * .pi * 2.6 * t) } == 0)
    }

    @Test func aSlowStrongBounceIsNotRunning() {
        // Jumping in place at 1.5 Hz: the swing of a run, not its cadence.
        #expect(runningShare { t in max(0.05, 1 + 1.4 * sin(2 * .pi * 1.5 * t)) } == 0)
    }
}
