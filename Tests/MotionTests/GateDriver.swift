import Glibc
@testable import MotionCore
import StepdModel

/// `count` peaks `interval` s apart from `start`: a regular chain for the gate tests.
func chain(from start: Double, count: Int, interval: Double = 0.6) -> [Double] {
    (0..<count).map { start + interval * Double($0) }
}

/// Irregular peaks (0.4, 0.4, 1.2 s apart: never a regular chain) from `start` for about
/// `seconds`: the movement that forms an arm-work rule's mean before a chain starts.
func prelude(from start: Double, seconds: Double) -> [Double] {
    var times: [Double] = []
    var t = start
    let gaps = [0.4, 0.4, 1.2]
    while t < start + seconds {
        times.append(t)
        t += gaps[times.count % 3]
    }
    return times
}

/// `count` peaks at 1.1 s (55 steps/min), every third interval 0.1 s shorter and the next 0.1 s
/// longer (a spread of about 7 %): a slow walk's steady chain.
func slowPeaks(_ count: Int) -> [Double] {
    var t = 0.5
    return (0..<count).map { k -> Double in
        defer { t += 1.1 + (k % 3 == 0 ? -0.1 : k % 3 == 1 ? 0.1 : 0) }
        return t
    }
}

/// A walk's window at a `period` s step: the band repeats at the step and, stride after stride, at the
/// stride lag; the dominant frequency is the step rate.
func gaitWindow(period: Double) -> StepGate.WindowCadence {
    var window = StepGate.WindowCadence(stepCorrelation: 0.8, stepLag: period, dominantFrequency: 1 / period)
    window.strideCorrelation = 0.8
    return window
}

/// A three-axis window whose band shows a 0.6 s cadence and the gait, with a vertical share
/// above the floor: every window-level rule passes, so only the sample-level rules judge.
func walkingThreeAxisWindow() -> StepGate.WindowCadence {
    var window = StepGate.WindowCadence(stepCorrelation: 0.8, stepLag: 0.6, dominantFrequency: 1 / 0.6)
    window.strideCorrelation = 0.8
    window.verticalShare = 0.4
    return window
}

/// Drives a step gate as `MotionEngine` does: before each peak, every window that has ended (one a
/// second from `firstWindow`, built by `window(end)`) is observed and the classifier's call on it
/// confirmed; then the peak is offered, called locomotion if `locomotion(next window's end)`.
/// `unsure` / `faint`: how sure the classifier is when the windows confirm (the engine's levels).
/// `closingWindow`: one more window after the last peak, so a chain still waiting is judged.
/// `sample`: the three-axis sample (g) at a time, fed to the gate at 25 Hz from 0 s up to each
/// window and peak as the engine feeds it (`StepGate.noteSample`); nil feeds none.
/// `magnitude`: a magnitude-only watch's |a| (g) at a time, fed the same way as the sample
/// (|a|, 0, 0), as the engine sees a `rieck-*` file; used when `sample` is nil.
/// `desk`: each window's feature vector, magnitude-only flag and locomotion for the minute of desk
/// work (`DeskMinute`), fed as the engine feeds it; nil feeds none.
/// `adopt`: the tempo switches to another band when the window ending at `at` has been observed,
/// and the gate adopts that band's chain (`StepGate.adoptChain`), as the engine does.
/// `vehicleTime`: the activity state was last automotive at this time (`StepGate.vehicleTime`, set by
/// the engine every window); nil: never.
/// `confirms`: whether the classifier calls the window ending at a time locomotion (confirms it);
/// every window by default.
/// `restWindows`: windows after the closing one (with `closingWindow`), in which a chain the desk minute
/// held may be credited at rest (`DeskBoutAtRest`, fed by `desk` as the engine feeds it).
/// `rejects`: whether the classifier rejected the window ending at a time (locomotion below the level
/// that ends a run, `RejectedWindows`), noted as the engine notes it; nil notes none.
/// Returns the steps credited.
func creditedSteps(_ peaks: [Double], firstWindow: Double, unsure: Bool = false, faint: Bool = false,
                   closingWindow: Bool = false, restWindows: Int = 0, locomotion: (Double) -> Bool = { _ in true },
                   confirms: (Double) -> Bool = { _ in true },
                   sample: ((Double) -> (x: Double, y: Double, z: Double))? = nil,
                   magnitude: ((Double) -> Double)? = nil,
                   adopt: (at: Double, chain: BandChain)? = nil,
                   desk: ((Double) -> (values: [Double], magnitudeOnly: Bool, locomotion: Double))? = nil,
                   vehicleTime: Double? = nil,
                   activity: ((Double) -> ActivityKind)? = nil,
                   rejects: ((Double) -> Bool)? = nil,
                   window: (Double) -> StepGate.WindowCadence) -> Int {
    var gate = StepGate(parameters: .fitted)
    gate.vehicleTime = vehicleTime
    var credited: [Double] = []
    var next = firstWindow
    let sample = sample ?? magnitude.map { magnitude in { (x: magnitude($0), y: 0.0, z: 0.0) } }
    var sampleIndex = 0
    func samples(until t: Double) {
        guard let sample else { return }
        while (Double(sampleIndex) + 0.5) / MotionEngine.internalRate <= t {
            let time = (Double(sampleIndex) + 0.5) / MotionEngine.internalRate
            let a = sample(time)
            gate.noteSample(x: a.x, y: a.y, z: a.z, magnitude: (a.x * a.x + a.y * a.y + a.z * a.z).squareRoot(), at: time)
            sampleIndex += 1
        }
    }
    func windowEnds(at end: Double) {
        samples(until: end)
        gate.observe(window(end), end: end)
        if let activity { gate.noteActivity(activity(end)) }
        if let adopt, adopt.at == end { gate.adoptChain(adopt.chain) }
        if let desk {
            let reading = desk(end)
            gate.deskMinute.observe(values: reading.values, magnitudeOnly: reading.magnitudeOnly, locomotion: reading.locomotion)
            gate.creditDeskBoutAtRest(resting: !MovingMagnitude.isMoving(reading.values), magnitudeOnly: reading.magnitudeOnly,
                                      end: end, steps: &credited)
        }
        if confirms(end) { gate.locomotionConfirmed(since: end - 5, unsure: unsure, faint: faint, steps: &credited) }
        if let rejects { gate.noteWindow(rejected: rejects(end), start: end - 5, end: end) }
    }
    for t in peaks {
        while next <= t {
            windowEnds(at: next)
            next += 1
        }
        samples(until: t)
        gate.advance(to: t)
        gate.offer(t, locomotion: locomotion(next), steps: &credited)
    }
    if closingWindow {
        for _ in 0...restWindows {
            windowEnds(at: next)
            next += 1
        }
    }
    return credited.count
}

/// A watch worn at a slant, for the sample-level arm-work rules' tests: gravity in the sensor's
/// frame and a direction across it.
enum SlantedWrist {
    typealias Vector = (x: Double, y: Double, z: Double)
    static let gravity = unit(0.3, -0.5, 0.81)
    static let across = unit(0, gravity.z, -gravity.y)

    private static func unit(_ x: Double, _ y: Double, _ z: Double) -> Vector {
        let n = (x * x + y * y + z * z).squareRoot()
        return (x / n, y / n, z / n)
    }

    /// The samples of the wrist under gravity with a jolt of `size` g at each of `peaks` along
    /// `direction(peak)`, centred a tenth of a second before the peak time (the band lags |a|),
    /// 60 ms to either side, and a swing of `sway` g across gravity once per 1.2 s; `rotated` turns
    /// the mounting (a cyclic exchange of the axes, two of them reversed).
    static func samples(_ peaks: [Double], size: Double = 0.3, sway: Double = 0, rotated: Bool = false,
                        along direction: @escaping (Double) -> Vector) -> (Double) -> Vector {
        { t in
            var bump = 0.0
            var along = gravity
            for peak in peaks where abs(t - (peak - 0.1)) < 0.06 {
                let u = (t - (peak - 0.1)) / 0.06
                bump += size * (1 - u * u)
                along = direction(peak)
            }
            let s = sway * sin(2 * Double.pi * t / 1.2)
            let a = (x: gravity.x + bump * along.x + s * across.x, y: gravity.y + bump * along.y + s * across.y,
                     z: gravity.z + bump * along.z + s * across.z)
            return rotated ? (-a.y, -a.z, a.x) : a
        }
    }
}

/// `span` samples at 25 Hz from `sample(t)` in a ring and `peaks` noted as the band finds them, as
/// the gate feeds `UpwardPeaks` and the rules that read its peaks; with the newest sample's time.
func peakWindow(_ sample: (Double) -> SlantedWrist.Vector, peaks: [Double], span: Int)
    -> (upward: UpwardPeaks, samples: SampleRing, newest: Double) {
    var upward = UpwardPeaks()
    var samples = SampleRing(capacity: StepGate.recentSampleCapacity)
    var newest = 0.0
    var noted = 0
    for k in 0..<span {
        let t = (Double(k) + 0.5) / MotionEngine.internalRate
        let a = sample(t)
        samples.push(x: a.x, y: a.y, z: a.z, magnitude: (a.x * a.x + a.y * a.y + a.z * a.z).squareRoot())
        newest = t
        while noted < peaks.count && peaks[noted] <= t {
            upward.notePeak(at: peaks[noted])
            noted += 1
        }
    }
    return (upward, samples, newest)
}
