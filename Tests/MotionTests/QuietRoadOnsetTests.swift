import Testing
import Foundation
@testable import MotionCore
import StepdModel

/// On a noisy sensor the model-free road under a quiet hand meets a drive's road onset (activity rule
/// v2.18-A, `ActivityClassifier.roadOnsetMet`).
@Suite struct QuietRoadOnset {
    /// A steady three-axis window at `vibration` (g) whose movement is spread like a sensor's noise.
    private func noise(vibration: Double) -> [Double] {
        var values = [Double](repeating: 0, count: WindowFeatures.names.count)
        if let k = WindowFeatures.names.firstIndex(of: "vibration_log") { values[k] = log10(vibration) }
        if let k = WindowFeatures.names.firstIndex(of: "vertical_share") { values[k] = 0.31 }
        return values
    }

    /// 40 windows led by automotive that sway but are no road windows of the onset (their road shakes
    /// the wrist across gravity, or below the raised level), on a sensor whose rest taught it
    /// `sensorNoise` (g; nil: never at rest), with the step gate's road evidence open or not.
    private func drive(sensorNoise: Double?, roadOpen: Bool) -> ActivityState {
        var classifier = ActivityClassifier(start: 0, model: .generated)
        if let sensorNoise { classifier.noteNoise(noise(vibration: sensorNoise), magnitudeOnly: false) }
        let n = MotionModel.classes.count
        let probabilities = MotionModel.classes.map { $0 == .automotive ? 0.9 : 0.1 / Double(n - 1) }
        var end = 5.0
        for _ in 0..<40 {
            var window = ActivityClassifier.Window(end: end, magnitudeOnly: false, still: false, roadOpen: roadOpen)
            window.road = false
            _ = classifier.feed(probabilities: probabilities, window: window,
                                gait: ActivityClassifier.Gait(walking: false, runStart: 0, lastStep: 0))
            end += 1
        }
        return classifier.state
    }

    /// 0.03 g of white noise: a floor of about 22 mg raises the road level to 37.5 mg.
    @Test func anOpenRoadOnANoisySensorMeetsTheOnset() {
        let state = drive(sensorNoise: 0.022, roadOpen: true)
        #expect(state.kind == .automotive)
        // Backdated to the middle of the first automotive window.
        #expect(state.start == 0)
    }

    /// Without the open road the onset still needs its road windows.
    @Test func withoutTheOpenRoadTheOnsetWaits() {
        #expect(drive(sensorNoise: 0.022, roadOpen: false).kind != .automotive)
    }

    /// On a quiet sensor (the road level is the road's own 20 mg) the open road does not stand in: a desk
    /// under zero-g offsets opens it with its forearm's movement across gravity and no road window.
    @Test func onAQuietSensorTheOpenRoadDoesNotStandIn() {
        #expect(drive(sensorNoise: 0.004, roadOpen: true).kind != .automotive)
        #expect(drive(sensorNoise: nil, roadOpen: true).kind != .automotive)
        #expect(!ActivityClassifier.roadOnsetMet(roadWindows: 11, window: ActivityClassifier.Window(end: 0, magnitudeOnly: false, still: false, roadOpen: true), noiseFloor: 0.004))
        #expect(ActivityClassifier.roadOnsetMet(roadWindows: 12, window: ActivityClassifier.Window(end: 0, magnitudeOnly: false, still: false), noiseFloor: 0))
    }
}
