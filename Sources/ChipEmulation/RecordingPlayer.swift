import StepdModel

/// Plays `[AccelSample]` as a continuous signal, looped: the value at any time by linear
/// interpolation, so an emulated chip can sample it at its own rate. An empty recording plays a
/// device lying flat (0, 0, 1 g).
public struct RecordingPlayer: Sendable {
    private let samples: [AccelSample]
    private let start: Double
    /// Loop length: the recording's span plus one mean sample interval, so the last sample
    /// joins the first smoothly.
    public let duration: Double
    private var cursor = 0

    public init(samples: [AccelSample]) {
        // A recording already in time order (nearly every one) is kept as given, so it shares
        // its storage with the caller's array instead of being held twice for the whole run
        // (the 5-hour wear loop of `scripts/soak` is 7 MB of samples).
        let inOrder = zip(samples, samples.dropFirst()).allSatisfy { $0.t <= $1.t }
        let ordered = inOrder ? samples : samples.sorted { $0.t < $1.t }
        self.samples = ordered
        start = ordered.first?.t ?? 0
        if let first = ordered.first, let last = ordered.last, ordered.count > 1, last.t > first.t {
            duration = (last.t - first.t) * Double(ordered.count) / Double(ordered.count - 1)
        } else {
            duration = 1
        }
    }

    /// Acceleration in g at `time` seconds into the (looped) recording.
    public mutating func value(at time: Double) -> (x: Double, y: Double, z: Double) {
        guard let first = samples.first else { return (0, 0, 1) }
        guard samples.count > 1 else { return (first.x, first.y, first.z) }
        var local = (time.truncatingRemainder(dividingBy: duration))
        if local < 0 { local += duration }
        let t = start + local
        if cursor >= samples.count || samples[cursor].t > t { cursor = 0 }
        while cursor + 1 < samples.count && samples[cursor + 1].t <= t { cursor += 1 }
        let a = samples[cursor]
        let b = cursor + 1 < samples.count ? samples[cursor + 1] : samples[0]
        let bt = cursor + 1 < samples.count ? b.t : start + duration
        let span = bt - a.t
        let f = span > 0 ? max(0, min(1, (t - a.t) / span)) : 0
        return (a.x + (b.x - a.x) * f, a.y + (b.y - a.y) * f, a.z + (b.z - a.z) * f)
    }
}
