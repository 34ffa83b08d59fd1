import Glibc
@testable import MotionCore
import Testing

/// Engine cost (engine v2.20-P): the faster loops of the window features and the |a| quantiles give
/// the very values of the plain loops they replaced, bit for bit (the shipped model was fitted on
/// those values: `scripts/train_motion_model.py --check`).
@Suite struct EngineCostTests {
    /// A reproducible signal: a few sines and a deterministic pseudo-random part, with ties when
    /// `quantised` (a 12-bit sensor's steps).
    static func signal(count: Int, seed: UInt64, quantised: Bool = false) -> [Double] {
        var state = seed
        return (0..<count).map { k in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let noise = Double(state >> 11) / Double(1 << 53) - 0.5
            let value = 0.4 * noise + 0.3 * sin(0.7 * Double(k)) + 0.1 * sin(2.9 * Double(k) + 1)
            return quantised ? (value * 64).rounded() / 64 : value
        }
    }

    @Test func selectionGivesTheSortedValues() {
        for seed in 1...40 as ClosedRange<UInt64> {
            let values = Self.signal(count: 125, seed: seed, quantised: seed % 2 == 0)
            let sorted = values.sorted()
            for k in [0, 6, 62, 118, 124] {
                var work = values
                work.withUnsafeMutableBufferPointer { OrderStatistics.select(k, in: $0, from: 0, to: $0.count) }
                // Equal values: of tied +0 and -0 a sort may put either first, and so may the selection
                // (`MagnitudeImpacts` only subtracts its quantiles and floors the gaps at 1e-4, so a
                // zero's sign cannot reach the asymmetry).
                #expect(work[k] == sorted[k], "seed \(seed), k \(k)")
                #expect(work[..<k].allSatisfy { $0 <= work[k] } && work[(k + 1)...].allSatisfy { $0 >= work[k] })
            }
        }
    }

    /// The Goertzel recurrence one frequency at a time, as a scalar loop.
    static func scalarGoertzel(_ x: [Double], coefficient c: Double) -> (Double, Double) {
        var s1 = 0.0, s2 = 0.0
        for v in x {
            let s0 = v + c * s1 - s2
            s2 = s1
            s1 = s0
        }
        return (s1, s2)
    }

    /// Engine v2.21-P: the 18 frequencies in one pass (`goertzelBank`, lanes 8 + 8 + 2) give each
    /// frequency the scalar recurrence's values bit for bit, as the three passes of v2.20-P did.
    @Test func goertzelBankLanesAreTheScalarRecurrence() {
        let coefficients = (0..<WindowFeatures.frequencyCount).map { 2 * cos(2 * Double.pi * WindowFeatures.frequency($0) / 25) }
        for seed in 1...20 as ClosedRange<UInt64> {
            let x = Self.signal(count: WindowFeatures.windowLength, seed: seed, quantised: seed % 2 == 0)
            var low = SIMD8<Double>(), middle = SIMD8<Double>(), top = SIMD2<Double>()
            for lane in 0..<8 {
                low[lane] = coefficients[lane]
                middle[lane] = coefficients[8 + lane]
            }
            for lane in 0..<2 { top[lane] = coefficients[16 + lane] }
            let bank = x.withUnsafeBufferPointer { WindowFeatures.goertzelBank($0, count: x.count, coefficients: (low, middle, top)) }
            var s1 = [Double](), s2 = [Double]()
            for lane in 0..<8 { s1.append(bank.low.s1[lane]); s2.append(bank.low.s2[lane]) }
            for lane in 0..<8 { s1.append(bank.middle.s1[lane]); s2.append(bank.middle.s2[lane]) }
            for lane in 0..<2 { s1.append(bank.top.s1[lane]); s2.append(bank.top.s2[lane]) }
            for k in 0..<WindowFeatures.frequencyCount {
                let scalar = Self.scalarGoertzel(x, coefficient: coefficients[k])
                #expect(s1[k].bitPattern == scalar.0.bitPattern && s2[k].bitPattern == scalar.1.bitPattern, "seed \(seed), frequency \(k)")
            }
        }
    }

    /// The autocorrelation as the scalar loop of four partial sums computed it before.
    static func scalarAutocorrelation(_ s: [Double], lag: Int, energy: Double) -> Double {
        let n = WindowFeatures.windowLength
        let count = n - lag
        var a = 0.0, b = 0.0, c = 0.0, d = 0.0
        var k = 0
        while k + 4 <= count {
            a += s[k] * s[k + lag]
            b += s[k + 1] * s[k + 1 + lag]
            c += s[k + 2] * s[k + 2 + lag]
            d += s[k + 3] * s[k + 3 + lag]
            k += 4
        }
        while k < count {
            a += s[k] * s[k + lag]
            k += 1
        }
        return ((a + b) + (c + d)) / energy * Double(n) / Double(n - lag)
    }

    @Test func autocorrelationLanesAreTheScalarSums() {
        for seed in 1...20 as ClosedRange<UInt64> {
            let x = Self.signal(count: WindowFeatures.capacity, seed: seed)
            let energy = x[..<WindowFeatures.windowLength].reduce(0) { $0 + $1 * $1 }
            for lag in 0..<WindowFeatures.windowLength {
                let fast = WindowFeatures.autocorrelation(x, lag: lag, energy: energy)
                #expect(fast.bitPattern == Self.scalarAutocorrelation(x, lag: lag, energy: energy).bitPattern, "lag \(lag)")
            }
        }
    }
}
