/// The index of the `1/rate` s bin holding `t`, or nil when `t` cannot be binned: not finite,
/// or so far from zero that the bin, or the distance between two bins, would not fit an Int64.
/// Such a timestamp is corrupt input (a damaged recording, a glitching clock); converting it
/// with `Int64(_:)` would trap and take the daemon down.
@inline(__always)
func timeBin(_ t: Double, rate: Double) -> Int64? {
    let scaled = (t * rate).rounded(.down)
    guard abs(scaled) < 0x1p62 else { return nil }  // also false for NaN and infinities
    return Int64(scaled)
}
