import Glibc
import POSIXLayer
import StepdModel

// Helpers of the development tools (stepbench, socketfuzz): seeded random numbers, clocks for
// durations and timestamps, and the columns of the tables they print.

/// Deterministic generator (SplitMix64) so a failing or surprising run can be repeated with
/// its seed.
public struct SplitMix64 {
    public var state: UInt64
    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    public mutating func below(_ n: Int) -> Int { Int(next() % UInt64(max(n, 1))) }
    public mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }
}

/// Seconds on the monotonic clock, for durations.
public func monotonicNow() -> Double { SystemClocks.monotonic() }

/// Seconds of this thread's CPU time, for costs on one core: unlike `monotonicNow`, other
/// processes on a shared machine do not inflate it.
public func threadCPUNow() -> Double { SystemClocks.threadCPU() }

/// UTC seconds since the epoch, for timestamps the agent compares with its own.
public func wallNow() -> Double { SystemClocks.wall() }

/// `s` padded to `width` characters, on the left when `right` (numbers) else on the right.
public func pad(_ s: String, _ width: Int, right: Bool = false) -> String {
    let fill = String(repeating: " ", count: max(0, width - s.count))
    return right ? fill + s : s + fill
}

/// `value` with exactly `decimals` digits after the point ("12.50"); "-" when it is not finite.
public func fixedDecimal(_ value: Double, _ decimals: Int) -> String { DecimalText.fixed(value, decimals: decimals) ?? "-" }

/// `text` left-aligned in a column of `width`, always followed by at least one space.
public func column(_ text: String, _ width: Int) -> String {
    text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
}

/// The `p` quantile (0...1) of already sorted values, nearest rank; NaN when empty.
public func percentile(_ sorted: [Double], _ p: Double) -> Double {
    guard !sorted.isEmpty else { return .nan }
    return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
}
