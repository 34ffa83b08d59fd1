import Testing
import Foundation
@testable import MotionCore
import StepdModel

/// A road cannot raise the level a road must reach (activity rule v2.17-F,
/// `ActivityClassifier.isSensorNoise`, `sensorNoiseFloor`).
@Suite struct NoiseFloorShape {
    /// A steady three-axis window: vibration (median 1 s deviation of |a|, g) and the share of its
    /// movement along gravity.
    private func steady(vibration: Double, verticalShare: Double) -> [Double] {
        var values = [Double](repeating: 0, count: WindowFeatures.names.count)
        if let k = WindowFeatures.names.firstIndex(of: "vibration_log") { values[k] = log10(vibration) }
        if let k = WindowFeatures.names.firstIndex(of: "vertical_share") { values[k] = verticalShare }
        return values
    }

    private func floors(_ windows: [[Double]]) -> (rest: Double?, sensor: Double?) {
        var classifier = ActivityClassifier(start: 0, model: .generated)
        for values in windows { classifier.noteNoise(values, magnitudeOnly: false) }
        return (classifier.noiseFloor, classifier.sensorNoiseFloor)
    }

    /// A recording that starts in a moving car held steady: 50 mg of road, 80 % along gravity.
    @Test func aSteadyRoadTeachesNoRoadLevel() {
        let road = steady(vibration: 0.050, verticalShare: 0.8)
        let (rest, sensor) = floors([[Double]](repeating: road, count: 20))
        // The still rule keeps it; the road level stays a road's own 20 mg.
        #expect(abs((rest ?? 0) - 0.050) < 1e-9)
        #expect(sensor == nil)
        #expect(ActivityClassifier.roadLevel(noiseFloor: sensor ?? 0) == ActivityClassifier.roadVibration)
    }

    /// White noise of about 0.03 g per axis at rest: a third along gravity; the road level rises.
    @Test func isotropicNoiseTeachesTheFloor() {
        let noise = steady(vibration: 0.022, verticalShare: 0.31)
        let road = steady(vibration: 0.050, verticalShare: 0.8)
        let (_, sensor) = floors([road, noise, road])
        #expect(abs((sensor ?? 0) - 0.022) < 1e-9)
        #expect(ActivityClassifier.roadLevel(noiseFloor: sensor ?? 0) > ActivityClassifier.roadVibration)
    }

    /// Below a road's level no window is a road, whatever its direction (a coarse quantiser's
    /// flicker may fall on the gravity axis).
    @Test func vibrationBelowTheRoadLevelCountsInAnyDirection() {
        let (_, sensor) = floors([steady(vibration: 0.015, verticalShare: 0.9)])
        #expect(abs((sensor ?? 0) - 0.015) < 1e-9)
        #expect(ActivityClassifier.isSensorNoise(steady(vibration: 0.030, verticalShare: 0.45)))
        #expect(!ActivityClassifier.isSensorNoise(steady(vibration: 0.030, verticalShare: 0.6)))
    }
}

/// A lone unknown lead under an open road holds a drive's onset (activity rule v2.17-F,
/// `ActivityClassifier.loneUnknownHolds`).
@Suite struct LoneUnknownLead {
    /// Windows led by automotive, broken every `period`-th window by `unknownRun` windows led by
    /// unknown, over 45 windows: 32 or more automotive windows, never 30 in a row.
    private func drive(roadOpen: Bool, period: Int = 5, unknownRun: Int = 1, magnitudeOnly: Bool = false) -> ActivityState {
        var classifier = ActivityClassifier(start: 0, model: .generated)
        let n = MotionModel.classes.count
        var end = 5.0
        for k in 0..<45 {
            let unknown = k % period >= period - unknownRun
            let probabilities = MotionModel.classes.map { kind -> Double in
                unknown ? (kind == .unknown ? 0.99 : 0.01 / Double(n - 1)) : (kind == .automotive ? 0.9 : 0.1 / Double(n - 1))
            }
            let window = ActivityClassifier.Window(end: end, magnitudeOnly: magnitudeOnly, still: false, roadOpen: roadOpen)
            _ = classifier.feed(probabilities: probabilities, window: window,
                                gait: ActivityClassifier.Gait(walking: false, runStart: 0, lastStep: 0))
            end += 1
        }
        return classifier.state
    }

    @Test func aLoneUnknownUnderAnOpenRoadHoldsTheDrive() {
        let state = drive(roadOpen: true)
        #expect(state.kind == .automotive)
        // Backdated to its first automotive window, the input's first: from that window's start.
        #expect(state.start == 0)
    }

    @Test func withoutTheRoadTwoInARowOrOnMagnitudeAloneItResets() {
        #expect(drive(roadOpen: false).kind != .automotive)
        #expect(drive(roadOpen: true, period: 6, unknownRun: 2).kind != .automotive)
        #expect(drive(roadOpen: true, magnitudeOnly: true).kind != .automotive)
    }
}
