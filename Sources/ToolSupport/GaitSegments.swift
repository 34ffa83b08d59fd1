import Glibc
import StepdModel

/// The inputs of `stepbench accuracy`'s bouts, tempo and hole rows, cut from a labelled walk.
///
/// Everything here is a function of the recording and its true step count only: this module
/// cannot see the motion engine, so every protocol (in-sample, each fold model) and every version
/// of the engine is measured on the same copies of the same walks. (Earlier the cuts came from
/// the engine's own step times, so a walk the engine under-counted was moved less far from its native tempo for the tempo
/// rows, and the in-sample and held-out rows ran on different inputs.)
public enum GaitSegments {
    /// Width of the bins in which movement is judged.
    public static let binSeconds = 1.0
    /// Standard deviation of |a| within a bin above which the device is moving. A still device
    /// (tremor, sensor noise, quantisation) stays under 0.01 g; the calmest walking second of the
    /// labelled walks (a slow wrist walk seen as |a| at 12.5 Hz) is about 0.03-0.05 g, and their
    /// median bins 0.1-0.7 g.
    public static let movingDeviation = 0.03

    /// Where a walk moves, judged from the signal alone (never from a step detector).
    public struct Movement: Equatable, Sendable {
        /// Time of the start of the first bin.
        public var start: Double
        /// One flag per `binSeconds` bin from `start`: the device moved in that bin.
        public var moving: [Bool]

        /// Seconds of movement: the walking time, without pauses or still lead-in and tail.
        public var seconds: Double { Double(moving.lazy.filter { $0 }.count) * GaitSegments.binSeconds }

        /// Steps/min of a walk of `truth` true steps over these moving seconds.
        public func cadence(truth: Int) -> Double? {
            guard truth > 0, seconds > 0 else { return nil }
            return 60 * Double(truth) / seconds
        }

        /// The time at which `fraction` of the moving seconds have elapsed (the middle of that bin).
        public func time(atMovingFraction fraction: Double) -> Double? {
            let wanted = Int((fraction * Double(moving.lazy.filter { $0 }.count)).rounded(.down))
            var seen = 0
            for (i, m) in moving.enumerated() where m {
                if seen == wanted { return start + (Double(i) + 0.5) * GaitSegments.binSeconds }
                seen += 1
            }
            return nil
        }

        /// True when every bin that `from..<to` touches is moving (no pause inside).
        public func movesThroughout(from: Double, to: Double) -> Bool {
            let first = Int(((from - start) / GaitSegments.binSeconds).rounded(.down))
            let last = Int(((to - start) / GaitSegments.binSeconds).rounded(.up)) - 1
            guard first >= 0, last < moving.count, first <= last else { return false }
            return moving[first...last].allSatisfy { $0 }
        }
    }

    public static func movement(_ samples: [AccelSample]) -> Movement {
        guard let t0 = samples.first?.t, let t1 = samples.last?.t else { return Movement(start: 0, moving: []) }
        let bins = Int(((t1 - t0) / binSeconds).rounded(.down)) + 1
        var n = [Int](repeating: 0, count: bins), sum = [Double](repeating: 0, count: bins), squares = sum
        for s in samples {
            let b = min(max(Int(((s.t - t0) / binSeconds).rounded(.down)), 0), bins - 1)
            // |a|: on a magnitude-only file (y = z = 0) this is x itself.
            let m = s.magnitude
            n[b] += 1
            sum[b] += m
            squares[b] += m * m
        }
        let moving = (0..<bins).map { b -> Bool in
            guard n[b] >= 3 else { return false }
            let mean = sum[b] / Double(n[b])
            return (squares[b] / Double(n[b]) - mean * mean).squareRoot() > movingDeviation
        }
        return Movement(start: t0, moving: moving)
    }

    /// The walk's native cadence in steps/min: its true count over its moving seconds.
    public static func nativeCadence(_ samples: [AccelSample], truth: Int) -> Double? {
        movement(samples).cadence(truth: truth)
    }

    /// How a walk's movement grows with its cadence in a tempo copy: the deviation of each axis from
    /// its running mean is multiplied by (target / native cadence) to this power. The same wrists at
    /// three speeds move with about cadence^1.1 (the rieck watch: |a| deviation 0.10-0.16 g at 38-53
    /// steps/min, 0.34-0.51 g at 111-132) and cadence^1.5 (the Bangle walks at 75-118); 1 is the
    /// lower, so a sped-up copy moves no more than a real walk at its tempo would. With timestamps
    /// alone (power 0) a 45 steps/min walk sped up to 150 kept a third of the movement the same
    /// wrist shows at 120: a copy whose displacement had shrunk ten-fold, not a brisk walk.
    public static let movementPower = 1.0

    /// Phases at which `stepbench accuracy` samples each tempo copy (fractions of the device's
    /// sample period): a 12.5 Hz device sees a 150 steps/min walk in 5 samples a step, and where its
    /// samples fall moves the count (measured: ~150 held out 3.3-5.2 % over four phases).
    public static let tempoPhases = [0.0, 0.25, 0.5, 0.75]

    /// The walk as it would be recorded at about `target` steps/min; its true count is unchanged.
    /// - timestamps multiplied by `scale` (native cadence / target);
    /// - the movement (each axis's deviation from its mean over two native strides: gravity and slow
    ///   turns stay) multiplied by (1 / scale)^`movementPower`;
    /// - sped up, the copy is denser than the device records: it is averaged into the recording's own
    ///   sample periods, starting `phase` of a period early (`atDeviceRate`). A 12.5 Hz walk sped up 3x
    ///   is otherwise a 37 Hz stream, three times what the watch gives.
    /// An axis that is zero throughout stays zero (|a| input stays |a|).
    public static func tempoCopy(_ samples: [AccelSample], truth: Int, target: Double, phase: Double = 0) -> (samples: [AccelSample], scale: Double)? {
        guard let cadence = nativeCadence(samples, truth: truth), target > 0 else { return nil }
        let scale = cadence / target
        let gain = pow(1 / scale, movementPower)
        let mean = runningMean(samples, seconds: 4 * 60 / cadence)
        let copy = zip(samples, mean).map { s, m in
            AccelSample(t: s.t * scale, x: m.x + (s.x - m.x) * gain, y: m.y + (s.y - m.y) * gain, z: m.z + (s.z - m.z) * gain)
        }
        return (atDeviceRate(copy, rate: rate(samples), phase: phase), scale)
    }

    /// `samples` as a device sampling at `rate` records them: the mean of the samples in each of its
    /// sample periods (the device's own low-pass before it samples), the periods starting `phase` of a
    /// period before the first sample. Only for a stream denser than the device; a sparser one (a walk
    /// slowed down) is returned as it is: the engine's resampling fills it linearly, as any reader would.
    static func atDeviceRate(_ samples: [AccelSample], rate: Double, phase: Double) -> [AccelSample] {
        guard let t0 = samples.first?.t, let t1 = samples.last?.t, rate > 0,
              Double(samples.count - 1) > (t1 - t0) * rate else { return samples }
        let period = 1 / rate
        var out: [AccelSample] = []
        out.reserveCapacity(Int((t1 - t0) * rate) + 2)
        var cursor = 0, bin = 0
        var start = t0 - phase * period
        // The last period is the one that holds the last sample, even when only part of it is recorded.
        while start <= t1 {
            let end = t0 + (Double(bin) + 1 - phase) * period
            if let mean = SensorImperfection.boxcarMean(samples, cursor: &cursor, from: start, before: end) {
                out.append(AccelSample(t: end - period / 2, x: mean.0, y: mean.1, z: mean.2))
            }
            start = end
            bin += 1
        }
        return out
    }

    /// Each sample's per-axis mean over the `seconds` centred on it (the device's gravity and slow turns).
    static func runningMean(_ samples: [AccelSample], seconds: Double) -> [(x: Double, y: Double, z: Double)] {
        var sx = [0.0], sy = [0.0], sz = [0.0]
        for s in samples {
            sx.append(sx[sx.count - 1] + s.x)
            sy.append(sy[sy.count - 1] + s.y)
            sz.append(sz[sz.count - 1] + s.z)
        }
        var lo = 0, hi = 0
        return samples.indices.map { i in
            while samples[lo].t < samples[i].t - seconds / 2 { lo += 1 }
            while hi < samples.count && samples[hi].t <= samples[i].t + seconds / 2 { hi += 1 }
            let n = Double(hi - lo)
            return ((sx[hi] - sx[lo]) / n, (sy[hi] - sy[lo]) / n, (sz[hi] - sz[lo]) / n)
        }
    }

    /// Axes that are zero in every sample (y and z of a magnitude-only file).
    public static func zeroAxes(_ samples: ArraySlice<AccelSample>) -> (x: Bool, y: Bool, z: Bool) {
        var x = true, y = true, z = true
        for s in samples {
            x = x && s.x == 0
            y = y && s.y == 0
            z = z && s.z == 0
        }
        return (x, y, z)
    }

    /// `seconds` of a still device held like `samples` on average, with 3 mg of noise on every axis
    /// the recording uses; an axis that is zero throughout (a magnitude-only file's y and z) stays
    /// zero, so |a| input stays |a| input.
    public static func still(like samples: ArraySlice<AccelSample>, from start: Double, seconds: Double, rate: Double) -> [AccelSample] {
        var mx = 0.0, my = 0.0, mz = 0.0
        for s in samples {
            mx += s.x
            my += s.y
            mz += s.z
        }
        let n = Double(max(samples.count, 1))
        let zero = zeroAxes(samples)
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func noise() -> Double {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return (Double(state >> 11) / Double(1 << 53) * 2 - 1) * 0.003
        }
        return (0..<Int(seconds * rate)).map { i in
            AccelSample(t: start + Double(i) / rate, x: zero.x ? 0 : mx / n + noise(),
                        y: zero.y ? 0 : my / n + noise(), z: zero.z ? 0 : mz / n + noise())
        }
    }

    /// Mean sampling rate of a recording.
    public static func rate(_ samples: [AccelSample]) -> Double {
        Double(samples.count) / max((samples.last?.t ?? 1) - (samples.first?.t ?? 0), 1)
    }

    /// Up to four `size`-step bouts of the walk, each with 15 s of a still device before and after.
    /// A bout is `size` native step periods of movement centred at 1/5 .. 4/5 of the walk's moving
    /// time, kept only where the device moves throughout (no pause inside), so it holds `size`
    /// true steps on average.
    public static func bouts(_ samples: [AccelSample], truth: Int, size: Int) -> [[AccelSample]] {
        let rate = rate(samples)
        return boutCuts(samples, truth: truth, size: size).compactMap { cut in
            guard let t0 = cut.first?.t, let t1 = cut.last?.t else { return nil }
            let before = still(like: cut[...], from: t0 - 15, seconds: 15, rate: rate)
            let after = still(like: cut[...], from: t1 + 1 / rate, seconds: 15, rate: rate)
            return before + cut + after
        }
    }

    /// The up to four `size`-step cuts of `bouts`, without the still device around them (the k-th
    /// element is the bout at k/5 of the moving time among those kept).
    public static func boutCuts(_ samples: [AccelSample], truth: Int, size: Int) -> [[AccelSample]] {
        let motion = movement(samples)
        guard size > 0, truth >= 4 * size, let cadence = motion.cadence(truth: truth) else { return [] }
        var result: [[AccelSample]] = []
        for k in 1...4 {
            guard let centre = motion.time(atMovingFraction: Double(k) / 5) else { continue }
            let period = localStepPeriod(samples, around: centre, nativePeriod: 60 / cadence, steps: size) ?? 60 / cadence
            let duration = Double(size) * period
            let from = centre - duration / 2, to = centre + duration / 2
            guard motion.movesThroughout(from: from, to: to) else { continue }
            let cut = samples.filter { $0.t >= from && $0.t < to }
            guard !cut.isEmpty else { continue }
            result.append(cut)
        }
        return result
    }

    /// A bout that follows daily life: `dailySeconds` of a real non-walking recording (or of a still
    /// device where the device has none), the bout, 15 s of a still device.
    public struct BoutAfterDailyLife: Sendable {
        /// The padding, the bout and the still tail.
        public var samples: [AccelSample]
        /// The same timeline without the bout: the padding then the still tail (its own false steps).
        public var paddingOnly: [AccelSample]
        /// Time of the bout's first sample: steps from here on are the bout's.
        public var boutStart: Double
        /// Name of the recording the padding came from ("still" for a synthetic still device).
        public var paddingName: String
    }

    /// Seconds of daily life before each bout: a rule that reads the last minute sees a whole minute.
    public static let dailySeconds = 60.0
    /// Seconds over which the padding's end is brought to the bout's level (see `boutsAfterDailyLife`).
    public static let seamSeconds = 3.0

    /// The cuts of `bouts`, each after `dailySeconds` of daily life. The k-th bout takes its padding
    /// from `daily[(k - 1) % daily.count]` (named recordings of the same device and norm, no steps in
    /// them), the minute starting at k/5 of the spare time of that recording, so the four bouts of a
    /// walk follow different stretches. Its timestamps are shifted to end one sample before the bout;
    /// over its last `seamSeconds` each axis ramps linearly to the bout's mean over its first second,
    /// so |a| has no step at the seam (a wrist lifts from the desk in about that time) and an axis that
    /// is zero in both (a magnitude-only file's y and z) stays zero. With no such recording the padding
    /// is a still device (`still`).
    public static func boutsAfterDailyLife(_ samples: [AccelSample], truth: Int, size: Int,
                                           daily: [(name: String, samples: [AccelSample])]) -> [BoutAfterDailyLife] {
        let rate = rate(samples)
        let usable = daily.filter { ($0.samples.last?.t ?? 0) - ($0.samples.first?.t ?? 0) >= dailySeconds }
        return boutCuts(samples, truth: truth, size: size).enumerated().compactMap { k, cut in
            guard let t0 = cut.first?.t, let t1 = cut.last?.t else { return nil }
            var padding: [AccelSample]
            var name = "still"
            if usable.isEmpty {
                padding = still(like: cut[...], from: t0 - dailySeconds, seconds: dailySeconds, rate: rate)
            } else {
                let source = usable[k % usable.count]
                name = source.name
                guard let first = source.samples.first?.t, let last = source.samples.last?.t else { return nil }
                let start = first + (last - first - dailySeconds) * Double(k + 1) / 5
                let slice = source.samples.filter { $0.t >= start && $0.t < start + dailySeconds }
                guard let end = slice.last?.t else { return nil }
                let shift = t0 - 1 / GaitSegments.rate(slice) - end
                let head = cut.prefix { $0.t < t0 + 1 }
                let tail = slice.filter { $0.t > end - seamSeconds }
                func mean(_ part: [AccelSample]) -> (x: Double, y: Double, z: Double) {
                    let n = Double(max(part.count, 1))
                    return (part.reduce(0) { $0 + $1.x } / n, part.reduce(0) { $0 + $1.y } / n, part.reduce(0) { $0 + $1.z } / n)
                }
                let to = mean(Array(head)), from = mean(tail.filter { $0.t > end - 1 })
                padding = slice.map { s in
                    let w = min(max((s.t - (end - seamSeconds)) / seamSeconds, 0), 1)
                    return AccelSample(t: s.t + shift, x: s.x + w * (to.x - from.x), y: s.y + w * (to.y - from.y),
                                       z: s.z + w * (to.z - from.z))
                }
            }
            let after = still(like: cut[...], from: t1 + 1 / rate, seconds: 15, rate: rate)
            let quietAfter = still(like: cut[...], from: t0, seconds: t1 - t0 + 15, rate: rate)
            return BoutAfterDailyLife(samples: padding + cut + after, paddingOnly: padding + quietAfter,
                                      boutStart: t0, paddingName: name)
        }
    }

    /// The step period around `centre`: half the stride period (the lag of the highest
    /// autocorrelation of |a| between 1.5 and 2.5 native step periods, interpolated) over
    /// `steps` + 4 native periods. A walk is faster in its middle than over the whole file
    /// (starts, stops and turns are slower), so a bout cut with the native period would hold
    /// more than its `size` true steps. nil where the gait shows no stride periodicity.
    public static func localStepPeriod(_ samples: [AccelSample], around centre: Double, nativePeriod: Double, steps: Int) -> Double? {
        let half = (Double(steps) / 2 + 2) * nativePeriod
        let window = samples.filter { $0.t >= centre - half && $0.t < centre + half }
        guard window.count >= 8, let t0 = window.first?.t, let t1 = window.last?.t, t1 > t0 else { return nil }
        let rate = Double(window.count - 1) / (t1 - t0)
        let values = window.map(\.magnitude)
        let mean = values.reduce(0, +) / Double(values.count)
        let v = values.map { $0 - mean }
        let energy = v.reduce(0) { $0 + $1 * $1 }
        guard energy > 0 else { return nil }
        let low = max(Int((1.5 * nativePeriod * rate).rounded(.down)), 1)
        let high = min(Int((2.5 * nativePeriod * rate).rounded(.up)), v.count / 2)
        guard high > low + 1 else { return nil }
        func correlation(_ lag: Int) -> Double {
            var sum = 0.0
            for i in 0..<(v.count - lag) { sum += v[i] * v[i + lag] }
            return sum / Double(v.count - lag)
        }
        let r = (low - 1...high + 1).map { correlation($0) }
        // r[i] is the lag low - 1 + i; the peak must be inside low...high.
        var best = 1
        for i in 1...(high - low + 1) where r[i] > r[best] { best = i }
        guard r[best] > 0, r[best] >= r[best - 1], r[best] >= r[best + 1] else { return nil }
        let curvature = r[best - 1] - 2 * r[best] + r[best + 1]
        let offset = curvature < 0 ? 0.5 * (r[best - 1] - r[best + 1]) / curvature : 0
        let stride = (Double(low - 1 + best) + offset) / rate
        return stride / 2
    }

    /// A minute of the walk around the middle of its moving time, whole and with a 2 s sensor
    /// hole (no samples) starting at `holeStart`.
    public struct Hole: Equatable, Sendable {
        public var whole: [AccelSample]
        public var holed: [AccelSample]
        public var holeStart: Double
        public static let seconds = 2.0
    }

    public static func hole(_ samples: [AccelSample], truth: Int) -> Hole? {
        guard truth >= 60, let middle = movement(samples).time(atMovingFraction: 0.5) else { return nil }
        let whole = samples.filter { $0.t >= middle - 30 && $0.t < middle + 30 }
        let holed = whole.filter { $0.t < middle || $0.t >= middle + Hole.seconds }
        return Hole(whole: whole, holed: holed, holeStart: middle)
    }
}
