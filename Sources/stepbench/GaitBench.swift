import MotionCore
import StepdModel
import ToolSupport

/// Bouts, tempo and holes from segments of the development walks (part of `stepbench accuracy`).
///
/// The step positions of a walk are the engine's own over the whole file (its count is scored
/// against the truth above), so a segment's expected count is known:
/// - bouts: 10 and 20 consecutive steps cut out of a walk (from half a step before the first to
///   half a step after the last), with 15 s of a still device before and after;
/// - tempo: each walk time-scaled to ~80 and ~150 steps/min (its cadence: the true count over the
///   span of its steps), scored against its true count;
/// - holes: 2 s of samples removed in the middle of a walk (a sensor hole: the engine restarts
///   its filters after 1 s without data): steps lost beyond the steps inside the hole.
/// Every segment runs with the walk's own configuration: under `--folds` the model of the fold
/// that held the walk out, so these figures are cross-validated too.
struct GaitBench {
    struct Walk {
        var name: String
        var samples: [AccelSample]
        var truth: Int
        var steps: [Double]
        var configuration: MotionConfiguration
    }

    static func still(like samples: ArraySlice<AccelSample>, from start: Double, seconds: Double, rate: Double) -> [AccelSample] {
        var mx = 0.0, my = 0.0, mz = 0.0
        for s in samples {
            mx += s.x
            my += s.y
            mz += s.z
        }
        let n = Double(max(samples.count, 1))
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func noise() -> Double {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return (Double(state >> 11) / Double(1 << 53) * 2 - 1) * 0.003
        }
        return (0..<Int(seconds * rate)).map { i in
            AccelSample(t: start + Double(i) / rate, x: mx / n + noise(), y: my / n + noise(), z: mz / n + noise())
        }
    }

    /// Percent of the steps of `size`-step bouts counted (and over-counted steps).
    static func bouts(_ walks: [Walk], size: Int) -> (counted: Double, over: Int, bouts: Int) {
        var expected = 0, counted = 0, over = 0, bouts = 0
        for walk in walks where walk.steps.count >= 4 * size {
            let rate = Double(walk.samples.count) / max((walk.samples.last?.t ?? 1) - (walk.samples.first?.t ?? 0), 1)
            for k in 1...4 {
                let first = walk.steps.count * k / 5 - size / 2
                let a = walk.steps[first], b = walk.steps[first + size - 1]
                let half = (b - a) / Double(size - 1) / 2
                // Only bouts inside steady walking (no pause inside the cut).
                guard b - a < Double(size - 1) * 1.2 else { continue }
                let cut = walk.samples.filter { $0.t >= a - half && $0.t < b + half }
                guard let t0 = cut.first?.t, let t1 = cut.last?.t else { continue }
                let before = still(like: cut[...], from: t0 - 15, seconds: 15, rate: rate)
                let after = still(like: cut[...], from: t1 + 1 / rate, seconds: 15, rate: rate)
                let n = RecordingAnalysis.run(before + cut + after, configuration: walk.configuration).steps
                expected += size
                counted += min(n, size)
                over += max(n - size, 0)
                bouts += 1
            }
        }
        return (expected == 0 ? 0 : 100 * Double(counted) / Double(expected), over, bouts)
    }

    /// MAPE of the walks time-scaled to `target` steps/min (from their own median step interval).
    static func tempo(_ walks: [Walk], target: Double, details: Bool) -> (mape: Double, worst: Double, worstName: String, files: Int) {
        var errors: [Double] = []
        var worstName = ""
        for walk in walks where walk.steps.count >= 20 && walk.truth > 0 {
            // The walk's own cadence: its true count over the time the engine saw it walking.
            guard let first = walk.steps.first, let last = walk.steps.last, last > first else { continue }
            let cadence = 60 * Double(walk.truth) / (last - first)
            let scale = cadence / target
            let scaled = walk.samples.map { AccelSample(t: $0.t * scale, x: $0.x, y: $0.y, z: $0.z) }
            let n = RecordingAnalysis.run(scaled, configuration: walk.configuration).steps
            let error = abs(Double(n - walk.truth)) / Double(walk.truth)
            if details && error > 0.1 {
                print("  at ~\(Int(target))/min: \(walk.name) (x\(fixedDecimal(scale, 2))) \(n) of \(walk.truth)")
            }
            if error > (errors.max() ?? -1) { worstName = walk.name }
            errors.append(error)
        }
        guard !errors.isEmpty else { return (0, 0, "", 0) }
        return (100 * errors.reduce(0, +) / Double(errors.count), 100 * (errors.max() ?? 0), worstName, errors.count)
    }

    /// Steps lost beyond those inside a 2 s hole in the middle of each walk (mean per hole).
    static func holes(_ walks: [Walk]) -> (extraLoss: Double, holes: Int) {
        var extra = 0, holes = 0
        for walk in walks where walk.steps.count >= 60 {
            let middle = walk.steps[walk.steps.count / 2]
            let from = middle - 30, to = middle + 30
            let segment = walk.samples.filter { $0.t >= from && $0.t < to }
            let holed = segment.filter { $0.t < middle || $0.t >= middle + 2 }
            let whole = RecordingAnalysis.run(segment, configuration: walk.configuration).steps
            let inside = walk.steps.filter { $0 >= middle && $0 < middle + 2 }.count
            extra += max(whole - inside - RecordingAnalysis.run(holed, configuration: walk.configuration).steps, 0)
            holes += 1
        }
        return (holes == 0 ? 0 : Double(extra) / Double(holes), holes)
    }

    static func printTable(_ walks: [Walk], details: Bool) {
        guard !walks.isEmpty else { return }
        print("")
        print("bouts, tempo and holes from segments of the walking files (see GaitBench.swift)")
        for size in [10, 20] {
            let b = bouts(walks, size: size)
            print(column("\(size)-step bouts: steps counted %", 40) + column(fixedDecimal(b.counted, 1), 8)
                + "(\(b.bouts) bouts, \(b.over) steps over)")
        }
        for target in [80.0, 150.0, 180.0] {
            let t = tempo(walks, target: target, details: details)
            print(column("walks at ~\(Int(target)) steps/min: MAPE %", 40) + column(fixedDecimal(t.mape, 2), 8)
                + "(worst \(fixedDecimal(t.worst, 1)) % \(t.worstName), \(t.files) files)")
        }
        let h = holes(walks)
        print(column("2 s hole: steps lost beyond those inside", 40) + column(fixedDecimal(h.extraLoss, 2), 8) + "(\(h.holes) holes)")
    }
}
