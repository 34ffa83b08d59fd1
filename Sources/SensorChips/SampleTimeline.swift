/// Gives FIFO samples monotonic timestamps. A burst read at time T holding n samples at the
/// nominal period p ends with a sample taken within the last period, so its observed time is
/// about T - p/2 (or exactly the data-ready edge when one is known). Samples are spaced exactly p
/// apart and the phase is pulled a tenth of the way towards each observation (at most p/4 per
/// burst), so read-time jitter does not accumulate and the chip's own clock error is followed.
public struct SampleTimeline: Sendable {
    public let period: Double
    private var nextTime: Double?
    /// Observations further off than this re-anchor the timeline (the burst was late or the
    /// FIFO lost data); the caller marks a gap.
    public let reanchorThreshold: Double

    public init(rate: Double) {
        period = 1 / rate
        reanchorThreshold = max(0.25, 8 / rate)
    }

    public mutating func reset() { nextTime = nil }

    /// Timestamps for `count` samples read at `readTime`; `lastSampleTime` is the newest
    /// sample's exact time when a data-ready edge gives it. Returns the times and whether the
    /// timeline had to re-anchor.
    public mutating func assign(count: Int, readTime: Double, lastSampleTime: Double? = nil) -> (times: [Double], reanchored: Bool) {
        guard count > 0 else { return ([], false) }
        let observedLast = lastSampleTime ?? (readTime - period / 2)
        var reanchored = false
        var first: Double
        if let next = nextTime {
            let expectedLast = next + Double(count - 1) * period
            let error = observedLast - expectedLast
            if abs(error) > reanchorThreshold {
                first = observedLast - Double(count - 1) * period
                reanchored = true
            } else {
                first = next + max(-period / 4, min(period / 4, error * 0.1))
            }
        } else {
            first = observedLast - Double(count - 1) * period
        }
        var times: [Double] = []
        times.reserveCapacity(count)
        for i in 0..<count { times.append(first + Double(i) * period) }
        nextTime = first + Double(count) * period
        return (times, reanchored)
    }
}
