/// Gate v2.23-R: movement the classifier rejected for a long stretch is not credited back by a
/// chain that has ended.
///
/// A chain of candidates waits while the classifier is below the locomotion it needs, and when a
/// window confirms it, the candidates before the confirming ones are credited back as long as they
/// keep its rhythm (`StepGate.regularStart`, up to the 64 a chain holds). A pure 2 Hz arm movement
/// of 0.3 g at 45 degrees to gravity that the classifier calls other movement (locomotion 0.03,
/// unknown 0.97) for a minute was credited 64 steps by the one window where it stops: a window of
/// rhythm that ends at rest reads, to the classifier, as the end of a walk (0.74). What the
/// classifier said on each of those windows, with five seconds of the movement inside, is thrown
/// away by such a back-credit.
///
/// So when the chain has ended by the confirmation (no candidate for 1.5 of its intervals) and at
/// least `minWindows` consecutive windows that began inside it were rejected (locomotion below
/// `MotionEngine.locomotionOff`, the level that ends a run), only its candidates after the last of
/// them count, and it needs its confirmation count there. A walk the classifier rejected for a while
/// and then confirms goes on after the confirmation: it is credited back as before (the slowed
/// in-hand Samsung walks held out wait through 20 rejected windows and more). Windows that began
/// before the chain never count (a walk out of rest: the rest is what they rejected).
struct RejectedWindows: Sendable {
    /// Consecutive rejected windows that cut a chain: 10 (14 s of movement, two whole windows
    /// apart). Every real walk, bout, tempo and hole figure is the same at 5 with the ended-chain
    /// condition; without it, walks rejected for 5-20 windows are confirmed while they go on.
    static let minWindows = 10
    /// How many of the chain's intervals without a candidate end it.
    static let endedIntervals = 1.5
    /// The windows' hop (s): consecutive windows start this far apart.
    static let hop = Double(WindowFeatures.hop) / WindowFeatures.rate

    /// The current streak of consecutive rejected windows: the first one's start, and how many.
    private var streakStart = -Double.infinity
    private var streakWindows = 0
    /// The latest streak of at least `minWindows`: its first window's start, its last window's start and end.
    private var longFirstStart = -Double.infinity
    private var longLastStart = -Double.infinity
    private var longEnd = -Double.infinity

    mutating func reset() {
        self = RejectedWindows()
    }

    /// Every window, spanning `start...end`: whether the classifier rejected it.
    mutating func note(rejected: Bool, start: Double, end: Double) {
        guard rejected else {
            streakWindows = 0
            return
        }
        if streakWindows == 0 { streakStart = start }
        streakWindows += 1
        if streakWindows >= Self.minWindows {
            longFirstStart = streakStart
            longLastStart = start
            longEnd = end
        }
    }

    /// The end of the latest long streak if at least `minWindows` of its windows began at or after
    /// `chainStart` (the chain's candidates up to it are not credited back); nil otherwise.
    func rejectedUntil(chainStart: Double) -> Double? {
        let inside = (longLastStart - max(longFirstStart, chainStart)) / Self.hop + 1
        return inside >= Double(Self.minWindows) - 0.5 ? longEnd : nil
    }
}
