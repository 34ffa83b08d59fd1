import StepdModel

/// When the engine hands out each credited step: the time of the sample being pushed when
/// `MotionEngine.process` (or `finish`) returned the step, beside the step's own time. The
/// difference is how late the ledger and the live socket hear of a step: the gate credits chains
/// back with their own (earlier) times once they are confirmed, so a walk's first steps reach
/// them seconds after they happened ("Live updates still arrive within a few seconds", issue 10).
/// Kept outside the engine: it only watches what `process` returns, so counting is untouched.
public struct CreditLog: Sendable, Equatable {
    /// Every credited step's own time, in the order the engine emitted them.
    public private(set) var stepTimes: [Double] = []
    /// The time of the sample being pushed when each step of `stepTimes` was emitted.
    public private(set) var emittedAt: [Double] = []
    /// Every activity change, with the time of the sample that produced it.
    public private(set) var changes: [(state: ActivityState, emittedAt: Double)] = []

    public init() {}

    /// Takes what the engine returned while the sample at `t` was pushed (for `finish`: the last sample's time).
    public mutating func note(_ update: MotionUpdate?, pushedAt t: Double) {
        guard let update else { return }
        stepTimes.append(contentsOf: update.stepTimes)
        emittedAt.append(contentsOf: repeatElement(t, count: update.stepTimes.count))
        if let change = update.activityChange { changes.append((change, t)) }
    }

    /// Seconds from each credited step to its emission, in emission order.
    public var delays: [Double] { zip(emittedAt, stepTimes).map { $0 - $1 } }

    /// The emission time of the first activity change to `kind`; nil when the state never says it.
    public func firstReport(of kind: ActivityKind) -> Double? {
        changes.first { $0.state.kind == kind }?.emittedAt
    }

    /// The indices (into `stepTimes`) of the first step of each bout: the earliest step, and every
    /// step that follows the previous one (by their own times) after more than `pause` seconds.
    public func boutStarts(pause: Double) -> [Int] {
        let order = stepTimes.indices.sorted { stepTimes[$0] < stepTimes[$1] }
        var starts: [Int] = []
        var previous = -Double.infinity
        for i in order {
            if stepTimes[i] - previous > pause { starts.append(i) }
            previous = stepTimes[i]
        }
        return starts
    }

    /// The whole recording through a fresh engine, as `RecordingAnalysis.run` runs it, noting every
    /// emission; `holds` (when given) receives what held a waiting chain back, every `holdStep` s.
    public static func run(_ samples: [AccelSample], configuration: MotionConfiguration = .init(),
                           holds: ((GateHolds) -> Void)? = nil) -> CreditLog {
        var engine = MotionEngine(configuration: configuration)
        var log = CreditLog()
        var nextHold = -Double.infinity
        for sample in samples {
            log.note(engine.process(sample), pushedAt: sample.t)
            if let holds, sample.t >= nextHold {
                holds(engine.gateHolds(at: sample.t))
                nextHold = sample.t + GateHolds.step
            }
        }
        log.note(engine.finish(), pushedAt: samples.last?.t ?? 0)
        return log
    }

    public static func == (a: CreditLog, b: CreditLog) -> Bool {
        a.stepTimes == b.stepTimes && a.emittedAt == b.emittedAt
            && a.changes.map(\.state) == b.changes.map(\.state) && a.changes.map(\.emittedAt) == b.changes.map(\.emittedAt)
    }
}

/// What would hold a waiting chain back at one moment, read from the step gate in the order its
/// confirmation tests them (`StepGate.confirm`), for the credit-delay diagnosis of
/// `stepbench accuracy`. A snapshot, not a rule: the gate decides, this only names its paths.
public struct GateHolds: Sendable, Equatable {
    /// How often (s) `CreditLog.run` takes a snapshot.
    public static let step = 0.2

    public enum Path: String, Sendable, CaseIterable {
        case classifierOff = "classifier below 0.2 (no chain starts)"
        case faint = "faint classifier 0.2-0.6 (21 candidates and the window's cadence)"
        case unsure = "unsure classifier 0.6-0.72 (21 candidates)"
        case afterDrive = "after a drive (14 candidates)"
        case acrossGravity = "movement across gravity (v2.10)"
        case turningArmWork = "TurningArmWork (v2.13)"
        case upwardPeaks = "UpwardPeaks (v2.15-A)"
        case circlingArmWork = "CirclingArmWork (v2.16-C)"
        case magnitudeArmWork = "MagnitudeArmWork (v2.12)"
        case magnitudeImpacts = "MagnitudeImpacts (v2.15-B)"
        case none = "none: 7 regular candidates, a broken chain or doubt after arm work"

        /// A word for the per-chain lines.
        public var short: String {
            switch self {
            case .classifierOff: "off"
            case .faint: "faint"
            case .unsure: "unsure"
            case .afterDrive: "after-drive"
            case .acrossGravity: "across-gravity"
            case .turningArmWork: "TurningArmWork"
            case .upwardPeaks: "UpwardPeaks"
            case .circlingArmWork: "CirclingArmWork"
            case .magnitudeArmWork: "MagnitudeArmWork"
            case .magnitudeImpacts: "MagnitudeImpacts"
            case .none: "none"
            }
        }
    }

    public var t: Double
    public var locomotion: Double
    /// Inside a confirmed run: nothing waits.
    public var walking: Bool
    /// Every path that held at `t`, in the gate's order (MagnitudeArmWork and MagnitudeImpacts as
    /// they hold a chain at their slowest checked step period, 0.5 s or more).
    public var active: [Path]

    /// The first path in the gate's order that held at `t` (`.none` when none did).
    public var first: Path { active.first ?? .none }
}

extension MotionEngine {
    /// The gate's holds at `t` (the time of the sample just pushed), for the diagnosis only.
    func gateHolds(at t: Double) -> GateHolds {
        let gate = gateForDiagnosis
        let locomotion = locomotionForDiagnosis
        var active: [GateHolds.Path] = []
        if locomotion < Self.locomotionOff {
            active.append(.classifierOff)
        } else if locomotion < Self.locomotionUnsure {
            active.append(.faint)
        } else if locomotion < Self.locomotionOn {
            active.append(.unsure)
        }
        if gate.afterDrive(at: t) { active.append(.afterDrive) }
        if let vertical = gate.verticalMean, vertical < StepGate.verticalFloor { active.append(.acrossGravity) }
        let recentWalk = gate.recentStepPeriod(at: t) != nil
        if gate.turningArmWork.holdsBack && !recentWalk { active.append(.turningArmWork) }
        if gate.upwardPeaks.holdsBack && !recentWalk { active.append(.upwardPeaks) }
        if gate.circling.holdsBack(turning: gate.turningArmWork) && !recentWalk { active.append(.circlingArmWork) }
        let period = MagnitudeArmWork.minPeriod
        if gate.armWork.holdsBack(stepPeriod: period) { active.append(.magnitudeArmWork) }
        if gate.impacts.holdsBack(stepPeriod: period, balance: gate.armWork.balance) { active.append(.magnitudeImpacts) }
        return GateHolds(t: t, locomotion: locomotion, walking: gate.walking, active: active)
    }
}
