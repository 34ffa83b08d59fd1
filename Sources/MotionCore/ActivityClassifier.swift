import StepdModel

/// CoreMotion-style activity from 1-second blocks of the 25 Hz magnitude and the gait state.
///
/// Feature: the vibration level, the median over the last 10 s of each second's standard
/// deviation of |a|. A device at rest sits at the sensor noise (< 0.008 g); a car transmits
/// road vibration all the time (0.012-0.1 g) while desk work is still most seconds and moves in
/// bursts, so the median separates them where the plain 10 s deviation does not. Gait comes
/// from the step gate (regular steps), which no vibration produces.
/// Hysteresis: walking starts when the gate confirms gait (backdated to the first step); other
/// kinds need a streak (5 s still, 30 s vehicle-like, 10 s unknown); while automotive, stops at
/// lights and arm movements keep the state until 3 minutes of stillness.
struct ActivityClassifier: Sendable {
    static let blockLength = 25
    static let windowBlocks = 10
    private let parameters: ActivityParameters

    enum Raw: Sendable, Equatable { case still, quiet, vehicle, gait, running, unknown }

    private var blockSum = 0.0
    private var blockSumSquares = 0.0
    private var blockCount = 0
    private var blockLevels: [Double]
    private var sorted: [Double]
    private var blocksFilled = 0
    private var blockIndex = 0

    private(set) var state: ActivityState
    /// The vibration level of the last decision (g).
    private(set) var level = 0.0
    private var streakKind: ActivityKind = .unknown
    private var streakStart = 0.0
    private var streakBlocks = 0
    private var stillInVehicleSince: Double?

    init(start: Double, parameters: ActivityParameters) {
        self.parameters = parameters
        blockLevels = [Double](repeating: 0, count: Self.windowBlocks)
        sorted = blockLevels
        state = ActivityState(kind: .unknown, confidence: .low, start: start)
    }

    mutating func resetWindow() {
        blockSum = 0
        blockSumSquares = 0
        blockCount = 0
        blocksFilled = 0
    }

    /// Feeds one internal sample; returns the new state when it changed.
    @inline(__always)
    mutating func feed(magnitude: Double, at t: Double, gait: StepGate) -> ActivityState? {
        let centred = magnitude - 1
        blockSum += centred
        blockSumSquares += centred * centred
        blockCount += 1
        guard blockCount == Self.blockLength else { return nil }
        let n = Double(blockCount)
        let mean = blockSum / n
        let level = max(blockSumSquares / n - mean * mean, 0).squareRoot()
        blockSum = 0
        blockSumSquares = 0
        blockCount = 0
        blockLevels[blockIndex] = level
        blockIndex = (blockIndex + 1) % Self.windowBlocks
        blocksFilled = min(blocksFilled + 1, Self.windowBlocks)
        return decide(at: t, gait: gait)
    }

    private mutating func vibrationLevel() -> Double {
        for i in 0..<blocksFilled { sorted[i] = blockLevels[i] }
        for i in 1..<max(blocksFilled, 1) {
            let v = sorted[i]
            var j = i - 1
            while j >= 0 && sorted[j] > v {
                sorted[j + 1] = sorted[j]
                j -= 1
            }
            sorted[j + 1] = v
        }
        return sorted[blocksFilled / 2]
    }

    private mutating func decide(at t: Double, gait: StepGate) -> ActivityState? {
        let level = vibrationLevel()
        self.level = level
        let raw: Raw
        if gait.walking {
            raw = (gait.cadence ?? 0) >= parameters.runningCadence && level > parameters.runningLevel ? .running : .gait
        } else if blocksFilled < 3 {
            return nil
        } else if level < parameters.stillLevel {
            raw = .still
        } else if level < parameters.vehicleLevel {
            raw = .quiet
        } else if level <= parameters.vehicleMaxLevel {
            raw = .vehicle
        } else {
            raw = .unknown
        }

        if raw == .gait || raw == .running {
            let kind: ActivityKind = raw == .running ? .running : .walking
            let confidence: ActivityConfidence = gait.runSteps >= 20 ? .high : .medium
            stillInVehicleSince = nil
            streakBlocks = 0
            if state.kind != kind {
                return change(to: ActivityState(kind: kind, confidence: confidence, start: max(gait.runStart, state.start)))
            }
            if state.confidence != confidence {
                return change(to: ActivityState(kind: kind, confidence: confidence, start: state.start))
            }
            return nil
        }

        let candidate: ActivityKind
        switch raw {
        case .still: candidate = .stationary
        case .quiet: candidate = state.kind == .automotive ? .automotive : .stationary
        case .vehicle: candidate = .automotive
        default: candidate = .unknown
        }
        let blockStart = t - Double(Self.blockLength) / MotionEngine.internalRate
        if candidate == streakKind {
            streakBlocks += 1
        } else {
            streakKind = candidate
            streakStart = blockStart
            streakBlocks = 1
        }

        if state.kind == .automotive {
            // Stops, arm movements and quiet spells are part of a drive.
            if candidate == .stationary {
                if stillInVehicleSince == nil { stillInVehicleSince = blockStart }
                if let since = stillInVehicleSince, t - since >= 180 {
                    stillInVehicleSince = nil
                    return change(to: ActivityState(kind: .stationary, confidence: .medium, start: since))
                }
                return nil
            }
            stillInVehicleSince = nil
            if candidate == .unknown && streakBlocks >= 60 {
                return change(to: ActivityState(kind: .unknown, confidence: .low, start: streakStart))
            }
            if candidate == .automotive && state.confidence != .high && t - state.start >= 120 {
                return change(to: ActivityState(kind: .automotive, confidence: .high, start: state.start))
            }
            return nil
        }

        let needed: Int
        let confidence: ActivityConfidence
        switch candidate {
        case .stationary:
            needed = 5
            confidence = level < parameters.stillLevel / 2 ? .high : .medium
        case .automotive:
            needed = 30
            confidence = .medium
        default:
            needed = state.kind == .walking || state.kind == .running ? 3 : 10
            confidence = .low
        }
        guard streakBlocks >= needed else { return nil }
        if state.kind == candidate {
            if confidence > state.confidence {
                return change(to: ActivityState(kind: candidate, confidence: confidence, start: state.start))
            }
            return nil
        }
        // Leaving gait: the new state starts after the last step.
        let start = state.kind == .walking || state.kind == .running ? max(streakStart, gait.lastStep) : streakStart
        return change(to: ActivityState(kind: candidate, confidence: confidence, start: max(start, state.start)))
    }

    private mutating func change(to new: ActivityState) -> ActivityState? {
        guard new != state else { return nil }
        state = new
        return new
    }
}
