import Glibc
import StepdModel

/// Three-axis wrist recordings of daily-life activities synthesised from kinematics, for
/// `stepbench daily-life`: a proxy for the held-out daily-life recordings, which the development
/// set barely covers in three axes. Deliberately not the trainer's generator (its hard negatives
/// rotate a gravity vector periodically and add a push along one direction): here each activity
/// is a trajectory of the forearm (elevation above the horizontal, heading, roll about its own
/// axis) and of the elbow, the watch sits on the wrist at the forearm's far end, and the sensor
/// reads the specific force there (the hand's linear acceleration plus 1 g upwards, tangential
/// and centripetal parts included, since the wrist position follows the forearm's rotation),
/// in its own frame, mounted in a random orientation. Then it samples as a real accelerometer
/// does: a boxcar over each output period (the decimation filter), white noise, stamp jitter,
/// and a converter of a few bits clipped at full scale (among them the 32 Hz, 6-bit, +-1.5 g
/// watch that some public wrist daily-life sets were recorded with).
///
/// Every tempo, amplitude, posture, pause and sensor is drawn per instance from a `SplitMix64`
/// seeded by the caller, so an instance is reproducible from its seed.
public enum DailyActivity: String, CaseIterable, Sendable {
    case brushingTeeth = "brushing teeth"
    case combingHair = "combing hair"
    case eating
    case drinking
    case washingDishes = "washing dishes"
    case typing = "typing, mouse"
    case clapping
    case gesturing = "gesturing"
    case still = "still wrist"
    /// A positive control from the same kinematics: a walk with the arm hanging and swinging once
    /// per stride, the body bouncing once per step. Not daily life; its true steps are known.
    case walking = "walking (control)"

    /// Whether its steps are false steps (every activity but the control walk).
    public var isDailyLife: Bool { self != .walking }
    /// Whether it counts as a quiet hour (issue 10: <= 5 false steps per hour) rather than
    /// arm-busy daily life (<= 60).
    public var isQuiet: Bool { self == .still }
}

/// The norm a magnitude-only watch logs instead of its three axes.
public enum MagnitudeNorm: String, Sendable, Equatable {
    /// sqrt(x^2 + y^2 + z^2): 1 g at rest in any posture.
    case l2
    /// |x| + |y| + |z|: cheaper on a watch's microcontroller; 1-1.73 g at rest, depending on the posture.
    case l1
}

/// How the synthetic watch samples: rate, converter and noise.
public struct WristSensor: Sendable, Equatable {
    public var rate: Double
    /// Converter bits over +-`range` g.
    public var bits: Int
    public var range: Double
    /// White noise per axis (g, standard deviation).
    public var noise: Double
    /// Stamp jitter (periods, standard deviation).
    public var jitter: Double
    /// A magnitude-only watch (like the `rieck-*` Sensor Watch files) logs only this norm of its
    /// three converted axes, times `gain`, in x, with y = z = 0; nil: the three axes.
    public var magnitude: MagnitudeNorm?
    /// The magnitude watch's scale error (the Sensor Watch reads about 1.3 g at rest with its L2
    /// norm, walks and daily life alike).
    public var gain: Double

    public init(rate: Double, bits: Int, range: Double, noise: Double, jitter: Double, magnitude: MagnitudeNorm? = nil, gain: Double = 1) {
        self.rate = rate
        self.bits = bits
        self.range = range
        self.noise = noise
        self.jitter = jitter
        self.magnitude = magnitude
        self.gain = gain
    }

    /// A magnitude-only watch like the Sensor Watch of the `rieck-*` files (data/README.md):
    /// 12.5 or 25 Hz, 14 bits over +-4 g per axis, the L2 or L1 norm, a gain of 1.2-1.4 (the
    /// rieck L2 files read 1.22-1.38 g at the desk), 3-10 mg of noise per axis.
    public static func magnitudeWatch(_ random: inout SplitMix64) -> WristSensor {
        WristSensor(rate: random.pick([12.5, 25]), bits: 14, range: 4, noise: Synth.uniform(0.003, 0.01, &random),
                    jitter: Synth.uniform(0, 0.02, &random), magnitude: random.pick([MagnitudeNorm.l2, .l1]),
                    gain: Synth.uniform(1.2, 1.4, &random))
    }

    /// A coarse 32 Hz, 6-bit, +-1.5 g watch, as some public wrist daily-life sets were recorded with.
    public static let coarseWatch = WristSensor(rate: 32, bits: 6, range: 1.5, noise: 0.005, jitter: 0.02)

    /// A third of the instances are the coarse watch; the rest 12.5-100 Hz, 8-12 bits over
    /// +-2-8 g, 3-20 mg of noise.
    static func draw(_ random: inout SplitMix64) -> WristSensor {
        if random.below(3) == 0 {
            var watch = coarseWatch
            watch.noise = Synth.uniform(0.003, 0.01, &random)
            return watch
        }
        return WristSensor(rate: random.pick([12.5, 25, 50, 100]), bits: random.pick([8, 10, 12]), range: random.pick([2.0, 4.0, 8.0]),
                           noise: Synth.uniform(0.003, 0.02, &random), jitter: Synth.uniform(0, 0.1, &random))
    }

    /// What a magnitude-only watch logs for its three converted axes (its norm times its gain);
    /// nil for a three-axis sensor, which logs the axes.
    public func loggedMagnitude(_ x: Double, _ y: Double, _ z: Double) -> Double? {
        switch magnitude {
        case nil: nil
        case .l2: gain * (x * x + y * y + z * z).squareRoot()
        case .l1: gain * (abs(x) + abs(y) + abs(z))
        }
    }

    public var label: String {
        let rateText = "\(DecimalText.fixed(rate, decimals: rate == rate.rounded() ? 0 : 1) ?? "?") Hz"
        if let magnitude { return rateText + " |a| \(magnitude.rawValue) x\(DecimalText.fixed(gain, decimals: 2) ?? "?")" }
        return rateText + " \(bits) bit +-\(DecimalText.fixed(range, decimals: 1) ?? "?") g"
    }
}

/// One synthesised recording.
public struct DailyLifeInstance: Sendable {
    public var activity: DailyActivity
    public var sensor: WristSensor
    public var samples: [AccelSample]
    /// True steps (the control walk's; 0 for daily life).
    public var trueSteps: Int
    public var seconds: Double
}

public enum DailyLifeSynthesis {
    /// The rate (Hz) at which the kinematics are evaluated before the sensor samples them.
    static let kinematicRate = 400.0
    /// Forearm length, elbow to watch (m).
    static let forearm = 0.25

    /// One instance of `activity`, `seconds` long (120-300 s drawn when nil), from `seed`.
    /// `sensor` overrides the drawn one.
    public static func instance(_ activity: DailyActivity, seed: UInt64, seconds: Double? = nil, sensor: WristSensor? = nil) -> DailyLifeInstance {
        var random = SplitMix64(seed: seed)
        let duration = seconds ?? Synth.uniform(120, 300, &random)
        let drawn = WristSensor.draw(&random)
        let chosen = sensor ?? drawn
        let motion = ArmMotion.make(activity, duration: duration, random: &random)
        let mounting = SensorImperfection.randomRotation(&random)
        let forces = specificForce(motion, duration: duration)
        let samples = sample(forces, duration: duration, sensor: chosen, mounting: mounting, random: &random)
        return DailyLifeInstance(activity: activity, sensor: chosen, samples: samples, trueSteps: motion.steps(until: duration),
                                 seconds: duration)
    }

    /// The specific force (g) in the forearm's frame (x along the forearm towards the hand, z
    /// out of the watch face when the roll is 0), at `kinematicRate`.
    static func specificForce(_ motion: ArmMotion, duration: Double) -> [Vec3] {
        let dt = 1 / kinematicRate
        let count = Int(duration * kinematicRate) + 1
        var positions: [Vec3] = []
        var frames: [(Vec3, Vec3, Vec3)] = []
        positions.reserveCapacity(count + 2)
        frames.reserveCapacity(count)
        // One sample before and after, for the second difference.
        for i in -1...count {
            let pose = motion.pose(Double(i) * dt)
            let frame = pose.frame()
            positions.append(pose.elbow + forearm * frame.0)
            if i >= 0 && i < count { frames.append(frame) }
        }
        var out: [Vec3] = []
        out.reserveCapacity(count)
        for i in 0..<count {
            let acceleration = (positions[i + 2] - 2 * positions[i + 1] + positions[i]) * (1 / (dt * dt * 9.80665))
            let force = acceleration + Vec3(0, 0, 1)
            let (x, y, z) = frames[i]
            out.append(Vec3(x.dot(force), y.dot(force), z.dot(force)))
        }
        return out
    }

    /// The sensor's samples of `forces`: boxcar over each output period, mounting rotation,
    /// noise, converter; stamped at the nominal period with jitter.
    static func sample(_ forces: [Vec3], duration: Double, sensor: WristSensor, mounting m: [Double], random: inout SplitMix64) -> [AccelSample] {
        let period = 1 / sensor.rate
        var out: [AccelSample] = []
        out.reserveCapacity(Int(duration * sensor.rate) + 1)
        let perBin = max(1, Int((kinematicRate * period).rounded()))
        var k = 0
        while true {
            let t = Double(k) * period
            let first = Int(t * kinematicRate)
            if first + perBin > forces.count || t > duration { break }
            var sum = Vec3(0, 0, 0)
            for i in first..<(first + perBin) { sum = sum + forces[i] }
            let v = sum * (1 / Double(perBin))
            var reading = (m[0] * v.x + m[1] * v.y + m[2] * v.z, m[3] * v.x + m[4] * v.y + m[5] * v.z, m[6] * v.x + m[7] * v.y + m[8] * v.z)
            SensorImperfection.addNoise(&reading, sigma: sensor.noise, random: &random)
            let late = min(max(sensor.jitter * SensorImperfection.gaussian(&random), -0.45), 0.45) * period
            // Stamped at the middle of the period the boxcar averaged.
            let stamp = t + period / 2 + late
            let x = SensorImperfection.quantised(reading.0, bits: sensor.bits, range: sensor.range)
            let y = SensorImperfection.quantised(reading.1, bits: sensor.bits, range: sensor.range)
            let z = SensorImperfection.quantised(reading.2, bits: sensor.bits, range: sensor.range)
            // A magnitude watch converts its three axes, then logs only their norm.
            if let magnitude = sensor.loggedMagnitude(x, y, z) {
                out.append(AccelSample(t: stamp, x: magnitude, y: 0, z: 0))
            } else {
                out.append(AccelSample(t: stamp, x: x, y: y, z: z))
            }
            k += 1
        }
        return out
    }
}

/// A plain 3-vector (world: x forward, y left, z up; metres or g).
struct Vec3: Sendable, Equatable {
    var x: Double, y: Double, z: Double
    init(_ x: Double, _ y: Double, _ z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }
    static func + (a: Vec3, b: Vec3) -> Vec3 { Vec3(a.x + b.x, a.y + b.y, a.z + b.z) }
    static func - (a: Vec3, b: Vec3) -> Vec3 { Vec3(a.x - b.x, a.y - b.y, a.z - b.z) }
    static func * (a: Vec3, s: Double) -> Vec3 { Vec3(a.x * s, a.y * s, a.z * s) }
    static func * (s: Double, a: Vec3) -> Vec3 { a * s }
    func dot(_ b: Vec3) -> Double { x * b.x + y * b.y + z * b.z }
    func cross(_ b: Vec3) -> Vec3 { Vec3(y * b.z - z * b.y, z * b.x - x * b.z, x * b.y - y * b.x) }
    var norm: Double { dot(self).squareRoot() }
}

/// The forearm at one instant: its elevation above the horizontal (rad; -pi/2 hanging, +pi/2
/// pointing up), its heading (rad, about the vertical), its roll about its own axis (rad:
/// pronation, supination) and where the elbow is (m).
struct ArmPose {
    var elevation: Double
    var heading: Double
    var roll: Double
    var elbow: Vec3

    /// The forearm's frame in world coordinates: x along the forearm, y and z across it.
    func frame() -> (Vec3, Vec3, Vec3) {
        let ce = cos(elevation), se = sin(elevation), ch = cos(heading), sh = sin(heading)
        let x = Vec3(ce * ch, ce * sh, se)
        // Across the forearm, horizontal, and the third axis upwards at roll 0.
        let across = Vec3(-sh, ch, 0)
        let up = x.cross(across)
        let cr = cos(roll), sr = sin(roll)
        let y = across * cr + up * sr
        return (x, y, x.cross(y))
    }
}

/// Random helpers of the synthesis.
enum Synth {
    static func uniform(_ low: Double, _ high: Double, _ random: inout SplitMix64) -> Double {
        low + (high - low) * SensorImperfection.uniform(&random)
    }

    /// The displacement (m) of a sinusoid at `frequency` Hz whose acceleration amplitude is `g` g:
    /// amplitudes are drawn as accelerations, the quantity wrist studies report.
    static func displacement(accelerating g: Double, at frequency: Double) -> Double {
        g * 9.80665 / pow(2 * Double.pi * frequency, 2)
    }

    /// 0 -> 1 over `width` seconds from 0, smooth (raised cosine).
    static func ramp(_ x: Double, _ width: Double) -> Double {
        if x <= 0 { return 0 }
        if x >= width { return 1 }
        return 0.5 - 0.5 * cos(Double.pi * x / width)
    }
}

/// A smooth random function of time with unit RMS: a few sinusoids of random frequency in a band
/// and random phase (differentiable, so the hand's acceleration stays physical).
struct Wobble: Sendable {
    private var terms: [(amplitude: Double, omega: Double, phase: Double)] = []

    init(low: Double, high: Double, count: Int = 4, random: inout SplitMix64) {
        let amplitude = (2 / Double(count)).squareRoot()
        for _ in 0..<count {
            terms.append((amplitude, 2 * Double.pi * Synth.uniform(low, high, &random), Synth.uniform(0, 2 * Double.pi, &random)))
        }
    }

    func callAsFunction(_ t: Double) -> Double {
        var sum = 0.0
        for term in terms { sum += term.amplitude * sin(term.omega * t + term.phase) }
        return sum
    }
}

/// Periods of activity (bouts) between pauses: an envelope 0...1 with smooth edges.
struct Bouts: Sendable {
    private var starts: [Double] = []
    private var ends: [Double] = []
    private var ramps: [Double] = []

    /// Bouts of `on` seconds after pauses of `off` seconds, edges of `ramp` seconds, from a random
    /// start (the recording may begin inside a bout).
    init(duration: Double, on: ClosedRange<Double>, off: ClosedRange<Double>, ramp: ClosedRange<Double>, random: inout SplitMix64) {
        var t = -Synth.uniform(0, on.upperBound, &random)
        while t < duration + 1 {
            let length = Synth.uniform(on.lowerBound, on.upperBound, &random)
            let edge = Synth.uniform(ramp.lowerBound, ramp.upperBound, &random)
            append(start: t, end: t + length + 2 * edge, ramp: edge)
            t += length + 2 * edge + Synth.uniform(off.lowerBound, off.upperBound, &random)
        }
    }

    init() {}

    mutating func append(start: Double, end: Double, ramp: Double) {
        starts.append(start)
        ends.append(end)
        ramps.append(ramp)
    }

    /// The index of the last bout starting at or before `t`, nil before the first.
    func index(at t: Double) -> Int? {
        var lo = 0, hi = starts.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if starts[mid] <= t { lo = mid + 1 } else { hi = mid }
        }
        return lo == 0 ? nil : lo - 1
    }

    func callAsFunction(_ t: Double) -> Double {
        guard let i = index(at: t), t < ends[i] else { return 0 }
        return Synth.ramp(t - starts[i], ramps[i]) * Synth.ramp(ends[i] - t, ramps[i])
    }
}

/// Short events (keystrokes, heel strikes): the sum of Gaussian bumps of given size and width.
struct Impulses: Sendable {
    private var times: [Double] = []
    private var sizes: [Double] = []
    private var widths: [Double] = []

    mutating func append(_ t: Double, size: Double, width: Double) {
        times.append(t)
        sizes.append(size)
        widths.append(width)
    }

    func callAsFunction(_ t: Double) -> Double {
        // Times are appended in order; only the bumps within 5 widths (<= 0.5 s) matter.
        var lo = 0, hi = times.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if times[mid] < t - 0.5 { lo = mid + 1 } else { hi = mid }
        }
        var sum = 0.0
        var i = lo
        while i < times.count && times[i] <= t + 0.5 {
            let u = (t - times[i]) / widths[i]
            if abs(u) < 5 { sum += sizes[i] * exp(-0.5 * u * u) }
            i += 1
        }
        return sum
    }
}

/// A rhythm whose tempo wanders: phase(t) = 2 pi f t plus a slow wobble worth `variation` of f.
struct Rhythm: Sendable {
    var frequency: Double
    private var drift: Wobble
    private var depth: Double

    init(frequency: Double, variation: Double, random: inout SplitMix64) {
        self.frequency = frequency
        let rate = Synth.uniform(0.05, 0.2, &random)
        drift = Wobble(low: rate * 0.7, high: rate * 1.3, count: 3, random: &random)
        // A phase wobble of depth D at angular rate w shifts the frequency by about D w / 2 pi.
        depth = variation * frequency / rate
    }

    func phase(_ t: Double) -> Double { 2 * Double.pi * frequency * t + depth * drift(t) }
}

/// One instance's forearm trajectory.
struct ArmMotion: Sendable {
    let pose: @Sendable (Double) -> ArmPose
    /// Step phases for the control walk (steps are the 2 pi crossings); nil for daily life.
    let stepPhase: (@Sendable (Double) -> Double)?

    func steps(until duration: Double) -> Int {
        guard let stepPhase else { return 0 }
        return max(0, Int(floor(stepPhase(duration) / (2 * Double.pi))) - Int(floor(stepPhase(0) / (2 * Double.pi))))
    }

    // The builders below draw every parameter first, then return a pure function of time.
    // Angles in radians, lengths in metres. Elbow heights are relative to an arbitrary origin.

    static func make(_ activity: DailyActivity, duration: Double, random r: inout SplitMix64) -> ArmMotion {
        let heading = Synth.uniform(0, 2 * Double.pi, &r)
        switch activity {
        case .brushingTeeth: return brushingTeeth(duration, heading, &r)
        case .combingHair: return combingHair(duration, heading, &r)
        case .eating: return eating(duration, heading, &r)
        case .drinking: return drinking(duration, heading, &r)
        case .washingDishes: return washingDishes(duration, heading, &r)
        case .typing: return typing(duration, heading, &r)
        case .clapping: return clapping(duration, heading, &r)
        case .gesturing: return gesturing(duration, heading, &r)
        case .still: return still(duration, heading, &r)
        case .walking: return walking(duration, heading, &r)
        }
    }

    /// Forearm raised towards the mouth (35-65 degrees), 3-5 Hz strokes across the teeth
    /// (0.15-0.6 g, a few millimetres) with the wrist rolling 6-20 degrees, in bouts of 4-15 s; the side changes
    /// between bouts (roll and elevation wander), and every 30-60 s the hand drops to spit.
    static func brushingTeeth(_ duration: Double, _ heading: Double, _ r: inout SplitMix64) -> ArmMotion {
        let elevation = Synth.uniform(0.6, 1.1, &r)
        let rhythm = Rhythm(frequency: Synth.uniform(3, 5, &r), variation: 0.1, random: &r)
        let stroke = Synth.displacement(accelerating: Synth.uniform(0.15, 0.6, &r), at: rhythm.frequency)
        let rollStroke = Synth.uniform(0.1, 0.35, &r)
        let rollLag = Synth.uniform(0, Double.pi, &r)
        let bouts = Bouts(duration: duration, on: 4...15, off: 0.5...3, ramp: 0.2...0.5, random: &r)
        let side = Wobble(low: 0.02, high: 0.08, count: 3, random: &r)
        let vigour = Wobble(low: 0.1, high: 0.5, count: 3, random: &r)
        let spit = Bouts(duration: duration, on: 2...5, off: 30...60, ramp: 0.6...1.0, random: &r)
        let elbow = Vec3(0, -0.15, 0)
        return ArmMotion(pose: { t in
            let b = bouts(t) * (1 + 0.25 * vigour(t))
            let phase = rhythm.phase(t)
            let across = Vec3(-sin(heading), cos(heading), 0)
            let dip = spit(t)
            return ArmPose(elevation: elevation + 0.15 * side(t) - 1.2 * dip, heading: heading + 0.2 * side(t),
                           roll: 0.8 * side(t) + b * rollStroke * sin(phase + rollLag),
                           elbow: elbow + across * (b * stroke * sin(phase)) + Vec3(0, 0, -0.05 * dip))
        }, stepPhase: nil)
    }

    /// Arm raised (elbow up 20-30 cm, forearm 50-80 degrees up), 0.7-1.5 Hz strokes of 0.15-0.5 g
    /// at the wrist: the forearm pitches about the elbow (slow pull, quick return) for 40-80 % of
    /// the stroke while the elbow moves with it; bouts of 5-20 s, pauses of 1-4 s with the side changing.
    static func combingHair(_ duration: Double, _ heading: Double, _ r: inout SplitMix64) -> ArmMotion {
        let elevation = Synth.uniform(0.9, 1.4, &r)
        let rhythm = Rhythm(frequency: Synth.uniform(0.7, 1.5, &r), variation: 0.15, random: &r)
        let reach = Synth.displacement(accelerating: Synth.uniform(0.15, 0.5, &r), at: rhythm.frequency)
        let share = Synth.uniform(0.4, 0.8, &r)
        let pitch = share * reach / DailyLifeSynthesis.forearm
        let shift = (1 - share) * reach
        let rollStroke = Synth.uniform(0.2, 0.5, &r)
        let raise = Synth.uniform(0.2, 0.3, &r)
        let bouts = Bouts(duration: duration, on: 5...20, off: 1...4, ramp: 0.5...1.0, random: &r)
        let side = Wobble(low: 0.02, high: 0.06, count: 3, random: &r)
        let vigour = Wobble(low: 0.1, high: 0.4, count: 3, random: &r)
        return ArmMotion(pose: { t in
            let b = bouts(t)
            let a = b * (1 + 0.2 * vigour(t))
            let phase = rhythm.phase(t)
            // Slow pull, quick return: a skewed wave.
            let wave = sin(phase + 0.5 * sin(phase))
            let forward = Vec3(cos(heading), sin(heading), 0)
            return ArmPose(elevation: (elevation - 0.8) + 0.8 * b - a * pitch * wave, heading: heading + 0.5 * side(t),
                           roll: 0.6 * side(t) + a * rollStroke * wave,
                           elbow: Vec3(0, 0, raise * b) + forward * (a * shift * wave))
        }, stepPhase: nil)
    }

    /// At a table (forearm 5-25 degrees down): a hand-to-mouth lift every 3-8 s (0.5-0.9 s up,
    /// 0.2-1 s at the mouth with the wrist supinating, 0.5-0.9 s down), and between lifts cutting
    /// or scooping at 2-4 Hz (0.1-0.4 g) along the forearm, for part of the time.
    static func eating(_ duration: Double, _ heading: Double, _ r: inout SplitMix64) -> ArmMotion {
        let rest = -Synth.uniform(0.1, 0.45, &r)
        var lifts = Bouts()
        var cutting = Bouts()
        var heights: [Double] = []
        var t = Synth.uniform(0, 3, &r)
        while t < duration + 1 {
            let up = Synth.uniform(0.5, 0.9, &r)
            let hold = Synth.uniform(0.2, 1.0, &r)
            lifts.append(start: t, end: t + 2 * up + hold, ramp: up)
            heights.append(Synth.uniform(0.9, 1.4, &r))
            let gap = Synth.uniform(3, 8, &r)
            if SensorImperfection.uniform(&r) < 0.6 {
                let start = t + 2 * up + hold + Synth.uniform(0.3, 1, &r)
                cutting.append(start: start, end: start + Synth.uniform(1, 3, &r), ramp: 0.15)
            }
            t += 2 * up + hold + gap
        }
        let rhythm = Rhythm(frequency: Synth.uniform(2, 4, &r), variation: 0.15, random: &r)
        let stroke = Synth.displacement(accelerating: Synth.uniform(0.1, 0.4, &r), at: rhythm.frequency)
        let fidget = Wobble(low: 0.1, high: 0.6, count: 4, random: &r)
        let lifted = lifts
        let cuts = cutting
        let heightOf = heights
        return ArmMotion(pose: { t in
            let lift = lifted(t)
            let height = lifted.index(at: t).map { heightOf[min($0, heightOf.count - 1)] } ?? 1
            let frame = ArmPose(elevation: rest, heading: heading, roll: 0, elbow: Vec3(0, 0, 0)).frame().0
            let cut = cuts(t) * stroke * sin(rhythm.phase(t))
            return ArmPose(elevation: rest + (height - rest) * lift + 0.04 * fidget(t), heading: heading + 0.3 * lift,
                           roll: 0.1 * fidget(t) + 0.9 * lift, elbow: Vec3(0, 0, 0.05 * lift) + frame * cut)
        }, stepPhase: nil)
    }

    /// A cup lifted every 8-30 s (0.8-1.2 s up, 1.5-4 s drinking with the cup tipping further,
    /// 0.8-1.2 s down); between sips the hand rests near the cup with small movements.
    static func drinking(_ duration: Double, _ heading: Double, _ r: inout SplitMix64) -> ArmMotion {
        let rest = -Synth.uniform(0.05, 0.4, &r)
        var sips = Bouts()
        var t = Synth.uniform(0, 8, &r)
        while t < duration + 1 {
            let up = Synth.uniform(0.8, 1.2, &r)
            let hold = Synth.uniform(1.5, 4, &r)
            sips.append(start: t, end: t + 2 * up + hold, ramp: up)
            t += 2 * up + hold + Synth.uniform(8, 30, &r)
        }
        let height = Synth.uniform(0.6, 1.0, &r)
        let tilt = Synth.uniform(0.6, 1.2, &r)
        let fidget = Wobble(low: 0.05, high: 0.5, count: 4, random: &r)
        let sipping = sips
        return ArmMotion(pose: { t in
            let s = sipping(t)
            return ArmPose(elevation: rest + (height - rest) * s + 0.03 * fidget(t), heading: heading + 0.2 * s,
                           roll: tilt * s * (1 + 0.2 * s * fidget(0.5 * t)) + 0.05 * fidget(t),
                           elbow: Vec3(0.01 * fidget(1.3 * t), 0, 0.08 * s))
        }, stepPhase: nil)
    }

    /// Hands low at the sink (forearm 0-25 degrees down): scrubbing at 1-3 Hz in small circles
    /// (0.1-0.5 g) on a plate held 0-60 degrees off the horizontal, with the wrist rolling, the size and tempo wandering, in bouts of 3-12 s; between
    /// bouts a plate goes to the rack (a 15-30 cm move of the elbow, forearm raised).
    static func washingDishes(_ duration: Double, _ heading: Double, _ r: inout SplitMix64) -> ArmMotion {
        let low = -Synth.uniform(0.0, 0.45, &r)
        let rhythm = Rhythm(frequency: Synth.uniform(1, 3, &r), variation: 0.2, random: &r)
        let radius = Synth.displacement(accelerating: Synth.uniform(0.1, 0.5, &r), at: rhythm.frequency)
        // The plate is held tilted: the circles lie in a plane 0-60 degrees off the horizontal.
        let tilt = Synth.uniform(0, Double.pi / 3, &r)
        let rollStroke = Synth.uniform(0.15, 0.45, &r)
        let bouts = Bouts(duration: duration, on: 3...12, off: 1...5, ramp: 0.2...0.5, random: &r)
        let moves = Wobble(low: 0.05, high: 0.3, count: 4, random: &r)
        let vigour = Wobble(low: 0.2, high: 0.8, count: 4, random: &r)
        let reach = Synth.uniform(0.15, 0.3, &r)
        return ArmMotion(pose: { t in
            let b = bouts(t)
            let a = b * radius * (1 + 0.35 * vigour(t))
            let phase = rhythm.phase(t)
            let forward = Vec3(cos(heading), sin(heading), 0)
            let across = Vec3(-sin(heading), cos(heading), 0)
            let away = (1 - b) * reach * 0.5 * (1 + moves(t))
            let circle = forward * (a * cos(phase)) + (across * cos(tilt) + Vec3(0, 0, sin(tilt))) * (a * sin(phase))
            return ArmPose(elevation: low + (1 - b) * 0.3 * moves(0.7 * t) + 0.05 * vigour(0.3 * t), heading: heading + 0.3 * moves(t),
                           roll: 0.3 * moves(0.5 * t) + b * rollStroke * sin(phase + 1),
                           elbow: circle + across * away + Vec3(0, 0, 0.5 * away))
        }, stepPhase: nil)
    }

    /// Forearm resting on a desk: keystrokes (0.3-1 mm taps over 40-80 ms, 3-7 a second) in bouts,
    /// and mouse work (the hand sliding 1-8 cm every 0.5-3 s) between them.
    static func typing(_ duration: Double, _ heading: Double, _ r: inout SplitMix64) -> ArmMotion {
        let elevation = Synth.uniform(-0.1, 0.15, &r)
        var taps = Impulses()
        var slides = Bouts()
        var slideSizes: [Double] = []
        var t = 0.0
        while t < duration + 1 {
            let length = Synth.uniform(5, 30, &r)
            if SensorImperfection.uniform(&r) < 0.6 {
                var k = t
                while k < t + length {
                    taps.append(k, size: Synth.uniform(0.0003, 0.001, &r), width: Synth.uniform(0.02, 0.04, &r))
                    k += -log(max(SensorImperfection.uniform(&r), 1e-9)) / Synth.uniform(3, 7, &r)
                }
            } else {
                var k = t
                while k < t + length {
                    let move = Synth.uniform(0.2, 0.8, &r)
                    slides.append(start: k, end: k + move, ramp: move / 2)
                    slideSizes.append(Synth.uniform(-0.08, 0.08, &r))
                    k += move + Synth.uniform(0.5, 3, &r)
                }
            }
            t += length
        }
        let drift = Wobble(low: 0.01, high: 0.05, count: 3, random: &r)
        let tapped = taps
        let slid = slides
        let sizes = slideSizes
        // The hand's slide position: completed slides add up, the current one ramps in.
        var offsets = [0.0]
        for size in sizes { offsets.append((offsets.last ?? 0) + size) }
        let cumulative = offsets
        return ArmMotion(pose: { t in
            let across = Vec3(-sin(heading), cos(heading), 0)
            return ArmPose(elevation: elevation + 0.02 * drift(t), heading: heading + 0.05 * drift(1.7 * t), roll: 0.05 * drift(2.3 * t),
                           elbow: across * slideCurve(slid, t, cumulative, sizes) + Vec3(0, 0, tapped(t)))
        }, stepPhase: nil)
    }

    /// The hand position of mouse work: each slide moves smoothly (raised cosine) by its size.
    static func slideCurve(_ slides: Bouts, _ t: Double, _ cumulative: [Double], _ sizes: [Double]) -> Double {
        guard let i = slides.index(at: t), i < sizes.count else { return 0 }
        return cumulative[i] + sizes[i] * slides.progress(i, at: t)
    }

    /// Hands in front (forearm 5-30 degrees up), claps at 2-4 Hz in bouts of 3-10 s: the hand moves
    /// 5-12 cm across and meets the other in a soft contact of about 20 ms; between bouts the
    /// hands rest in the lap.
    static func clapping(_ duration: Double, _ heading: Double, _ r: inout SplitMix64) -> ArmMotion {
        let elevation = Synth.uniform(0.1, 0.5, &r)
        let rhythm = Rhythm(frequency: Synth.uniform(2, 4, &r), variation: 0.05, random: &r)
        let amplitude = Synth.uniform(0.05, 0.12, &r)
        let bouts = Bouts(duration: duration, on: 3...10, off: 5...20, ramp: 0.4...0.8, random: &r)
        let fidget = Wobble(low: 0.1, high: 0.5, count: 3, random: &r)
        // Contact softness: |cos| smoothed over about 20 ms at 3 Hz.
        let softness = 0.06
        return ArmMotion(pose: { t in
            let b = bouts(t)
            let c = cos(rhythm.phase(t) / 2)
            let gap = amplitude * ((c * c + softness * softness).squareRoot() - softness)
            let across = Vec3(-sin(heading), cos(heading), 0)
            return ArmPose(elevation: -0.5 + (elevation + 0.5) * b + 0.03 * fidget(t), heading: heading + 0.1 * fidget(0.5 * t),
                           roll: 1.2 * b + 0.05 * fidget(t), elbow: across * (b * gap) + Vec3(0, 0, 0.1 * b))
        }, stepPhase: nil)
    }

    /// Talking with the hands: the forearm, roll and elbow wander smoothly at 0.3-1.2 Hz over 3-8
    /// cm and 10-25 degrees in bouts of 2-10 s; between them the arm rests.
    static func gesturing(_ duration: Double, _ heading: Double, _ r: inout SplitMix64) -> ArmMotion {
        let rest = Synth.uniform(-1.3, -0.1, &r)
        let active = Synth.uniform(-0.2, 0.4, &r)
        let size = Synth.uniform(0.03, 0.08, &r)
        let swing = Synth.uniform(0.15, 0.4, &r)
        let bouts = Bouts(duration: duration, on: 2...10, off: 1...8, ramp: 0.3...0.8, random: &r)
        let e = Wobble(low: 0.3, high: 1.2, count: 5, random: &r)
        let rollWobble = Wobble(low: 0.2, high: 1.2, count: 5, random: &r)
        let px = Wobble(low: 0.3, high: 1.2, count: 5, random: &r)
        let py = Wobble(low: 0.3, high: 1.2, count: 5, random: &r)
        return ArmMotion(pose: { t in
            let b = bouts(t)
            return ArmPose(elevation: rest + (active - rest) * b + b * swing * e(t), heading: heading + b * 0.3 * px(0.6 * t),
                           roll: b * 0.7 * rollWobble(t), elbow: Vec3(b * size * px(t), b * size * py(t), b * 0.5 * size * e(0.8 * t)))
        }, stepPhase: nil)
    }

    /// A wrist at rest (on a table, in the lap or hanging): physiological tremor (8-12 Hz, 1-5 mg),
    /// breathing, and a posture shift every 30-120 s.
    static func still(_ duration: Double, _ heading: Double, _ r: inout SplitMix64) -> ArmMotion {
        let postures = (0..<Int(duration / 30) + 2).map { _ in Synth.uniform(-1.4, 0.3, &r) }
        let rolls = postures.map { _ in Synth.uniform(-1.5, 1.5, &r) }
        let shifts = Bouts(duration: duration, on: 0.5...1, off: 30...120, ramp: 0.5...1, random: &r)
        let tremorFrequency = Synth.uniform(8, 12, &r)
        // Displacement for 1-5 mg at that frequency: a = (2 pi f)^2 d.
        let tremor = Synth.uniform(0.001, 0.005, &r) * 9.80665 / pow(2 * Double.pi * tremorFrequency, 2)
        let breathing = Synth.uniform(0.2, 0.35, &r)
        return ArmMotion(pose: { t in
            // Before the first shift the first posture; during shift k the move to posture k + 1.
            var elevation = postures[0], roll = rolls[0]
            if let k = shifts.index(at: t) {
                let from = min(k, postures.count - 1), to = min(k + 1, postures.count - 1)
                let move = shifts.progress(k, at: t)
                elevation = postures[from] + (postures[to] - postures[from]) * move
                roll = rolls[from] + (rolls[to] - rolls[from]) * move
            }
            return ArmPose(elevation: elevation, heading: heading, roll: roll,
                           elbow: Vec3(tremor * sin(2 * Double.pi * tremorFrequency * t), 0,
                                       0.001 * sin(2 * Double.pi * breathing * t) + tremor * cos(2 * Double.pi * tremorFrequency * 1.07 * t)))
        }, stepPhase: nil)
    }

    /// The control walk at 90-125 steps/min: the forearm hangs (60-75 degrees down) and swings
    /// 12-25 degrees once per stride; the body (and the elbow) bounces 1.5-3 cm once per step with
    /// a heel-strike jolt, and sways sideways once per stride.
    static func walking(_ duration: Double, _ heading: Double, _ r: inout SplitMix64) -> ArmMotion {
        let hang = -Synth.uniform(1.05, 1.3, &r)
        let rhythm = Rhythm(frequency: Synth.uniform(1.5, 2.08, &r), variation: 0.05, random: &r)
        let swing = Synth.uniform(0.2, 0.45, &r)
        let bounce = Synth.uniform(0.015, 0.03, &r)
        let sway = Synth.uniform(0.01, 0.02, &r)
        let roll = Synth.uniform(-1, 1, &r)
        let jolt = Synth.uniform(0.001, 0.002, &r)
        let walk = rhythm
        return ArmMotion(pose: { t in
            let phase = walk.phase(t)
            let across = Vec3(-sin(heading), cos(heading), 0)
            // Heel strike: a short dip at each step (phase 0 mod 2 pi), on top of the smooth bounce.
            let turn = 2 * Double.pi
            let stepPhase = phase - turn * floor(phase / turn)
            let u = min(stepPhase, 2 * Double.pi - stepPhase) / (2 * Double.pi * walk.frequency * 0.03)
            return ArmPose(elevation: hang + swing * sin(phase / 2), heading: heading, roll: roll + 0.1 * sin(phase / 2),
                           elbow: Vec3(0, 0, bounce * cos(phase) - jolt * exp(-0.5 * u * u)) + across * (sway * sin(phase / 2)))
        }, stepPhase: { t in walk.phase(t) })
    }
}

extension Bouts {
    /// How far bout `i` has progressed at `t` (0 at its start, 1 at its end; smooth).
    func progress(_ i: Int, at t: Double) -> Double {
        guard i >= 0, i < starts.count else { return 0 }
        let length = ends[i] - starts[i]
        return length > 0 ? Synth.ramp(t - starts[i], length) : 1
    }
}
