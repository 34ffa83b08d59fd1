import Glibc
@testable import MotionCore
import StepdModel
import Testing

/// `ActivityClassifier.isNoiseLevelTilt` (activity rule v2.19-A): on a noisy sensor a slow tilt within
/// the sensor's noise that the model calls a car is stationary for the state, automotive for the
/// drive's evidence, and no pause of a walk.
@Suite struct NoiseLevelTiltRule {
    /// A device tilting by `amplitude` rad over a 10 s swing, shaken by `shake` g on every axis.
    private func tilting(amplitude: Double, shake: Double) -> WindowFeatures {
        windowFeatures(seconds: 8) { t in
            let angle = amplitude * sin(2 * .pi * t / 10)
            return (sin(angle) + shake * sin(2 * .pi * 9.1 * t), shake * sin(2 * .pi * 7.7 * t),
                    cos(angle) + shake * sin(2 * .pi * 8.3 * t))
        }
    }

    private func vibration(_ reading: WindowFeatures) -> Double {
        pow(10, ActivityClassifier.vibrationFeature.value(in: reading.values) ?? -9)
    }

    @Test func aSlowTiltWithinANoisySensorsNoiseIsANoiseLevelTilt() {
        // About 0.15 rad of tilt shaken at a noisy sensor's level (tens of mg).
        let reading = tilting(amplitude: 0.12, shake: 0.03)
        let level = vibration(reading)
        #expect(level > 0.012 && level < 0.06)
        #expect(!ActivityClassifier.isQuietTilt(reading.values, magnitudeOnly: false))
        // Within 1.5 x the sensor's floor it is a noise-level tilt; above it (a road over the noise),
        // on a quiet sensor (floor below 8 mg, or unknown), turning half a radian, or |a| alone, not.
        #expect(ActivityClassifier.isNoiseLevelTilt(reading.values, magnitudeOnly: false, sensorNoiseFloor: level / 1.3))
        #expect(!ActivityClassifier.isNoiseLevelTilt(reading.values, magnitudeOnly: false, sensorNoiseFloor: level / 1.7))
        #expect(!ActivityClassifier.isNoiseLevelTilt(reading.values, magnitudeOnly: false, sensorNoiseFloor: 0.006))
        #expect(!ActivityClassifier.isNoiseLevelTilt(reading.values, magnitudeOnly: false, sensorNoiseFloor: 0))
        let turning = tilting(amplitude: 0.5, shake: 0.03)
        #expect(!ActivityClassifier.isNoiseLevelTilt(turning.values, magnitudeOnly: false, sensorNoiseFloor: vibration(turning) / 1.3))
        let magnitude = windowFeatures(seconds: 8) { t in (1 + 0.03 * sin(2 * .pi * 8.3 * t), 0, 0) }
        #expect(!ActivityClassifier.isNoiseLevelTilt(magnitude.values, magnitudeOnly: true, sensorNoiseFloor: 0.02))
    }

    @Test func aNoiseLevelTiltTheModelCallsACarIsStationary() {
        var held = ClassifierRun()
        held.feed(.automotive, windows: 5, noiseLevelTilt: true)
        #expect(held.classifier.state.kind == .stationary)
        #expect(held.classifier.state.start == 0)
        // Without the tilt the model's lead stands: 5 automotive windows are no state yet.
        var led = ClassifierRun()
        led.feed(.automotive, windows: 5)
        #expect(led.classifier.state.kind == .unknown)
    }

    @Test func noiseLevelTiltsStillCountTowardsADrive() {
        // 20 windows of a smooth road at the noise, then 10 the model calls a car outright: the
        // drive starts at its 30th window, backdated to the first, over the stationary state.
        var drive = ClassifierRun()
        drive.feed(.automotive, windows: 20, noiseLevelTilt: true)
        #expect(drive.classifier.state.kind == .stationary)
        drive.feed(.automotive, windows: 10)
        #expect(drive.classifier.state.kind == .automotive)
        #expect(drive.classifier.state.start == 0)
        // All 30 at the noise: the 30th is the model's car.
        var smooth = ClassifierRun()
        smooth.feed(.automotive, windows: 30, noiseLevelTilt: true)
        #expect(smooth.classifier.state.kind == .automotive)
        // Inside a drive the tilt stays the model's.
        smooth.feed(.automotive, windows: 5, noiseLevelTilt: true)
        #expect(smooth.classifier.state.kind == .automotive)
    }

    @Test func aWalkersPauseAtTheNoiseKeepsTheWalk() {
        var walk = ClassifierRun()
        walk.feed(.walking, windows: 4, steps: true)
        #expect(walk.classifier.state.kind == .walking)
        walk.feed(.automotive, windows: 5, noiseLevelTilt: true)
        #expect(walk.classifier.state.kind == .walking)
    }
}

private extension ClassifierRun {
    mutating func feed(_ kind: ActivityKind, windows: Int, noiseLevelTilt: Bool = false, steps: Bool = false) {
        feedLeading(kind, windows: windows, steps: steps) { $0.noiseLevelTilt = noiseLevelTilt }
    }
}
