import StepdModel

/// A run the activity state called running does not teach the walk memory (gate v2.21-J, issue 10
/// round 14).
///
/// Why: when a run of `StepGate.recentMinSteps` steps ends, its step period becomes the walk
/// memory (`StepGate.recentStepPeriod`): for 90 s, peaks at about twice that period are strides,
/// because a walker's cadence does not halve from one minute to the next. A runner's does: a
/// jog's 0.30-0.37 s steps, then a walk at 100-120 steps/min whose peaks come once per step, 0.5-0.6
/// s apart, which the memory of the jog reads as strides and counts twice. Measured (2 minutes of the
/// ST wrist `sthar-running`, 5 or 30 s still, then an Oxford walk; docs/motion.md, "A jog does not
/// teach the walk memory"): 9 of 15 walks counted 1.1-2x, 5611 steps for 4408. The activity state's
/// running (a flight phase: |a| deviating 0.7 g at 2.5 steps/s) is the evidence; a brisk walk it calls
/// walking keeps teaching the memory as before.
struct JoggedRun: Sendable {
    /// Windows of a run the activity state called running that make it a jog: a moment's call on
    /// a brisk walk is not one.
    static let minRunningWindows = 3
    private(set) var runningWindows = 0

    mutating func reset() {
        runningWindows = 0
    }

    /// One window of the run, with the activity state's kind.
    mutating func observe(_ kind: ActivityKind) {
        if kind == .running { runningWindows += 1 }
    }

    /// Whether the ended run may become the walk memory.
    var teachesWalkMemory: Bool { runningWindows < Self.minRunningWindows }
}
