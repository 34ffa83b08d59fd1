import Glibc
import POSIXLayer
import StepdModel

/// `value` with exactly `decimals` digits after the point ("12.50"); "-" when it is not finite.
func fixedDecimal(_ value: Double, _ decimals: Int) -> String { DecimalText.fixed(value, decimals: decimals) ?? "-" }

/// `text` left-aligned in a column of `width`, always followed by at least one space.
func column(_ text: String, _ width: Int) -> String {
    text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
}
