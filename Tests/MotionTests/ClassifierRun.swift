import StepdModel
@testable import MotionCore

/// Drives an `ActivityClassifier` as the engine does, one window a second from 5 s, each with the
/// model leading one class at 0.9 (the rest shared evenly): the activity rules' tests read the
/// state it reaches.
struct ClassifierRun {
    var classifier = ActivityClassifier(start: 0, model: .generated)
    var end = 5.0

    /// `windows` windows the model leads `kind`; `steps`: the step gate has a run whose last step
    /// came half a second before each window's end; `flags` sets the window's readings (a tilt, a
    /// steady hand, ...) on a three-axis window that moves.
    mutating func feedLeading(_ kind: ActivityKind, windows: Int, steps: Bool = false,
                              flags: (inout ActivityClassifier.Window) -> Void = { _ in }) {
        let others = 0.1 / Double(MotionModel.classes.count - 1)
        let probabilities = MotionModel.classes.map { $0 == kind ? 0.9 : others }
        for _ in 0..<windows {
            let gait = ActivityClassifier.Gait(walking: steps, runStart: steps ? 1 : 0, lastStep: steps ? end - 0.5 : 0)
            var window = ActivityClassifier.Window(end: end, magnitudeOnly: false, still: false)
            flags(&window)
            _ = classifier.feed(probabilities: probabilities, window: window, gait: gait)
            end += 1
        }
    }
}
