import Glibc

/// The feature vector of one window: the last 5 s of the 25 Hz internal signal, taken every 1 s.
/// This is the only implementation of the features: `stepctl features --json` writes these
/// vectors for the trainer (scripts/train_motion_model.py), and the engine feeds the same vectors
/// to the generated classifier (`MotionModel`).
///
/// The first `magnitudeCount` features use |a| alone; the rest need the three axes (gravity
/// direction and how it moves, the split of the movement along and across gravity). Input whose
/// y and z are exactly zero for a whole window (a watch that logs only |a| in x, like the
/// `rieck-*` recordings) is flagged `magnitudeOnly`; the classifier then uses its |a|-only model.
struct WindowFeatures: Sendable {
    static let windowLength = 125
    static let hop = 25
    static let capacity = 128
    static let rate = MotionEngine.internalRate
    /// Step candidates remembered: 10 s of a run at 3.6 steps/s, for `peak_interval_cv_long`.
    static let peakCapacity = 64
    /// The span of `peak_interval_cv_long` (s): two windows' worth of step candidates.
    static let longSpan = 10.0
    /// Step lags 0.28-0.76 s (3.6-1.3 steps/s), stride lags 0.76-2.0 s.
    static let stepLags = 7...19
    static let strideLags = 19...50
    /// Goertzel frequencies for the dominant frequency: 0.6-4.0 Hz in 0.2 Hz steps.
    static let frequencyCount = 18  // 8 + 8 + 2 (the lanes of `compute`'s passes)
    static func frequency(_ k: Int) -> Double { 0.6 + 0.2 * Double(k) }

    static let names: [String] = [
        // |a| alone
        "vibration_log", "magnitude_std_log", "gait_rms_log", "mid_rms_log", "high_rms_log", "jerk_log",
        "dominant_hz", "dominant_share", "dominant_of_total", "ac_step", "ac_step_lag", "ac_stride",
        "ac_stride_lag", "ac_double_step", "peak_rate", "peak_interval_cv", "peak_swing_log", "range_log",
        "peak_interval_cv_long",
        // three axes
        "gravity_norm", "vertical_share", "gravity_move", "orientation_spread", "ac_vertical_step",
        "jerk3_log", "horizontal_rms_log",
    ]
    static let count = 26
    static let magnitudeCount = 19

    /// The last `capacity` samples of x, y, z, |a|, the gait band and |a| above 6 Hz, one channel
    /// after another (`xAt` ...), each ring held twice over so that a window reads in one run from
    /// `windowStart`; one array, so a push checks one buffer's uniqueness instead of six.
    private var ring: [Double]
    private static let xAt = 0, yAt = 2 * capacity, zAt = 4 * capacity
    private static let magnitudeAt = 6 * capacity, bandAt = 8 * capacity, highAt = 10 * capacity
    private var scratch: [Double]
    /// The window's gait band minus its mean (filled with the gait power, read by the autocorrelation).
    private var centredBand: [Double]
    private var peakTimes: [Double]
    private var peakSwings: [Double]
    private var peakIndex = 0
    private var peakCount = 0
    private var write = 0
    private var filled = 0
    private var sinceHop = 0
    private var lowpass6: Biquad
    private var lowpassStarted = false
    private var goertzelCoefficients: [Double]

    /// The last computed vector (`count` values) and whether its window was magnitude-only.
    private(set) var values: [Double]
    private(set) var magnitudeOnly = false
    /// End time of the last computed window (s).
    private(set) var windowEnd = 0.0

    init() {
        ring = [Double](repeating: 0, count: 12 * Self.capacity)
        scratch = [Double](repeating: 0, count: Self.capacity)
        centredBand = scratch
        peakTimes = [Double](repeating: 0, count: Self.peakCapacity)
        peakSwings = peakTimes
        values = [Double](repeating: 0, count: Self.count)
        lowpass6 = Biquad(lowpass: 6.0, sampleRate: Self.rate)
        goertzelCoefficients = (0..<Self.frequencyCount).map { 2 * cos(2 * Double.pi * Self.frequency($0) / Self.rate) }
    }

    mutating func reset() {
        filled = 0
        sinceHop = 0
        peakCount = 0
        lowpassStarted = false
    }

    /// A peak candidate of the step detector (time and its swing in g).
    mutating func notePeak(at t: Double, swing: Double) {
        peakTimes[peakIndex] = t
        peakSwings[peakIndex] = swing
        peakIndex = (peakIndex + 1) % Self.peakCapacity
        peakCount = min(peakCount + 1, Self.peakCapacity)
    }

    /// Adds one internal sample; returns true when a new window vector is ready in `values`.
    @inline(__always)
    mutating func push(x ax: Double, y ay: Double, z az: Double, magnitude m: Double, band b: Double, at t: Double) -> Bool {
        if !lowpassStarted {
            lowpass6.settle(at: m)
            lowpassStarted = true
        }
        let i = write
        let h = m - lowpass6(m)
        ring.withUnsafeMutableBufferPointer { r in
            // Each sample also one ring further on, so any window reads in one run from `windowStart`.
            for slot in stride(from: i, through: i + Self.capacity, by: Self.capacity) {
                r[Self.xAt + slot] = ax
                r[Self.yAt + slot] = ay
                r[Self.zAt + slot] = az
                r[Self.magnitudeAt + slot] = m
                r[Self.bandAt + slot] = b
                r[Self.highAt + slot] = h
            }
        }
        write = (write + 1) & (Self.capacity - 1)
        filled = min(filled + 1, Self.capacity)
        sinceHop += 1
        guard filled >= Self.windowLength, sinceHop >= Self.hop else { return false }
        sinceHop = 0
        compute(end: t)
        return true
    }

    /// Index of the window's oldest sample: the k-th is at `windowStart + k` (the sample arrays
    /// hold the ring twice over, so the window never wraps).
    private var windowStart: Int { (write - Self.windowLength + Self.capacity) & (Self.capacity - 1) }

    private static func log10Floor(_ v: Double) -> Double { log10(max(v, 0) + 1e-4) }

    /// Normalised autocorrelation of `signal` (already centred) over `lags` (every `step`-th):
    /// the best value and its lag (the first of equal values).
    private func bestAutocorrelation(_ signal: [Double], lags: ClosedRange<Int>, step: Int = 1, energy: Double) -> (value: Double, lag: Int) {
        var best = -1.0, bestLag = lags.lowerBound
        guard energy > 1e-12 else { return (0, bestLag) }
        func consider(_ value: Double, _ lag: Int) {
            if value > best {
                best = value
                bestLag = lag
            }
        }
        // Two lags per pass over the signal: twice the independent sums in flight, each lag's the
        // same as alone (`autocorrelationPair`).
        var lag = lags.lowerBound
        while lag + step <= lags.upperBound {
            let pair = Self.autocorrelationPair(signal, lags: (lag, lag + step), energy: energy)
            consider(pair.0, lag)
            consider(pair.1, lag + step)
            lag += 2 * step
        }
        if lag <= lags.upperBound { consider(Self.autocorrelation(signal, lag: lag, energy: energy), lag) }
        return (best, bestLag)
    }

    /// Normalised autocorrelation of `signal` (centred, at least `windowLength` values) at `lag`.
    @inline(__always)
    static func autocorrelation(_ signal: [Double], lag: Int, energy: Double) -> Double {
        let n = Self.windowLength
        guard energy > 1e-12, lag >= 0, lag < n else { return 0 }
        let sum = signal.withUnsafeBufferPointer { s -> Double in
            // Four partial sums (k = 0, 1, 2, 3 mod 4) as two pairs of SIMD lanes: independent
            // additions instead of one long dependency chain, each lane the same IEEE operations
            // in the same order as a scalar loop. `signal` holds at least n values (the window), so
            // no index below overflows or leaves it.
            guard let x = s.baseAddress, s.count >= n else { return 0 }
            let y = x + lag
            let count = n - lag
            var ab = SIMD2<Double>(), cd = SIMD2<Double>()
            var k = 0
            while k &+ 4 <= count {
                let x01 = SIMD2<Double>(x[k], x[k &+ 1]), y01 = SIMD2<Double>(y[k], y[k &+ 1])
                let x23 = SIMD2<Double>(x[k &+ 2], x[k &+ 3]), y23 = SIMD2<Double>(y[k &+ 2], y[k &+ 3])
                ab += x01 * y01
                cd += x23 * y23
                k &+= 4
            }
            var a = ab[0]
            while k < count {
                a += x[k] * y[k]
                k &+= 1
            }
            return (a + ab[1]) + (cd[0] + cd[1])
        }
        // Unbiased: scaled by the overlap so long lags are not penalised.
        return sum / energy * Double(n) / Double(n - lag)
    }

    /// `autocorrelation` at two lags (`lags.0 < lags.1`) in one pass: each lag's four partial sums
    /// are `autocorrelation`'s, added in its order (the shorter overlap's sums stop where its own
    /// loop would), so each value is the same bit for bit.
    @inline(__always)
    static func autocorrelationPair(_ signal: [Double], lags: (Int, Int), energy: Double) -> (Double, Double) {
        let n = Self.windowLength
        let (near, far) = lags
        guard energy > 1e-12, near >= 0, near < far, far < n else {
            return (autocorrelation(signal, lag: near, energy: energy), autocorrelation(signal, lag: far, energy: energy))
        }
        let sums = signal.withUnsafeBufferPointer { s -> (Double, Double) in
            guard let x = s.baseAddress, s.count >= n else { return (0, 0) }
            let y = x + near, z = x + far
            let nearCount = n - near, farCount = n - far
            var ab = SIMD2<Double>(), cd = SIMD2<Double>()
            var ef = SIMD2<Double>(), gh = SIMD2<Double>()
            var k = 0
            while k &+ 4 <= farCount {
                let x01 = SIMD2<Double>(x[k], x[k &+ 1]), x23 = SIMD2<Double>(x[k &+ 2], x[k &+ 3])
                ab += x01 * SIMD2<Double>(y[k], y[k &+ 1])
                cd += x23 * SIMD2<Double>(y[k &+ 2], y[k &+ 3])
                ef += x01 * SIMD2<Double>(z[k], z[k &+ 1])
                gh += x23 * SIMD2<Double>(z[k &+ 2], z[k &+ 3])
                k &+= 4
            }
            var j = k
            var e = ef[0]
            while j < farCount {
                e += x[j] * z[j]
                j &+= 1
            }
            while k &+ 4 <= nearCount {
                ab += SIMD2<Double>(x[k], x[k &+ 1]) * SIMD2<Double>(y[k], y[k &+ 1])
                cd += SIMD2<Double>(x[k &+ 2], x[k &+ 3]) * SIMD2<Double>(y[k &+ 2], y[k &+ 3])
                k &+= 4
            }
            var a = ab[0]
            while k < nearCount {
                a += x[k] * y[k]
                k &+= 1
            }
            return ((a + ab[1]) + (cd[0] + cd[1]), (e + ef[1]) + (gh[0] + gh[1]))
        }
        return (sums.0 / energy * Double(n) / Double(n - near), sums.1 / energy * Double(n) / Double(n - far))
    }

    private mutating func compute(end t: Double) {
        let n = Self.windowLength
        let nd = Double(n)
        let w = windowStart
        windowEnd = t

        // |a|: mean, deviation, per-second deviations (vibration level), jerk, range.
        var mean = 0.0, lowest = Double.infinity, highest = -Double.infinity
        var onlyMagnitude = true
        var variance = 0.0, jerk = 0.0, gaitPower = 0.0, highPower = 0.0, bandMean = 0.0
        var blockDeviations = (0.0, 0.0, 0.0, 0.0, 0.0)
        // A local reference to the ring (no copy of its storage), read through unchecked pointers
        // while `scratch` and `centredBand` are written: the window never wraps (`windowStart`).
        let ring = ring
        ring.withUnsafeBufferPointer { r in
            guard let base = r.baseAddress, r.count >= Self.highAt + w + n else { return }
            let y = base + Self.yAt + w, z = base + Self.zAt + w, magnitude = base + Self.magnitudeAt + w
            let band = base + Self.bandAt + w, high = base + Self.highAt + w
            for k in 0..<n {
                mean += magnitude[k]
                lowest = min(lowest, magnitude[k])
                highest = max(highest, magnitude[k])
                if y[k] != 0 || z[k] != 0 { onlyMagnitude = false }
            }
            mean /= nd
            // Each 1 s block's deviation from its sums taken in the same pass (block by block, in
            // sample order: the same sums as a second pass over the block would take).
            scratch.withUnsafeMutableBufferPointer { deviations in
                for block in 0..<5 {
                    var s = 0.0, ss = 0.0
                    for k in (block * 25)..<(block * 25 + 25) {
                        let d = magnitude[k] - mean
                        deviations[k] = d
                        variance += d * d
                        if k > 0 { jerk += abs(magnitude[k] - magnitude[k - 1]) }
                        highPower += high[k] * high[k]
                        bandMean += band[k]
                        s += d
                        ss += d * d
                    }
                    let deviation = max(ss / 25 - (s / 25) * (s / 25), 0).squareRoot()
                    switch block {
                    case 0: blockDeviations.0 = deviation
                    case 1: blockDeviations.1 = deviation
                    case 2: blockDeviations.2 = deviation
                    case 3: blockDeviations.3 = deviation
                    default: blockDeviations.4 = deviation
                    }
                }
            }
            variance /= nd
            bandMean /= nd
            centredBand.withUnsafeMutableBufferPointer { centred in
                for k in 0..<n {
                    let b = band[k] - bandMean
                    centred[k] = b
                    gaitPower += b * b
                }
            }
        }
        magnitudeOnly = onlyMagnitude
        // The centred band's energy for its autocorrelation below: the same squares summed in
        // the same order, so the same bits as summing them again.
        let bandEnergy = gaitPower
        gaitPower /= nd
        highPower /= nd
        let midPower = max(variance - gaitPower - highPower, 0)

        let vibration = Self.median5(blockDeviations)

        // Dominant frequency of |a| (Goertzel over 0.6-4 Hz).
        var bestPower = 0.0, bestFrequency = 0.0, powerSum = 0.0
        func consider(_ a: Double, _ b: Double, _ coefficient: Double, _ index: Int) {
            let power = a * a + b * b - coefficient * a * b
            powerSum += power
            if power > bestPower {
                bestPower = power
                bestFrequency = Self.frequency(index)
            }
        }
        // All 18 frequencies in one pass, one SIMD lane each (8 + 8 + 2): the recurrences are
        // independent, so they run side by side (one pass of 18 instead of three passes bound by
        // the latency of one step each), and each lane does the scalar loop's IEEE operations in
        // its order, so the powers are bit for bit the same; `consider` runs in frequency order.
        var low = SIMD8<Double>(), middle = SIMD8<Double>(), top = SIMD2<Double>()
        for lane in 0..<8 {
            low[lane] = goertzelCoefficients[lane]
            middle[lane] = goertzelCoefficients[8 + lane]
        }
        for lane in 0..<2 { top[lane] = goertzelCoefficients[16 + lane] }
        let bank = scratch.withUnsafeBufferPointer { x in Self.goertzelBank(x, count: n, coefficients: (low, middle, top)) }
        for lane in 0..<8 { consider(bank.low.s1[lane], bank.low.s2[lane], low[lane], lane) }
        for lane in 0..<8 { consider(bank.middle.s1[lane], bank.middle.s2[lane], middle[lane], 8 + lane) }
        for lane in 0..<2 { consider(bank.top.s1[lane], bank.top.s2[lane], top[lane], 16 + lane) }
        let dominantShare = powerSum > 1e-12 ? bestPower / powerSum : 0
        // Power of a sinusoid at a bin: (N A / 2)^2 with variance A^2 / 2.
        let dominantOfTotal = variance > 1e-12 ? min(2 * bestPower / (nd * nd) / variance, 1) : 0

        // Periodicity of the gait band.
        let step = bestAutocorrelation(centredBand, lags: Self.stepLags, energy: bandEnergy)
        let strideLag = bestAutocorrelation(centredBand, lags: Self.strideLags, step: 2, energy: bandEnergy)
        let doubleStep = Self.autocorrelation(centredBand, lag: 2 * step.lag, energy: bandEnergy)

        // Step candidates inside the window, and their intervals over the last `longSpan` too: a
        // slow walk's steps keep their rhythm from one window to the next, arm work at a desk or
        // dressing does not (five seconds hold only 3-5 of a slow walk's intervals, too few to tell
        // them apart).
        var peaks = 0, swingSum = 0.0
        var windowIntervals = IntervalSpread(), longIntervals = IntervalSpread()
        let start = t - nd / Self.rate
        let longStart = t - Self.longSpan
        for j in 0..<peakCount {
            let index = (peakIndex - peakCount + j + Self.peakCapacity) % Self.peakCapacity
            let pt = peakTimes[index]
            guard pt > longStart && pt <= t else { continue }
            longIntervals.note(pt)
            guard pt > start else { continue }
            peaks += 1
            swingSum += peakSwings[index]
            windowIntervals.note(pt)
        }
        let intervalCV = windowIntervals.coefficientOfVariation
        let longCV = longIntervals.coefficientOfVariation

        values[0] = Self.log10Floor(vibration)
        values[1] = Self.log10Floor(variance.squareRoot())
        values[2] = Self.log10Floor(gaitPower.squareRoot())
        values[3] = Self.log10Floor(midPower.squareRoot())
        values[4] = Self.log10Floor(highPower.squareRoot())
        values[5] = Self.log10Floor(jerk / nd * Self.rate)
        values[6] = bestFrequency
        values[7] = dominantShare
        values[8] = dominantOfTotal
        values[9] = step.value
        values[10] = Double(step.lag) / Self.rate
        values[11] = strideLag.value
        values[12] = Double(strideLag.lag) / Self.rate
        values[13] = doubleStep
        values[14] = Double(peaks) / (nd / Self.rate)
        values[15] = intervalCV
        values[16] = Self.log10Floor(peaks > 0 ? swingSum / Double(peaks) : 0)
        values[17] = Self.log10Floor(highest - lowest)
        values[18] = longCV

        if onlyMagnitude {
            for k in Self.magnitudeCount..<Self.count { values[k] = 0 }
            return
        }
        computeAxes()
    }

    /// Gravity (the window mean of the three axes) and the movement along and across it.
    private mutating func computeAxes() {
        let n = Self.windowLength
        let nd = Double(n)
        // A local reference to the ring (no copy of its storage), read through unchecked pointers
        // while `scratch` and `values` are written: the window never wraps (`windowStart`), so
        // every read below is one of the window's samples.
        let ring = ring
        let w = windowStart
        ring.withUnsafeBufferPointer { r in
            guard let base = r.baseAddress, r.count >= Self.zAt + w + n else { return }
            let x = base + Self.xAt + w, y = base + Self.yAt + w, z = base + Self.zAt + w
            var gx = 0.0, gy = 0.0, gz = 0.0
            var firstX = 0.0, firstY = 0.0, firstZ = 0.0
            for k in 0..<(n / 2) {
                gx += x[k]
                gy += y[k]
                gz += z[k]
                firstX += x[k]
                firstY += y[k]
                firstZ += z[k]
            }
            for k in (n / 2)..<n {
                gx += x[k]
                gy += y[k]
                gz += z[k]
            }
            // The jerk's lengths two at a time (one SIMD lane each: two square roots in one
            // instruction), summed in sample order: the same sum bit for bit.
            var jerk = 0.0
            var k = 1
            while k + 1 < n {
                let dx = SIMD2(x[k] - x[k - 1], x[k + 1] - x[k])
                let dy = SIMD2(y[k] - y[k - 1], y[k + 1] - y[k])
                let dz = SIMD2(z[k] - z[k - 1], z[k + 1] - z[k])
                let length = (dx * dx + dy * dy + dz * dz).squareRoot()
                jerk += length[0]
                jerk += length[1]
                k += 2
            }
            if k < n {
                let dx = x[k] - x[k - 1], dy = y[k] - y[k - 1], dz = z[k] - z[k - 1]
                jerk += (dx * dx + dy * dy + dz * dz).squareRoot()
            }
            gx /= nd
            gy /= nd
            gz /= nd
            let half = Double(n / 2)
            let secondX = (gx * nd - firstX) / (nd - half), secondY = (gy * nd - firstY) / (nd - half), secondZ = (gz * nd - firstZ) / (nd - half)
            firstX /= half
            firstY /= half
            firstZ /= half
            let norm = (gx * gx + gy * gy + gz * gz).squareRoot()
            let ux = norm > 1e-9 ? gx / norm : 0, uy = norm > 1e-9 ? gy / norm : 0, uz = norm > 1e-9 ? gz / norm : 1
            let move = Self.angle(firstX, firstY, firstZ, secondX, secondY, secondZ)

            // Orientation spread: the largest angle between a 1 s block mean and gravity.
            var spread = 0.0
            for block in 0..<5 {
                var bx = 0.0, by = 0.0, bz = 0.0
                for k in (block * 25)..<(block * 25 + 25) {
                    bx += x[k]
                    by += y[k]
                    bz += z[k]
                }
                spread = max(spread, Self.angle(bx, by, bz, ux, uy, uz))
            }

            var verticalPower = 0.0, horizontal = 0.0, verticalMean = 0.0
            var energy = 0.0
            scratch.withUnsafeMutableBufferPointer { vertical in
                for k in 0..<n {
                    let dx = x[k] - gx, dy = y[k] - gy, dz = z[k] - gz
                    let v = dx * ux + dy * uy + dz * uz
                    vertical[k] = v
                    verticalMean += v
                    verticalPower += v * v
                    let hx = dx - v * ux, hy = dy - v * uy, hz = dz - v * uz
                    horizontal += hx * hx + hy * hy + hz * hz
                }
                verticalMean /= nd
                for k in 0..<n {
                    vertical[k] -= verticalMean
                    energy += vertical[k] * vertical[k]
                }
            }
            let verticalStep = bestAutocorrelation(scratch, lags: Self.stepLags, energy: energy)

            values[19] = norm
            values[20] = verticalPower + horizontal > 1e-12 ? verticalPower / (verticalPower + horizontal) : 0.5
            values[21] = move
            values[22] = spread
            values[23] = verticalStep.value
            values[24] = Self.log10Floor(jerk / nd * Self.rate)
            values[25] = Self.log10Floor((horizontal / nd).squareRoot())
        }
    }

    /// Deviation over mean of `count` intervals from their sum and sum of squares, at most 1;
    /// 1 when fewer than two intervals (no rhythm to judge).

    private static func angle(_ ax: Double, _ ay: Double, _ az: Double, _ bx: Double, _ by: Double, _ bz: Double) -> Double {
        let na = (ax * ax + ay * ay + az * az).squareRoot(), nb = (bx * bx + by * by + bz * bz).squareRoot()
        guard na > 1e-9, nb > 1e-9 else { return 0 }
        return acos(min(max((ax * bx + ay * by + az * bz) / (na * nb), -1), 1))
    }

    /// The Goertzel recurrence s0 = x + c s1 - s2 over the first `count` values of `x` for the 18
    /// frequencies at once, one per lane of `c` (lanes 0-7, 8-15, 16-17); returns each group's last
    /// s1 and s2. The groups are independent and interleaved in one loop; each lane does the scalar
    /// recurrence's IEEE operations in its order (Swift does not fuse a * b + c).
    @inline(__always)
    static func goertzelBank(_ x: UnsafeBufferPointer<Double>, count: Int,
                             coefficients c: (SIMD8<Double>, SIMD8<Double>, SIMD2<Double>))
        -> (low: (s1: SIMD8<Double>, s2: SIMD8<Double>), middle: (s1: SIMD8<Double>, s2: SIMD8<Double>),
            top: (s1: SIMD2<Double>, s2: SIMD2<Double>)) {
        // The reads below are unchecked.
        precondition(count <= x.count, "more samples than the buffer holds")
        var a1 = SIMD8<Double>(), a2 = SIMD8<Double>()
        var b1 = SIMD8<Double>(), b2 = SIMD8<Double>()
        var c1 = SIMD2<Double>(), c2 = SIMD2<Double>()
        for k in 0..<count {
            let v = x[k]
            let a0 = SIMD8<Double>(repeating: v) + c.0 * a1 - a2
            let b0 = SIMD8<Double>(repeating: v) + c.1 * b1 - b2
            let c0 = SIMD2<Double>(repeating: v) + c.2 * c1 - c2
            a2 = a1
            a1 = a0
            b2 = b1
            b1 = b0
            c2 = c1
            c1 = c0
        }
        return ((a1, a2), (b1, b2), (c1, c2))
    }

    private static func median5(_ v: (Double, Double, Double, Double, Double)) -> Double {
        // Median of five without an array: the third smallest.
        var a = v.0, b = v.1, c = v.2, d = v.3, e = v.4
        @inline(__always) func order(_ p: inout Double, _ q: inout Double) { if p > q { swap(&p, &q) } }
        order(&a, &b)
        order(&d, &e)
        order(&c, &e)
        order(&c, &d)
        order(&a, &d)
        order(&a, &c)
        order(&b, &e)
        order(&b, &d)
        order(&b, &c)
        return c
    }
}

/// The spread of the intervals between step candidates noted in time order: their coefficient of
/// variation, capped at 1 (and 1 with fewer than two intervals: no rhythm shown).
private struct IntervalSpread {
    private var previous = -Double.infinity
    private var sum = 0.0, squares = 0.0, count = 0

    mutating func note(_ time: Double) {
        if previous.isFinite {
            let interval = time - previous
            sum += interval
            squares += interval * interval
            count += 1
        }
        previous = time
    }

    var coefficientOfVariation: Double {
        guard count >= 2 else { return 1 }
        let mean = sum / Double(count)
        return min(max(squares / Double(count) - mean * mean, 0).squareRoot() / mean, 1)
    }
}
