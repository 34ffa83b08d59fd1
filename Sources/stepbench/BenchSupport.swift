import Glibc
import StepdModel

/// Deterministic generator (SplitMix64) so a failing or surprising run can be repeated with
/// its seed.
struct SplitMix64 {
    var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(max(n, 1))) }
    mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }
}

/// Seconds on the monotonic clock, for durations.
func monotonicNow() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// `value` with exactly `decimals` digits after the point ("12.50"); "-" when it is not finite.
func fixedDecimal(_ value: Double, _ decimals: Int) -> String { DecimalText.fixed(value, decimals: decimals) ?? "-" }

/// `text` left-aligned in a column of `width`, always followed by at least one space.
func column(_ text: String, _ width: Int) -> String {
    text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
}
