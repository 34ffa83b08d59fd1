@testable import MotionCore
import Testing

/// A chain out of a minute of magnitude-only desk work (`DeskMinute`, gate v2.18-Q): the hand moved
/// for the minute, the classifier called none of it locomotion, the band offered almost no step
/// candidates and no step was credited; the chain needs 21 regular candidates instead of 7.
@Suite struct DeskMinuteTests {
    /// One window's feature vector with the |a| spread (log10 g, as `magnitude_std_log`) and the step
    /// candidates per second (`peak_rate`); every other feature 0.
    static func values(spreadLog: Double, peakRate: Double) -> [Double] {
        var values = [Double](repeating: 0, count: WindowFeatures.names.count)
        if let index = WindowFeatures.names.firstIndex(of: "magnitude_std_log") { values[index] = spreadLog }
        if let index = WindowFeatures.names.firstIndex(of: "peak_rate") { values[index] = peakRate }
        return values
    }

    /// Typing and mousing as the rieck PC work reads: moving (0.1 g), one candidate in 5 s.
    static let typing = values(spreadLog: -1.0, peakRate: 0.2)
    /// A wrist at rest (a walk from a still start, the bouts' 15 s of rest).
    static let still = values(spreadLog: -2.8, peakRate: 0)
    /// A slow walk the classifier does not call locomotion: a candidate a step.
    static let slowWalk = values(spreadLog: -1.0, peakRate: 0.8)
    /// The windows of the chain itself: a walk's rhythm, called locomotion.
    static let walking = values(spreadLog: -0.7, peakRate: 1.4)

    /// Interval factors of a chain that does not keep time (cycled): the spread of any 6 intervals
    /// is 0.20 (the held-out PC chains 0.17 or more), every half stride within the gate's regularity.
    static let unsteady = [1.0, 0.75, 1.25, 1.25, 0.75, 1.0]

    /// `peaks` peaks from `from` s, 0.7 s apart on average (exactly when `steady`, else cycling
    /// through `unsteady`), each window (every second from 1 s) called
    /// locomotion and showing their rhythm on a magnitude-only watch with a walk's smooth |a|
    /// (no other |a| rule holds it); before `from`, the windows are `before` (classifier at 0.1,
    /// magnitude-only unless `threeAxis`). `walkFirst`: a 12-step chain at 2-9.7 s is credited first.
    /// `stride`: the windows' stride correlation (`ac_stride`); `unsure`: the classifier only leans
    /// to locomotion (the peaks are not offered as locomotion, the windows confirm as unsure).
    /// `dominant`: the windows' dominant frequency (Hz), the peaks' rate unless given.
    private func steps(peaks: Int, from: Double = 61, before: [Double], beforeFrom: Double = 1, threeAxis: Bool = false,
                       walkFirst: Bool = false, stride: Double = 0, unsure: Bool = false, steady: Bool = false,
                       dominant: Double = 1 / 0.7) -> Int {
        let first = walkFirst ? chain(from: 2, count: 12, interval: 0.7) : []
        let firstEnd = first.last.map { $0 + 1.5 } ?? 0
        var bout = [from]
        for i in 1..<max(peaks, 1) { bout.append(bout[i - 1] + 0.7 * (steady ? 1 : Self.unsteady[(i - 1) % Self.unsteady.count])) }
        return creditedSteps(first + bout.prefix(peaks), firstWindow: 1, unsure: unsure, closingWindow: true,
                             locomotion: { end in end <= firstEnd || (end > from && !unsure) },
                             desk: { end in
                                 if end <= firstEnd || end > from { return (Self.walking, true, 0.9) }
                                 return (end >= beforeFrom ? before : Self.still, !threeAxis, 0.1)
                             }) { _ in
            var window = StepGate.WindowCadence(stepCorrelation: 0.8, stepLag: 0.7, dominantFrequency: dominant)
            window.armWork = MagnitudeArmWork.Evidence(balance: -0.3, swing: -0.6)
            window.strideCorrelation = stride
            return window
        } - first.count
    }

    @Test func aShortChainOutOfADeskMinuteIsNotCredited() {
        // 12 regular peaks after a minute of typing: not the 21 the chain needs.
        #expect(steps(peaks: 12, before: Self.typing) == 0)
        // A chain that keeps the rhythm for 21 candidates is credited back whole: a walk from the desk.
        #expect(steps(peaks: 24, before: Self.typing) == 24)
    }

    /// Gate v2.18-B: a 10-20-step bout out of the desk (the bench's "bouts after daily life") never
    /// offers 21 candidates; a chain whose window the classifier calls locomotion and whose band
    /// repeats stride after stride (>= 0.7; the held-out PC chains reach at most 0.54) is a gait.
    @Test func aShortBoutOutOfTheDeskThatShowsAStrideIsCreditedAtSeven() {
        #expect(steps(peaks: 12, before: Self.typing, stride: 0.8) == 12)
        #expect(steps(peaks: 12, before: Self.typing, stride: 0.6) == 0)
        // The classifier merely unsure: the chain still waits for 21.
        #expect(steps(peaks: 12, before: Self.typing, stride: 0.8, unsure: true) == 0)
    }

    /// Gate v2.18-D: a bout out of the desk whose last 7 candidates keep time (interval spread <= 0.12)
    /// at the window's dominant frequency is a walk, whatever its stride correlation; PC chains spread
    /// 0.17 or more held out, synthetic |a| clapping keeps time at twice its chain's rate.
    @Test func aShortBoutOutOfTheDeskThatKeepsTimeIsCreditedAtSeven() {
        #expect(steps(peaks: 12, before: Self.typing, steady: true) == 12)
        // Not in time (spread 0.20), or the band's dominant frequency twice the chain's rate: 21 needed.
        #expect(steps(peaks: 12, before: Self.typing) == 0)
        #expect(steps(peaks: 12, before: Self.typing, steady: true, dominant: 2 / 0.7) == 0)
        // The classifier merely unsure: the chain still waits for 21.
        #expect(steps(peaks: 12, before: Self.typing, unsure: true, steady: true) == 0)
    }

    @Test func keepingTimeReadsTheSpreadOfTheIntervalsAndTheWindowsRate() {
        var window = StepGate.WindowCadence(stepCorrelation: 0.3, stepLag: 0.5, dominantFrequency: 2)
        window.armWork = MagnitudeArmWork.Evidence(balance: -0.3, swing: -0.6)
        let steady = ArraySlice(chain(from: 10, count: 7, interval: 0.5))
        #expect(SteadyDeskBout.keepsTime(steady, window: window, tolerance: 0.2, longestPeriod: 0.95))
        #expect(!SteadyDeskBout.keepsTime(steady, window: nil, tolerance: 0.2, longestPeriod: 0.95))
        var twice = window
        twice.dominantFrequency = 4
        #expect(!SteadyDeskBout.keepsTime(steady, window: twice, tolerance: 0.2, longestPeriod: 0.95))
        // Intervals 0.45 and 0.55 in turn: spread 0.10, in time; 0.4 and 0.6: spread 0.20, not.
        let within = ArraySlice([10, 10.45, 11, 11.45, 12, 12.45, 13])
        let beyond = ArraySlice([10, 10.4, 11, 11.4, 12, 12.4, 13])
        #expect(SteadyDeskBout.keepsTime(within, window: window, tolerance: 0.2, longestPeriod: 0.95))
        #expect(!SteadyDeskBout.keepsTime(beyond, window: window, tolerance: 0.2, longestPeriod: 0.95))
        #expect(!SteadyDeskBout.keepsTime(ArraySlice([10, 10.5]), window: window, tolerance: 0.2, longestPeriod: 0.95))
        // A chain 1.2 s apart that keeps time at its window's rate is left to the slow paths.
        let slow = ArraySlice(chain(from: 10, count: 7, interval: 1.2))
        var slowWindow = StepGate.WindowCadence(stepCorrelation: 0.3, stepLag: 0.6, dominantFrequency: 1 / 1.2)
        slowWindow.armWork = MagnitudeArmWork.Evidence(balance: -0.3, swing: -0.6)
        #expect(!SteadyDeskBout.keepsTime(slow, window: slowWindow, tolerance: 0.2, longestPeriod: 0.95))
        #expect(SteadyDeskBout.keepsTime(slow, window: slowWindow, tolerance: 0.2, longestPeriod: 1.3))
        // The |a| above 6 Hz outweighs the gait band (synthetic clapping): not a walk's keeping time.
        var clapping = window
        clapping.armWork = MagnitudeArmWork.Evidence(balance: 0.2, swing: -0.6)
        #expect(!SteadyDeskBout.keepsTime(steady, window: clapping, tolerance: 0.2, longestPeriod: 0.95))
    }

    @Test func aWalkAfterRestOrAStepRhythmOrThreeAxisIsCreditedAtSeven() {
        #expect(steps(peaks: 12, before: Self.still) == 12)
        #expect(steps(peaks: 12, before: Self.slowWalk) == 12)
        #expect(steps(peaks: 12, before: Self.typing, threeAxis: true) == 12)
        // Ten desk windows in the minute (the rest still) are not enough: the walks' chains see at most 8.
        #expect(steps(peaks: 12, before: Self.typing, beforeFrom: 52) == 12)
        #expect(steps(peaks: 12, before: Self.typing, beforeFrom: 50) == 0)
    }

    @Test func aWalkInItsMinuteIsNotJudgedByIt() {
        // A step credited 52 s before the chain's last candidate: the minute holds a walk.
        #expect(steps(peaks: 12, before: Self.typing, walkFirst: true) == 12)
    }

    @Test func theMinuteCountsMovingMagnitudeOnlyWindowsWithoutLocomotionOrCandidates() {
        var minute = DeskMinute()
        for _ in 0..<30 { minute.observe(values: Self.typing, magnitudeOnly: true, locomotion: 0.1) }
        #expect(minute.deskWindows == 30)
        minute.observe(values: Self.typing, magnitudeOnly: false, locomotion: 0.1)
        minute.observe(values: Self.typing, magnitudeOnly: true, locomotion: 0.5)
        minute.observe(values: Self.still, magnitudeOnly: true, locomotion: 0.1)
        minute.observe(values: Self.slowWalk, magnitudeOnly: true, locomotion: 0.1)
        #expect(minute.deskWindows == 30)
        #expect(minute.holdsBack(magnitudeOnly: true, sinceLastStep: 61, confident: true, strideCorrelation: 0.6))
        #expect(minute.holdsBack(magnitudeOnly: true, sinceLastStep: 61, confident: false, strideCorrelation: 0.9))
        #expect(!minute.holdsBack(magnitudeOnly: true, sinceLastStep: 61, confident: true, strideCorrelation: 0.7))
        #expect(!minute.holdsBack(magnitudeOnly: true, sinceLastStep: 61, confident: true, strideCorrelation: 0, keepsTime: true))
        #expect(minute.holdsBack(magnitudeOnly: true, sinceLastStep: 61, confident: false, strideCorrelation: 0, keepsTime: true))
        #expect(!minute.holdsBack(magnitudeOnly: false, sinceLastStep: 61, confident: true, strideCorrelation: 0))
        #expect(!minute.holdsBack(magnitudeOnly: true, sinceLastStep: 59, confident: true, strideCorrelation: 0))
        // Only the last minute counts.
        for _ in 0..<40 { minute.observe(values: Self.still, magnitudeOnly: true, locomotion: 0.1) }
        #expect(minute.deskWindows == 16)
        minute.reset()
        #expect(minute.deskWindows == 0)
    }
}
