import StepdModel

/// CoreMotion-style activity from the generated classifier (`MotionModel`) over 5 s windows
/// taken every second, with the hysteresis that keeps the state from flickering.
///
/// The window probabilities are smoothed (half of each new window, half of the past), and the
/// state moves to the most probable class once it has led for a few windows: 2 for walking and
/// running (bouts are short), 3 for stationary, 4 for other movement, 6 for cycling and 30 for
/// automotive (a car is a long state; a few vehicle-like seconds at a desk are not a drive).
/// While automotive, a still device stays automotive for 3 minutes (stops at lights) and other
/// movement needs 30 windows. Confidence: the smoothed probability of the state's class,
/// high from 0.8, medium from 0.55.
struct ActivityClassifier: Sendable {
    private var probabilities: [Double]
    private(set) var smoothed: [Double]
    private var fresh = true
    private(set) var state: ActivityState
    private var streakClass = -1
    private var streakStart = 0.0
    private var streakWindows = 0
    private var stillInVehicleSince: Double?
    private let walkingIndex: Int
    private let runningIndex: Int
    private let model: MotionModel

    init(start: Double, model: MotionModel) {
        self.model = model
        probabilities = [Double](repeating: 0, count: MotionModel.classCount)
        smoothed = [Double](repeating: 1 / Double(MotionModel.classCount), count: MotionModel.classCount)
        state = ActivityState(kind: .unknown, confidence: .low, start: start)
        walkingIndex = MotionModel.index(of: .walking) ?? 0
        runningIndex = MotionModel.index(of: .running) ?? 0
    }

    /// After a gap the next window starts the smoothing afresh.
    mutating func resetWindow() { fresh = true }

    /// Smoothed probability that the recent windows are walking or running.
    var locomotion: Double { smoothed[walkingIndex] + smoothed[runningIndex] }

    /// Feeds one window; returns the new state when it changed.
    mutating func feed(_ features: WindowFeatures, gait: StepGate) -> ActivityState? {
        model.probabilities(features, into: &probabilities)
        for k in 0..<probabilities.count {
            smoothed[k] = fresh ? probabilities[k] : 0.5 * smoothed[k] + 0.5 * probabilities[k]
        }
        fresh = false
        var best = 0
        for k in 1..<smoothed.count where smoothed[k] > smoothed[best] { best = k }
        let t = features.windowEnd
        // The evidence for a class starts in the middle of the first window that showed it.
        let windowMiddle = t - Double(WindowFeatures.windowLength) / 2 / WindowFeatures.rate
        if best == streakClass {
            streakWindows += 1
        } else {
            streakClass = best
            streakStart = windowMiddle
            streakWindows = 1
        }
        let kind = MotionModel.classes[best]
        let p = smoothed[best]
        let confidence: ActivityConfidence = p >= 0.8 ? .high : p >= 0.55 ? .medium : .low

        if state.kind == .automotive && kind != .walking && kind != .running {
            if kind == .stationary {
                if stillInVehicleSince == nil { stillInVehicleSince = streakStart }
                if let since = stillInVehicleSince, t - since >= 180 {
                    stillInVehicleSince = nil
                    return change(to: ActivityState(kind: .stationary, confidence: confidence, start: since))
                }
                return nil
            }
            stillInVehicleSince = nil
            if kind == .automotive {
                return confidence > state.confidence ? change(to: ActivityState(kind: .automotive, confidence: confidence, start: state.start)) : nil
            }
            guard streakWindows >= 30 else { return nil }
            return change(to: ActivityState(kind: kind, confidence: confidence, start: max(streakStart, state.start)))
        }
        stillInVehicleSince = nil

        let needed: Int
        switch kind {
        case .walking, .running: needed = 2
        case .stationary: needed = 3
        case .cycling: needed = 6
        case .automotive: needed = 30
        case .unknown: needed = 4
        }
        guard streakWindows >= needed else { return nil }
        if state.kind == kind {
            return confidence > state.confidence ? change(to: ActivityState(kind: kind, confidence: confidence, start: state.start)) : nil
        }
        var start = streakStart
        if kind == .walking || kind == .running, gait.walking { start = min(start, gait.runStart) }
        // Leaving gait: the new state starts after the last step.
        if state.kind == .walking || state.kind == .running { start = max(start, gait.lastStep) }
        return change(to: ActivityState(kind: kind, confidence: confidence, start: max(start, state.start)))
    }

    private mutating func change(to new: ActivityState) -> ActivityState? {
        guard new != state else { return nil }
        state = new
        return new
    }
}
