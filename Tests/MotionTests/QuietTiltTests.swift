import Glibc
@testable import MotionCore
import StepdModel
import Testing

/// `ActivityClassifier.isQuietTilt` (activity rule v2.18-R): a held device tilted slowly at
/// rest-level vibration is stationary where the model leads unknown, and is no stop inside a drive.
@Suite struct QuietTiltRule {
    /// A device tilting by `amplitude` rad over a 10 s swing with `tremor` g of hand tremor.
    private func tilting(amplitude: Double, tremor: Double) -> WindowFeatures {
        windowFeatures(seconds: 8) { t in
            let angle = amplitude * sin(2 * .pi * t / 10)
            return (sin(angle) + tremor * sin(2 * .pi * 9.1 * t), 0.6 * tremor * sin(2 * .pi * 7.7 * t),
                    cos(angle) + tremor * sin(2 * .pi * 8.3 * t))
        }
    }

    @Test func aSlowTiltAtRestLevelIsAQuietTilt() {
        // About 0.15 rad of tilt in the window with 8 mg of tremor: too much turn for a steady
        // hand (0.1 rad) or a device at rest, a quiet tilt.
        let reading = tilting(amplitude: 0.12, tremor: 0.008)
        #expect(ActivityClassifier.isQuietTilt(reading.values, magnitudeOnly: false))
        #expect(!ActivityClassifier.isSteadyHand(reading.values, magnitudeOnly: false))
        #expect(!ActivityClassifier.isStill(reading.values, magnitudeOnly: false))
        // The same tilt shaken at 20 mg (a hand carrying the device, a road), a wrist turning by
        // half a radian, |a| alone: none is.
        let shaken = tilting(amplitude: 0.12, tremor: 0.02)
        #expect(!ActivityClassifier.isQuietTilt(shaken.values, magnitudeOnly: false))
        let turning = tilting(amplitude: 0.5, tremor: 0.008)
        #expect(!ActivityClassifier.isQuietTilt(turning.values, magnitudeOnly: false))
        let magnitude = windowFeatures(seconds: 8) { t in (1 + 0.005 * sin(2 * .pi * 5.7 * t), 0, 0) }
        #expect(!ActivityClassifier.isQuietTilt(magnitude.values, magnitudeOnly: true))
    }

    @Test func aQuietTiltIsStationaryWhereTheModelIsUnsure() {
        var held = ClassifierRun()
        held.feed(.unknown, windows: 3, quietTilt: true)
        #expect(held.classifier.state.kind == .stationary)
        #expect(held.classifier.state.start == 0)
        // An automotive lead stays the model's.
        var drive = ClassifierRun()
        drive.feed(.automotive, windows: 30, quietTilt: true)
        #expect(drive.classifier.state.kind == .automotive)
    }

    @Test func aQuietTiltIsNoStopInsideADrive() {
        // 20 automotive windows, 4 of a hand tilting the device: the evidence starts afresh, as
        // after the unknown lead the model gave; 10 more automotive windows are no drive.
        var tilted = ClassifierRun()
        tilted.feed(.automotive, windows: 20)
        tilted.feed(.unknown, windows: 4, quietTilt: true)
        tilted.feed(.automotive, windows: 10)
        #expect(tilted.classifier.state.kind != .automotive)
        // A steadily held device there is a stop at a light: the evidence holds, the drive starts.
        var stop = ClassifierRun()
        stop.feed(.automotive, windows: 20)
        stop.feed(.unknown, windows: 4, steadyHand: true)
        stop.feed(.automotive, windows: 10)
        #expect(stop.classifier.state.kind == .automotive)
    }
}

private extension ClassifierRun {
    mutating func feed(_ kind: ActivityKind, windows: Int, quietTilt: Bool = false, steadyHand: Bool = false) {
        feedLeading(kind, windows: windows) {
            $0.quietTilt = quietTilt
            $0.steadyHand = steadyHand
        }
    }
}
