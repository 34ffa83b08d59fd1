/// The motion core's input stage for timestamps: makes small backward steps disappear and
/// lets real discontinuities through.
///
/// Firmware that stamps each FIFO burst backwards from its read time at the nominal period
/// produces, with a chip running fast, timestamps that step back by a period or two at every
/// burst boundary (the burst held more samples than the nominal period fits into the time since
/// the last read). Those samples are real and continuous; only their stamps overlap. A step
/// back of at most `absorbLimit` is absorbed: the sample is placed one typical interval after
/// the previous output and the offset this adds is paid back over the following samples, at
/// most `payback` of each input interval, so output times never go backwards and return to the
/// input's own times within a fraction of a second. A step back of more than `absorbLimit`, or
/// an offset that would exceed it, is a discontinuity: the time passes through unchanged (the
/// consumer sees it go backwards and restarts), and the stage starts over from it.
///
/// Monotonic input passes through bit for bit. Pure: no clocks.
public struct TimestampSanitizer: Sendable, Equatable {
    /// Backward steps up to this many seconds are absorbed; more is a discontinuity.
    public static let absorbLimit = 1.0
    /// The share of each input interval used to pay the offset back.
    public static let payback = 0.25
    /// Until an interval has been seen, the spacing given to a sample that stepped back.
    static let defaultInterval = 0.025

    private var lastOutput: Double?
    private var lastInput = 0.0
    /// Seconds added to input times; never negative.
    private var offset = 0.0
    /// The latest forward input interval, used to space an absorbed sample.
    private var interval = TimestampSanitizer.defaultInterval

    public init() {}

    /// Output time for input time `t` (finite). Non-decreasing except across a discontinuity.
    public mutating func admit(_ t: Double) -> Double {
        guard let previous = lastOutput else { return start(at: t) }
        let step = t - lastInput
        lastInput = t
        if step >= 0 {
            if step > 0 { interval = min(step, 1) }
            // Pay back part of the offset, never more than keeps the output moving forward.
            offset = max(0, offset - step * Self.payback)
            let output = t + offset
            lastOutput = output
            return output
        }
        let needed = previous + interval - t
        guard -step <= Self.absorbLimit, needed <= Self.absorbLimit else { return start(at: t) }
        offset = needed
        lastOutput = previous + interval
        return previous + interval
    }

    /// After a marked gap: the next time starts afresh, whatever it is.
    public mutating func reset() {
        lastOutput = nil
        offset = 0
    }

    private mutating func start(at t: Double) -> Double {
        lastOutput = t
        lastInput = t
        offset = 0
        return t
    }
}
