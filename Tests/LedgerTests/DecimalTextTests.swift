import StepdModel
import Testing

/// The one decimal formatter: ledger distances, stepctl tables, stepbench figures, recordings.
@Suite struct DecimalTextTests {
    @Test func exactUnits() {
        #expect(DecimalText.fixed(units: -12050, decimals: 3) == "-12.050")
        #expect(DecimalText.fixed(units: 5, decimals: 3) == "0.005")
        #expect(DecimalText.fixed(units: -5, decimals: 3) == "-0.005")
        #expect(DecimalText.fixed(units: 42, decimals: 0) == "42")
        #expect(DecimalText.fixed(units: .min, decimals: 3) == "-9223372036854775.808")
        #expect(DecimalText.fixed(units: .max, decimals: 18) == "9.223372036854775807")
    }

    @Test func roundedToFixedPlaces() {
        #expect(DecimalText.fixed(12.5, decimals: 2) == "12.50")
        #expect(DecimalText.fixed(0.125, decimals: 2) == "0.13")
        #expect(DecimalText.fixed(-0.125, decimals: 2) == "-0.13")
        #expect(DecimalText.fixed(-0.001, decimals: 2) == "0.00")
        #expect(DecimalText.fixed(1234.5, decimals: 0) == "1235")
        #expect(DecimalText.fixed(-9.81, decimals: 5) == "-9.81000")
        #expect(DecimalText.fixed(1e20, decimals: 1) == "1e+20")
        #expect(DecimalText.fixed(.nan, decimals: 1) == nil)
        #expect(DecimalText.fixed(-.infinity, decimals: 1) == nil)
    }

    @Test func roundedValuesAndShortestText() {
        #expect(DecimalText.rounded(1.23456, decimals: 3) == 1.235)
        #expect(DecimalText.rounded(39.996, decimals: 2) == 40)
        #expect(DecimalText.rounded(.nan, decimals: 2).isNaN)
        #expect(DecimalText.shortest(40) == "40")
        #expect(DecimalText.shortest(-3) == "-3")
        #expect(DecimalText.shortest(0.25) == "0.25")
        #expect(DecimalText.shortest(1e16) == "1e+16")
        #expect(DecimalText.shortest(DecimalText.rounded(0.1234567, decimals: 6)) == "0.123457")
    }
}
