/// Decimal numbers as text without Foundation or printf: one implementation for the agent's
/// logs and metrics, stepctl, stepbench, the ledger and the recording writer.
public enum DecimalText {
    /// `units` / 10^decimals with exactly `decimals` digits after the point: (-12050, 3) is
    /// "-12.050". Exact: no floating point involved.
    public static func fixed(units: Int64, decimals: Int) -> String {
        let places = min(max(decimals, 0), 18)
        let magnitude = units.magnitude
        let sign = units < 0 ? "-" : ""
        guard places > 0 else { return sign + String(magnitude) }
        var divisor: UInt64 = 1
        for _ in 0..<places { divisor *= 10 }
        let fraction = String(magnitude % divisor)
        return sign + String(magnitude / divisor) + "." + String(repeating: "0", count: places - fraction.count) + fraction
    }

    /// `value` rounded half away from zero to `decimals` places (0...15), written with exactly
    /// that many digits after the point ("12.50", never "-0.00"); nil when it is not finite.
    /// Beyond 9e15 units no fixed notation is exact, so such a value is written as Swift prints
    /// it ("1e+20") instead of trapping in an integer conversion.
    public static func fixed(_ value: Double, decimals: Int) -> String? {
        guard value.isFinite else { return nil }
        let places = min(max(decimals, 0), 15)
        let scaled = (abs(value) * scale(places)).rounded()
        guard scaled < 9.0e15 else { return String(value) }
        let units = Int64(scaled)
        return fixed(units: value < 0 ? -units : units, decimals: places)
    }

    /// `value` rounded half away from zero to `decimals` places, for JSON answers that should
    /// carry only the digits that mean something.
    public static func rounded(_ value: Double, decimals: Int) -> Double {
        guard value.isFinite else { return value }
        let factor = scale(min(max(decimals, 0), 15))
        return (value * factor).rounded() / factor
    }

    /// Whole numbers without a fraction ("40", not "40.0"), others as Swift prints them
    /// ("0.25"): metric values, option limits, feature values.
    public static func shortest(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }

    private static func scale(_ places: Int) -> Double {
        var factor = 1.0
        for _ in 0..<places { factor *= 10 }
        return factor
    }
}
