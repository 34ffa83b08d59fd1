import Glibc
import StepdModel

/// The imperfections of real accelerometers, applied to a recording (`stepbench robustness`).
/// Each case is one pure function over `[AccelSample]`; the random ones draw from a `SplitMix64`
/// seeded by the caller, so a run is repeatable. The handbook asks to emulate imperfect hardware:
/// oscillators a few percent off, coarse converters, zero-g offsets, gain errors, noise, and
/// firmware that stamps samples late by a varying amount.
///
/// **Magnitude-only recordings** (`x` = |a|, `y` = `z` = 0, e.g. the `rieck-*` watch files) stay
/// magnitude-only under every case. Time transformations (resampling, drift) act on `x` alone
/// (`y` and `z` interpolate to 0). Per-axis value imperfections (noise, quantisation, offsets,
/// gains) act on the sensor's axes before the watch takes the norm: the magnitude is laid along
/// one fixed random unit direction (drawn once per recording: the unknown orientation of the
/// watch), the three-axis imperfection is applied to that vector, and its norm goes back into
/// `x`. So |a| sees noise of about the same size along gravity, an offset's projection on that
/// direction, and a gain between the axes' gains, as a watch logging |a| would. A rotation does
/// not change |a|, so it leaves magnitude-only input as it is.
///
/// `.magnitudeWatch` goes the other way: three-axis input becomes what a magnitude-only watch
/// logs (`x` = |a|, `y` = `z` = 0), so the engine's magnitude-only path can be measured on the
/// development set's real three-axis drives and still files, which no |a| recording has.
public enum SensorImperfection: Sendable, Equatable {
    case none
    /// White Gaussian noise, `sigma` g per axis.
    case whiteNoise(sigma: Double)
    /// Resampled to `rate` Hz as a sensor sampling at that rate would see the movement (a boxcar
    /// over one output period when the input is faster: the chip's decimation filter; linear
    /// interpolation when slower), stamped by firmware with Gaussian jitter of `jitter` periods
    /// (standard deviation, clipped at 3 sigma and below half a period so stamps stay in order).
    case resample(rate: Double, jitter: Double)
    /// The sensor clock `percent` fast: every interval is stamped (1 + percent / 100) times its
    /// true length, so the movement looks that much slower (time stretched from the first sample).
    case clockDrift(percent: Double)
    /// A `bits`-bit converter over +-`range` g: two's complement codes, clipped at full scale.
    case quantise(bits: Int, range: Double)
    /// A zero-g offset per axis, `minimum`...`maximum` g with a random sign.
    case zeroGOffset(minimum: Double, maximum: Double)
    /// A gain error per axis of `fraction` (e.g. 0.03), with a random sign.
    case gainError(fraction: Double)
    /// One uniformly random rotation of the device for the whole recording (three-axis input).
    case rotation
    /// The recording as a magnitude-only watch drawn per recording logs it, the way `stepbench
    /// daily-life --magnitude-only` renders its instances (`WristSensor.magnitudeWatch`: 12.5 or
    /// 25 Hz, the L2 or L1 norm of its three converted axes times a gain of 1.2-1.4, y = z = 0).
    /// The recording is resampled to the watch's rate only when it is faster (a 12.5 Hz Bangle
    /// file stays 12.5 Hz under a 25 Hz draw: nothing can restore what it did not sample) and
    /// gets no noise beyond its own sensor's. Magnitude-only input stays as it is. `norm` and
    /// `gain`, when given, replace the drawn ones (the rest of the draw is unchanged), to tell
    /// the norm's part from the gain's.
    case magnitudeWatch(norm: MagnitudeNorm? = nil, gain: Double? = nil)

    /// A short label for tables.
    public var label: String {
        switch self {
        case .none: "none"
        case .whiteNoise(let sigma): "noise \(DecimalText.fixed(sigma, decimals: 2) ?? "?") g"
        case .resample(let rate, let jitter):
            "\(DecimalText.fixed(rate, decimals: rate == rate.rounded() ? 0 : 1) ?? "?") Hz, jitter \(DecimalText.fixed(jitter, decimals: 2) ?? "?")"
        case .clockDrift(let percent): "drift \(percent > 0 ? "+" : "")\(DecimalText.fixed(percent, decimals: 0) ?? "?") %"
        case .quantise(let bits, let range): "\(bits) bit +-\(DecimalText.fixed(range, decimals: 0) ?? "?") g"
        case .zeroGOffset(let minimum, let maximum):
            "offset \(DecimalText.fixed(minimum * 1000, decimals: 0) ?? "?")-\(DecimalText.fixed(maximum * 1000, decimals: 0) ?? "?") mg"
        case .gainError(let fraction): "gain +-\(DecimalText.fixed(fraction * 100, decimals: 0) ?? "?") %"
        case .rotation: "rotation"
        case .magnitudeWatch(let norm, let gain):
            "|a| watch" + (norm.map { " " + $0.rawValue } ?? "") + (gain.map { " x" + (DecimalText.fixed($0, decimals: 2) ?? "?") } ?? "")
        }
    }

    /// The recording as a sensor with this imperfection would have delivered it. `seed` makes
    /// the random draws repeatable (the bench derives it from the recording's name).
    public func apply(to samples: [AccelSample], seed: UInt64) -> [AccelSample] {
        var random = SplitMix64(seed: seed)
        let magnitudeOnly = Self.isMagnitudeOnly(samples)
        switch self {
        case .none:
            return samples
        case .whiteNoise(let sigma):
            return Self.perAxis(samples, magnitudeOnly: magnitudeOnly, random: &random) { v, r in
                Self.addNoise(&v, sigma: sigma, random: &r)
            }
        case .resample(let rate, let jitter):
            return Self.resampled(samples, rate: rate, jitter: jitter, random: &random)
        case .clockDrift(let percent):
            return Self.stretched(samples, factor: 1 + percent / 100)
        case .quantise(let bits, let range):
            return Self.perAxis(samples, magnitudeOnly: magnitudeOnly, random: &random) { v, _ in
                v = (Self.quantised(v.0, bits: bits, range: range), Self.quantised(v.1, bits: bits, range: range),
                     Self.quantised(v.2, bits: bits, range: range))
            }
        case .zeroGOffset(let minimum, let maximum):
            let offset = (Self.signed(minimum, maximum, &random), Self.signed(minimum, maximum, &random), Self.signed(minimum, maximum, &random))
            return Self.perAxis(samples, magnitudeOnly: magnitudeOnly, random: &random) { v, _ in
                v = (v.0 + offset.0, v.1 + offset.1, v.2 + offset.2)
            }
        case .gainError(let fraction):
            let gain = (1 + Self.signed(fraction, fraction, &random), 1 + Self.signed(fraction, fraction, &random),
                        1 + Self.signed(fraction, fraction, &random))
            return Self.perAxis(samples, magnitudeOnly: magnitudeOnly, random: &random) { v, _ in
                v = (v.0 * gain.0, v.1 * gain.1, v.2 * gain.2)
            }
        case .rotation:
            guard !magnitudeOnly else { return samples }
            let m = Self.randomRotation(&random)
            return samples.map { s in
                AccelSample(t: s.t, x: m[0] * s.x + m[1] * s.y + m[2] * s.z, y: m[3] * s.x + m[4] * s.y + m[5] * s.z,
                            z: m[6] * s.x + m[7] * s.y + m[8] * s.z)
            }
        case .magnitudeWatch(let norm, let gain):
            guard !magnitudeOnly else { return samples }
            let watch = Self.watchDraw(&random, norm: norm, gain: gain)
            let inputRate = samples.count >= 2 ? Double(samples.count - 1) / max((samples.last?.t ?? 0) - (samples.first?.t ?? 0), 1e-9) : 0
            // 5 % over the watch's rate before resampling: a 12.5 Hz file whose stamps run a little fast stays as sampled.
            let sampled = inputRate > 1.05 * watch.rate ? Self.resampled(samples, rate: watch.rate, jitter: watch.jitter, random: &random) : samples
            return sampled.map { s in
                let x = Self.quantised(s.x, bits: watch.bits, range: watch.range)
                let y = Self.quantised(s.y, bits: watch.bits, range: watch.range)
                let z = Self.quantised(s.z, bits: watch.bits, range: watch.range)
                return AccelSample(t: s.t, x: watch.loggedMagnitude(x, y, z) ?? x, y: 0, z: 0)
            }
        }
    }

    /// The watch `.magnitudeWatch` draws for a recording under `seed` (the same first draw
    /// `apply` makes, with its `norm` and `gain` when given), for tables that name it.
    public static func drawnMagnitudeWatch(seed: UInt64, norm: MagnitudeNorm? = nil, gain: Double? = nil) -> WristSensor {
        var random = SplitMix64(seed: seed)
        return watchDraw(&random, norm: norm, gain: gain)
    }

    /// `WristSensor.magnitudeWatch`'s draw with `norm` and `gain` in place of the drawn ones when given.
    static func watchDraw(_ random: inout SplitMix64, norm: MagnitudeNorm?, gain: Double?) -> WristSensor {
        var watch = WristSensor.magnitudeWatch(&random)
        watch.magnitude = norm ?? watch.magnitude
        watch.gain = gain ?? watch.gain
        return watch
    }

    /// Magnitude-only input: y and z exactly zero throughout (as the engine's features decide it).
    public static func isMagnitudeOnly(_ samples: [AccelSample]) -> Bool {
        !samples.isEmpty && samples.allSatisfy { $0.y == 0 && $0.z == 0 }
    }

    /// A 64-bit seed from a recording's name and a salt (FNV-1a): the same file gets the same draw
    /// whatever other files a run includes, unlike Swift's per-process `hashValue`.
    public static func seed(for name: String, salt: UInt64) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325 ^ salt
        for byte in name.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
        return hash
    }

    // MARK: the transformations

    typealias Vector = (Double, Double, Double)

    /// Applies a per-axis imperfection to three-axis samples, or, for magnitude-only input, to the
    /// magnitude laid along one random direction, keeping the norm (see the type's comment).
    static func perAxis(_ samples: [AccelSample], magnitudeOnly: Bool, random: inout SplitMix64,
                        _ body: (inout Vector, inout SplitMix64) -> Void) -> [AccelSample] {
        var out = samples
        if magnitudeOnly {
            let u = randomRotation(&random)
            // The rotation's third column: a uniformly random unit vector.
            let direction = (u[2], u[5], u[8])
            for i in out.indices {
                let m = out[i].x
                var v = (m * direction.0, m * direction.1, m * direction.2)
                body(&v, &random)
                out[i].x = (v.0 * v.0 + v.1 * v.1 + v.2 * v.2).squareRoot()
            }
        } else {
            for i in out.indices {
                var v = (out[i].x, out[i].y, out[i].z)
                body(&v, &random)
                out[i].x = v.0
                out[i].y = v.1
                out[i].z = v.2
            }
        }
        return out
    }

    static func addNoise(_ v: inout Vector, sigma: Double, random: inout SplitMix64) {
        v.0 += sigma * gaussian(&random)
        v.1 += sigma * gaussian(&random)
        v.2 += sigma * gaussian(&random)
    }

    /// `value` as a `bits`-bit converter over +-`range` g reads it: one of 2^bits levels.
    public static func quantised(_ value: Double, bits: Int, range: Double) -> Double {
        let step = 2 * range / Double(1 << bits)
        let half = Double(1 << (bits - 1))
        return min(max((value / step).rounded(), -half), half - 1) * step
    }

    /// Timestamps stretched by `factor` from the first sample; values untouched.
    public static func stretched(_ samples: [AccelSample], factor: Double) -> [AccelSample] {
        guard let origin = samples.first?.t else { return samples }
        return samples.map { AccelSample(t: origin + ($0.t - origin) * factor, x: $0.x, y: $0.y, z: $0.z) }
    }

    /// Gaps longer than this in the input stay gaps: a sensor hole is not interpolated over.
    static let holeSeconds = 1.0

    /// See `.resample`. Output sample k is the movement at `t0 + k / rate`, stamped with jitter.
    static func resampled(_ samples: [AccelSample], rate: Double, jitter: Double, random: inout SplitMix64) -> [AccelSample] {
        guard samples.count >= 2, rate > 0, let first = samples.first, let last = samples.last, last.t > first.t else { return samples }
        let period = 1 / rate
        let inputRate = Double(samples.count - 1) / (last.t - first.t)
        // Averaging only when at least about two input samples fall in one output period.
        let boxcar = inputRate > 1.5 * rate
        let limit = min(3 * jitter, 0.45)
        var out: [AccelSample] = []
        out.reserveCapacity(Int((last.t - first.t) * rate) + 2)
        var lo = 0
        var k = 0
        while true {
            let t = first.t + Double(k) * period
            if t > last.t { break }
            k += 1
            var value: Vector?
            if boxcar {
                value = boxcarMean(samples, cursor: &lo, from: t - period / 2, before: t + period / 2)
            } else {
                while lo + 1 < samples.count && samples[lo + 1].t <= t { lo += 1 }
                let a = samples[lo]
                if lo + 1 < samples.count {
                    let b = samples[lo + 1]
                    if b.t - a.t <= holeSeconds {
                        let w = b.t > a.t ? (t - a.t) / (b.t - a.t) : 0
                        value = (a.x + (b.x - a.x) * w, a.y + (b.y - a.y) * w, a.z + (b.z - a.z) * w)
                    }
                } else if a.t == t {
                    value = (a.x, a.y, a.z)
                }
            }
            // A jitter draw for every output sample, used or not, so the stamps do not depend on holes.
            let late = min(max(jitter * gaussian(&random), -limit), limit) * period
            guard let value else { continue }
            out.append(AccelSample(t: t + late, x: value.0, y: value.1, z: value.2))
        }
        return out
    }

    /// The mean of the samples stamped in [`lower`, `upper`), nil if there are none: what a device
    /// that averages over its sample period reads. `cursor` moves past the samples before `lower`, so
    /// consecutive periods cost one pass over `samples` (both the resampling above and the tempo
    /// copies' `GaitSegments.atDeviceRate` read through here).
    static func boxcarMean(_ samples: [AccelSample], cursor: inout Int, from lower: Double, before upper: Double) -> Vector? {
        while cursor < samples.count && samples[cursor].t < lower { cursor += 1 }
        var end = cursor
        var sum = (0.0, 0.0, 0.0)
        while end < samples.count && samples[end].t < upper {
            sum = (sum.0 + samples[end].x, sum.1 + samples[end].y, sum.2 + samples[end].z)
            end += 1
        }
        guard end > cursor else { return nil }
        let n = Double(end - cursor)
        return (sum.0 / n, sum.1 / n, sum.2 / n)
    }

    /// A standard normal draw (Box-Muller).
    static func gaussian(_ random: inout SplitMix64) -> Double {
        let u1 = (Double(random.next() >> 11) + 1) / 9_007_199_254_740_992  // (0, 1]
        let u2 = Double(random.next() >> 11) / 9_007_199_254_740_992
        return (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
    }

    static func uniform(_ random: inout SplitMix64) -> Double { Double(random.next() >> 11) / 9_007_199_254_740_992 }

    /// A magnitude in `minimum...maximum` with a random sign.
    static func signed(_ minimum: Double, _ maximum: Double, _ random: inout SplitMix64) -> Double {
        let magnitude = minimum + (maximum - minimum) * uniform(&random)
        return random.next() & 1 == 0 ? magnitude : -magnitude
    }

    /// A uniformly random rotation matrix (row-major) from a random unit quaternion.
    public static func randomRotation(_ random: inout SplitMix64) -> [Double] {
        var q = (gaussian(&random), gaussian(&random), gaussian(&random), gaussian(&random))
        let norm = max((q.0 * q.0 + q.1 * q.1 + q.2 * q.2 + q.3 * q.3).squareRoot(), 1e-12)
        q = (q.0 / norm, q.1 / norm, q.2 / norm, q.3 / norm)
        let (a, b, c, d) = q
        return [a * a + b * b - c * c - d * d, 2 * (b * c - a * d), 2 * (b * d + a * c),
                2 * (b * c + a * d), a * a - b * b + c * c - d * d, 2 * (c * d - a * b),
                2 * (b * d - a * c), 2 * (c * d + a * b), a * a - b * b - c * c + d * d]
    }
}
