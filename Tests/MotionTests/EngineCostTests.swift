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

    /// Two lags in one pass (`autocorrelationPair`, as `bestAutocorrelation` takes them) give each
    /// lag's value bit for bit, for every pair of lags and every overlap's remainder mod 4.
    @Test func autocorrelationPairIsEachLagAlone() {
        for seed in 1...6 as ClosedRange<UInt64> {
            let x = Self.signal(count: WindowFeatures.capacity, seed: seed, quantised: seed % 2 == 0)
            let energy = x[..<WindowFeatures.windowLength].reduce(0) { $0 + $1 * $1 }
            for near in 0..<WindowFeatures.windowLength {
                for far in (near + 1)..<min(near + 40, WindowFeatures.windowLength) {
                    let pair = WindowFeatures.autocorrelationPair(x, lags: (near, far), energy: energy)
                    #expect(pair.0.bitPattern == Self.scalarAutocorrelation(x, lag: near, energy: energy).bitPattern, "lags \(near), \(far)")
                    #expect(pair.1.bitPattern == Self.scalarAutocorrelation(x, lag: far, energy: energy).bitPattern, "lags \(near), \(far)")
                }
            }
        }
    }
}

/// Engine v2.22-P: the complete-tree walk, the arm-work rules' angles in SIMD pairs and the
/// unchecked window reads give the very values of the plain code they replaced, bit for bit.
@Suite struct EngineCostPairsTests {
    /// The tree walk as `TreeEnsemble.probabilities` did it before: node arrays, a branch per node.
    static func nodeWalkScores(_ ensemble: TreeEnsemble, _ x: [Double]) -> [Double] {
        var scores = ensemble.base
        for (tree, root) in ensemble.roots.enumerated() {
            var node = Int(root)
            while ensemble.feature[node] >= 0 {
                node = x[Int(ensemble.feature[node])] <= ensemble.threshold[node] ? Int(ensemble.left[node]) : Int(ensemble.right[node])
            }
            scores[tree % ensemble.classCount] += ensemble.learningRate * ensemble.threshold[node]
        }
        return scores
    }

    static func softmax(_ scores: [Double]) -> [Double] {
        let highest = scores.max() ?? 0
        let e = scores.map { exp($0 - highest) }
        let sum = e.reduce(0, +)
        return e.map { $0 / sum }
    }

    /// Feature vectors around the model's own thresholds (so every side of every split is taken),
    /// some with NaN (which goes right at a split, as `<=` says).
    static func vectors(for ensemble: TreeEnsemble, count: Int) -> [[Double]] {
        var state: UInt64 = 7
        func next() -> Double {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Double(state >> 11) / Double(1 << 53)
        }
        var thresholds = [[Double]](repeating: [0], count: ensemble.featureCount)
        for (node, feature) in ensemble.feature.enumerated() where feature >= 0 { thresholds[Int(feature)].append(ensemble.threshold[node]) }
        return (0..<count).map { k in
            (0..<ensemble.featureCount).map { f in
                if k % 7 == 3 && f % 5 == k % 5 { return .nan }
                let pick = thresholds[f][Int(next() * Double(thresholds[f].count))]
                return k % 3 == 0 ? pick : pick + (next() - 0.5) * 0.2
            }
        }
    }

    @Test func completeTreesGiveTheNodeWalksProbabilities() {
        // The shipped ensembles, and one whose trees differ in depth (a leaf at the root's left,
        // splits three deep on the right).
        let uneven = TreeEnsemble(
            classCount: 2, featureCount: 3, base: [0.1, -0.2], learningRate: 0.5, roots: [0, 7],
            feature: [0, -1, 1, -1, 2, -1, -1, 2, -1, -1, -1, -1, -1, -1], threshold: [0.5, 1.5, 0.2, -2.0, 0.7, 3.0, -4.0, 0.3, 0.25, -0.75, 0, 0, 0, 0],
            left: [1, 0, 3, 0, 5, 0, 0, 8, 0, 0, 0, 0, 0, 0], right: [2, 0, 4, 0, 6, 0, 0, 9, 0, 0, 0, 0, 0, 0])
        for ensemble in [MotionModel.generated.full, MotionModel.generated.magnitudeOnly, uneven] {
            for x in Self.vectors(for: ensemble, count: 400) {
                var fast = [Double](repeating: 0, count: ensemble.classCount)
                ensemble.probabilities(x, into: &fast)
                let reference = Self.softmax(Self.nodeWalkScores(ensemble, x))
                #expect(fast.map(\.bitPattern) == reference.map(\.bitPattern), "\(x)")
            }
        }
    }

    /// A ring of wrist-like samples: gravity turning slowly, a swing, noise, exact repeats.
    static func ring(seed: UInt64) -> SampleRing {
        var ring = SampleRing(capacity: 300)
        var state = seed
        for k in 0..<290 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let noise = Double(state >> 11) / Double(1 << 53) - 0.5
            let t = Double(k) / 25
            let x = 0.3 * sin(0.4 * t + Double(seed)) + 0.2 * sin(2 * .pi * 1.8 * t) + 0.05 * noise
            let y = -0.8 + 0.15 * cos(2 * .pi * 0.9 * t)
            let z = seed % 3 == 0 && k % 11 == 0 ? 0 : 0.4 * cos(0.3 * t) + 0.03 * noise
            ring.push(x: x, y: y, z: z, magnitude: (x * x + y * y + z * z).squareRoot())
        }
        return ring
    }

    /// `WanderingTilt.windowWander` as a scalar loop, as it was before its angles went in pairs.
    static func scalarWander(_ samples: SampleRing, gravity: (x: Double, y: Double, z: Double)) -> Double? {
        let span = WanderingTilt.span, short = WanderingTilt.shortSpan
        let norm = (gravity.x * gravity.x + gravity.y * gravity.y + gravity.z * gravity.z).squareRoot()
        var sx = 0.0, sy = 0.0, sz = 0.0, sum = 0.0, used = 0
        for back in 0..<span {
            let s = samples.sample(back)
            sx += s.x; sy += s.y; sz += s.z
            if back >= short {
                let old = samples.sample(back - short)
                sx -= old.x; sy -= old.y; sz -= old.z
            }
            guard back >= short - 1 else { continue }
            let length = (sx * sx + sy * sy + sz * sz).squareRoot()
            guard length > 0 else { continue }
            sum += Self.scalarArcCosine((sx * gravity.x + sy * gravity.y + sz * gravity.z) / (length * norm))
            used += 1
        }
        return used > 0 ? sum / Double(used) : nil
    }

    /// `CirclingArmWork.windowRotation` as a scalar loop, as it was before its vectors went in pairs.
    static func scalarRotation(_ samples: SampleRing, mean g: (x: Double, y: Double, z: Double)) -> Double? {
        let span = CirclingArmWork.span
        var sumX = 0.0, sumY = 0.0, sumZ = 0.0, lengths = 0.0
        var previous: (x: Double, y: Double, z: Double)?
        var a = samples.sample(span - 1), b = samples.sample(span - 2)
        for back in stride(from: span - 2, through: 1, by: -1) {
            let c = samples.sample(back - 1)
            let m = (x: (a.x + b.x + c.x) / 3 - g.x, y: (a.y + b.y + c.y) / 3 - g.y, z: (a.z + b.z + c.z) / 3 - g.z)
            a = b
            b = c
            if let p = previous {
                let cx = p.y * m.z - p.z * m.y, cy = p.z * m.x - p.x * m.z, cz = p.x * m.y - p.y * m.x
                sumX += cx; sumY += cy; sumZ += cz
                lengths += (cx * cx + cy * cy + cz * cz).squareRoot()
            }
            previous = m
        }
        guard lengths > 0 else { return nil }
        return (sumX * sumX + sumY * sumY + sumZ * sumZ).squareRoot() / lengths
    }

    /// The scalar polynomial `WanderingTilt.arcCosine` was before its lanes.
    static func scalarArcCosine(_ cosine: Double) -> Double {
        let x = min(1, max(-1, cosine))
        let a = abs(x)
        var p = -0.0012624911
        p = p * a + 0.0066700901
        p = p * a - 0.0170881256
        p = p * a + 0.0308918810
        p = p * a - 0.0501743046
        p = p * a + 0.0889789874
        p = p * a - 0.2145988016
        p = p * a + 1.5707963050
        let angle = (1 - a).squareRoot() * p
        return x < 0 ? Double.pi - angle : angle
    }

    @Test func arcCosineLanesAreTheScalarFunction() {
        var cosines: [Double] = [-1.5, -1, -0.5, -0.0, 0, 0.5, 1, 1.5, .ulpOfOne, -.ulpOfOne, 1 - .ulpOfOne]
        cosines += (0...2000).map { -1.1 + 2.2 * Double($0) / 2000 }
        for k in stride(from: 0, to: cosines.count - 1, by: 1) {
            let pair = WanderingTilt.arcCosine(SIMD2(cosines[k], cosines[k + 1]))
            #expect(pair[0].bitPattern == Self.scalarArcCosine(cosines[k]).bitPattern, "\(cosines[k])")
            #expect(pair[1].bitPattern == Self.scalarArcCosine(cosines[k + 1]).bitPattern, "\(cosines[k + 1])")
            #expect(abs(pair[0] - acos(min(1, max(-1, cosines[k])))) < 2.5e-8, "\(cosines[k])")
        }
    }

    @Test func armWorkAnglesInPairsAreTheScalarLoops() throws {
        for seed in 1...24 as ClosedRange<UInt64> {
            let samples = Self.ring(seed: seed)
            let gravity = samples.mean(of: WanderingTilt.span)
            let wander = try #require(WanderingTilt.windowWander(samples: samples, gravity: gravity))
            #expect(wander.bitPattern == Self.scalarWander(samples, gravity: gravity)?.bitPattern, "seed \(seed)")
            let rotation = try #require(CirclingArmWork.windowRotation(samples: samples, mean: gravity))
            #expect(rotation.bitPattern == Self.scalarRotation(samples, mean: gravity)?.bitPattern, "seed \(seed)")
        }
    }
}
