import Testing
import Foundation
@testable import MotionCore
import StepdModel

/// A drive's onset is driving, not scattered car-like minutes held together by rests (activity rule
/// v2.18-A, `AutomotiveEvidenceSpan`).
@Suite struct AutomotiveEvidenceSpanRule {
    /// Feeds stretches of windows, one a second, each led by automotive or by stationary (three axes,
    /// road and sway present), and returns the state.
    private func run(_ stretches: [(automotive: Bool, windows: Int)]) -> ActivityState {
        var classifier = ActivityClassifier(start: 0, model: .generated)
        let n = MotionModel.classes.count
        var end = 5.0
        for stretch in stretches {
            let lead: ActivityKind = stretch.automotive ? .automotive : .stationary
            let probabilities = MotionModel.classes.map { $0 == lead ? 0.9 : 0.1 / Double(n - 1) }
            for _ in 0..<stretch.windows {
                let window = ActivityClassifier.Window(end: end, magnitudeOnly: false, still: false)
                _ = classifier.feed(probabilities: probabilities, window: window,
                                    gait: ActivityClassifier.Gait(walking: false, runStart: 0, lastStep: 0))
                end += 1
            }
        }
        return classifier.state
    }

    /// In the manner of the offset desk: car-like windows, more than two minutes of rest, more of them,
    /// half a minute of rest, the rest of the thirty: 30 counted windows over about 3 minutes.
    @Test func carLikeWindowsScatteredOverMinutesAreNoDrive() {
        let state = run([(true, 12), (false, 137), (true, 10), (false, 35), (true, 10), (false, 5)])
        #expect(state.kind != .automotive)
    }

    /// A drive with a stop at a light inside its onset: 15 windows, a minute still, 15 more.
    @Test func aDriveWithAStopStillStartsBackdated() {
        let state = run([(true, 15), (false, 60), (true, 15)])
        #expect(state.kind == .automotive)
        #expect(state.start == 0)
    }

    /// Scattered evidence is kept, not reset: once the car leads for a minute the drive starts at
    /// its first window.
    @Test func aDenseMinuteAfterScatteredEvidenceIsBackdated() {
        let state = run([(true, 12), (false, 137), (true, 40)])
        #expect(state.kind == .automotive)
        #expect(state.start == 0)
    }

    @Test func theSpanIsTheLastThirtyWindows() {
        var span = AutomotiveEvidenceSpan(windows: 3)
        span.note(0)
        span.note(100)
        #expect(!span.isDense(at: 101))
        span.note(130)
        #expect(!span.isDense(at: 130))
        span.note(140)
        #expect(span.isDense(at: 140))
    }
}
