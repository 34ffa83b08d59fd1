/// A drive's onset is driving, not scattered car-like minutes held together by rests (activity rule
/// v2.18-A).
///
/// The onset of automotive counts `automotiveOnset` (30) automotive-led windows, and stationary leads
/// hold the count for up to `vehicleStop` (3 minutes) in a row, because a car at a light looks still.
/// Nothing bounded how far apart the 30 may fall: held out by person, the Bangle desk work under 50-150 mg
/// zero-g offsets (`stepbench robustness --only offset`) collected them over 292 s (2612-2904 s: 6
/// automotive-led windows, 137 s of stationary leads, 17 more over 100 s, 35 s of stationary, the last 7), met
/// the road and sway onsets at the end and was automotive for 4 minutes (11 % of the file; the offset
/// row's non-vehicle time 2.52 %). Every other onset of every bench (recordings, clips, robustness rows
/// in-sample and by person, source and activity, daily life) has its last 30 automotive windows within
/// 90 s (the slowest: the noisy `bangle-hughb-drive-18` held out by person; the recordings 28-43 s, the
/// clips 29-55 s). The onset waits while the last `automotiveOnset` automotive windows span more than
/// `limit` (2 minutes: a quarter of the time led by the car); the evidence is kept, so a drive that starts
/// in stop-and-go traffic becomes automotive once the car leads 30 windows within 2 minutes, backdated to
/// its first window.
struct AutomotiveEvidenceSpan: Sendable {
    /// Seconds within which the last `automotiveOnset` automotive windows must fall.
    static let limit = 120.0

    private var times: [Double]
    private var next = 0
    private var count = 0

    init(windows: Int = ActivityClassifier.automotiveOnset) {
        times = [Double](repeating: 0, count: max(windows, 1))
    }

    /// One automotive-led window counted by the onset, ending at `t`.
    mutating func note(_ t: Double) {
        times[next] = t
        next = next + 1 == times.count ? 0 : next + 1
        if count < times.count { count += 1 }
    }

    /// Whether the last `windows` noted windows fall within `limit` of `t` (false before that many).
    func isDense(at t: Double) -> Bool {
        count == times.count && t - times[next] <= Self.limit
    }
}
