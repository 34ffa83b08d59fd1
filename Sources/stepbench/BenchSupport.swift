import Glibc
import POSIXLayer

/// `value` with exactly `decimals` digits after the point ("12.50"); "-" when it is not finite
/// or too large for this notation (converting it to an integer would trap).
func fixedDecimal(_ value: Double, _ decimals: Int) -> String {
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    guard let scaled = Int64(exactly: (abs(value) * scale).rounded()) else { return "-" }
    let sign = value < 0 && scaled != 0 ? "-" : ""
    let whole = scaled / Int64(scale)
    guard decimals > 0 else { return sign + "\(whole)" }
    let fraction = String(scaled % Int64(scale))
    return sign + "\(whole)." + String(repeating: "0", count: decimals - fraction.count) + fraction
}

/// `text` left-aligned in a column of `width`, always followed by at least one space.
func column(_ text: String, _ width: Int) -> String {
    text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
}
