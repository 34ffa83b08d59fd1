import Testing
@testable import MotionCore
import StepdModel

/// Stepless walking leads under the model-free road evidence hold a drive's onset (activity rule
/// v2.17-V, `ActivityClassifier.roadHoldsEvidence`).
@Suite struct RoadHoldsTheDrive {
    /// Four windows led by automotive, then one led by walking (steering), eight times over:
    /// 32 automotive windows, never 30 in a row. `roadOpen`: the gate's `RoadEvidence`;
    /// `steps`: the gate credits steps in the walking windows.
    private func steering(roadOpen: Bool, steps: Bool = false, magnitudeOnly: Bool = false) -> ActivityState {
        var classifier = ActivityClassifier(start: 0, model: .generated)
        let others = 0.1 / Double(MotionModel.classes.count - 1)
        var end = 5.0
        for k in 0..<40 {
            let kind: ActivityKind = k % 5 == 4 ? .walking : .automotive
            let probabilities = MotionModel.classes.map { $0 == kind ? 0.9 : others }
            let window = ActivityClassifier.Window(end: end, magnitudeOnly: magnitudeOnly, still: false, roadOpen: roadOpen)
            let gait = steps ? ActivityClassifier.Gait(walking: true, runStart: end - 2, lastStep: end - 0.5)
                             : ActivityClassifier.Gait(walking: false, runStart: 0, lastStep: 0)
            _ = classifier.feed(probabilities: probabilities, window: window, gait: gait)
            end += 1
        }
        return classifier.state
    }

    @Test func steeringUnderAnOpenRoadHoldsTheDrive() {
        let drive = steering(roadOpen: true)
        #expect(drive.kind == .automotive)
        // Backdated to the middle of the first automotive window.
        #expect(drive.start == 0)
    }

    @Test func withoutTheRoadOrWithStepsWalkingStillResets() {
        #expect(steering(roadOpen: false).kind != .automotive)
        #expect(steering(roadOpen: true, steps: true).kind != .automotive)
        #expect(steering(roadOpen: true, magnitudeOnly: true).kind != .automotive)
    }
}
