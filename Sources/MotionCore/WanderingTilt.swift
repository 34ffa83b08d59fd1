/// Arm work that tilts the wrist far from its own mean direction while its quick changes turn the
/// acceleration: talking with the hands rolls and raises the forearm by tens of degrees several
/// times a second, while a walking wrist swings about a steady hanging direction and its quick
/// changes are the footfalls, along gravity.
///
/// Why: the acceleration averaged over a third of a second (`shortSpan`) is gravity plus the slow
/// part of the movement, so its angle to the window's mean (gravity) is how far the forearm is
/// tilted from where it mostly points. Its mean over the window is the wrist's wander. A walk
/// reaches a wander of 28 degrees too (a wrist swinging hard, a phone in a purse or a back pocket),
/// but then its quick changes stay along gravity (`TurningJerk`'s index, ~10 s mean, at most 0.28
/// where a chain of a real walk waits with the wander above 28 degrees), and where its quick changes
/// turn (the index above 0.33) the wrist wanders at most 26 degrees; gesturing does both at once
/// (docs/motion.md, "A wrist that wanders and turns (gate v2.19-W)"). Both are angles or ratios of
/// lengths in one frame, so the mounting does not matter. The wander's ~10 s mean (`RecentMean`)
/// is taken over the windows `TurningJerk` reads (three-axis, with step candidates), so the two
/// means describe the same seconds and a rest between bouts (the wrist still, its noise turning
/// nothing) does not pull it down. While both means are past their thresholds, a chain waits and
/// is credited back whole once either falls and the chain still keeps its rhythm; a run already
/// credited goes on, and so does a chain within `StepGate.recentSeconds` of a walk (the hook in
/// `StepGate.confirm`, as for the other arm-work waits). Magnitude-only windows carry no direction
/// and clear the mean.
struct WanderingTilt: Sendable {
    static let span = WindowFeatures.windowLength
    /// Samples in the short mean whose direction is compared with gravity (0.32 s at 25 Hz: the
    /// forearm's turns at up to ~1.5 Hz stay in it, a footfall's jolt is averaged out).
    static let shortSpan = 8
    /// Windows the mean needs before it judges (as `TurningJerk.minWindows`).
    static let minWindows = 10
    /// The mean wander (rad, 28 degrees) above which, with `minTurning`, the wrist is arm work:
    /// 2.1 degrees above the highest mean of a real walk's window where a chain waits with the
    /// `TurningJerk` index above `minTurning` (25.9 degrees).
    static let ceiling = 28.0 * Double.pi / 180
    /// The `TurningJerk` mean above which, with `ceiling`, the wrist is arm work: 0.05 above the
    /// highest mean of a real walk's window where a chain waits with the wander above `ceiling`
    /// (0.28); `TurningJerk` alone waits from 0.45.
    static let minTurning = 0.33

    /// The recent mean wander (rad) over the three-axis windows with step candidates since it was
    /// cleared (a magnitude-only window or a gap clears it).
    private(set) var mean = RecentMean()
    var wander: Double? { mean.value }

    mutating func reset() {
        mean.clear()
    }

    /// The window's mean angle (rad) between the `shortSpan` means of the acceleration and the
    /// window's mean (gravity); nil without enough samples or gravity (a free fall).
    /// `gravity`: the samples' mean over the last `span` (`SampleRing.mean(of:)`).
    static func windowWander(samples: SampleRing, gravity: (x: Double, y: Double, z: Double)) -> Double? {
        guard samples.count >= span else { return nil }
        let (gx, gy, gz) = gravity
        let norm = (gx * gx + gy * gy + gz * gz).squareRoot()
        guard norm > 0.3 else { return nil }
        var sx = 0.0, sy = 0.0, sz = 0.0
        var sum = 0.0
        var used = 0
        // The short means' angles two at a time (one SIMD lane each: the square roots and divisions
        // of two angles in one instruction), each lane the scalar expression's IEEE operations in
        // its order, and summed in sample order: the same sum bit for bit.
        var waiting: (x: Double, y: Double, z: Double)?
        // A zero-length short mean has no direction: its angle (not a number) is left out.
        func add(_ angle: Double, length: Double) {
            guard length > 0 else { return }
            sum += angle
            used += 1
        }
        for back in 0..<span {
            let s = samples.sample(back)
            sx += s.x; sy += s.y; sz += s.z
            if back >= shortSpan {
                let old = samples.sample(back - shortSpan)
                sx -= old.x; sy -= old.y; sz -= old.z
            }
            guard back >= shortSpan - 1 else { continue }
            guard let first = waiting else {
                waiting = (sx, sy, sz)
                continue
            }
            waiting = nil
            let vx = SIMD2(first.x, sx), vy = SIMD2(first.y, sy), vz = SIMD2(first.z, sz)
            let length = (vx * vx + vy * vy + vz * vz).squareRoot()
            let angle = Self.arcCosine((vx * gx + vy * gy + vz * gz) / (length * norm))
            add(angle[0], length: length[0])
            add(angle[1], length: length[1])
        }
        if let last = waiting {
            let length = (last.x * last.x + last.y * last.y + last.z * last.z).squareRoot()
            add(Self.arcCosine((last.x * gx + last.y * gy + last.z * gz) / (length * norm)), length: length)
        }
        return used > 0 ? sum / Double(used) : nil
    }

    /// acos(x) (rad) of two cosines, one per lane, each clamped to [-1, 1], within 2e-8 rad
    /// (Abramowitz and Stegun 4.4.46): libm's `acos` was 6 % of the whole bench's time at 118 calls
    /// per window, the polynomial a fifth of it, and two lanes take one pass. Each lane does the
    /// operations the scalar polynomial did before in its order (a lane whose |x| is 0 keeps the
    /// sign of its zero, which only ever multiplies or is added to a non-zero value), so the angles
    /// are the same bits. A lane that is not a number (a zero-length short mean, which the caller
    /// skips) gives any value.
    @inline(__always) static func arcCosine(_ cosine: SIMD2<Double>) -> SIMD2<Double> {
        let one = SIMD2<Double>(repeating: 1)
        let x = cosine.clamped(lowerBound: -one, upperBound: one)
        let a = x.replacing(with: -x, where: x .< 0)
        var p = SIMD2<Double>(repeating: -0.0012624911)
        p = p * a + 0.0066700901
        p = p * a - 0.0170881256
        p = p * a + 0.0308918810
        p = p * a - 0.0501743046
        p = p * a + 0.0889789874
        p = p * a - 0.2145988016
        p = p * a + 1.5707963050
        let angle = (one - a).squareRoot() * p
        return angle.replacing(with: Double.pi - angle, where: x .< 0)
    }

    /// acos(x) (rad) of a cosine, clamped to [-1, 1], within 2e-8 rad: the pair function's lane.
    @inline(__always) static func arcCosine(_ cosine: Double) -> Double { arcCosine(SIMD2(repeating: cosine))[0] }

    /// Takes one window (`threeAxis` false: a magnitude-only window, which clears the mean;
    /// `withCandidates` false: a three-axis window `TurningJerk` does not read, which leaves it);
    /// `gravity`: the samples' mean over the last `span`, nil before that many.
    mutating func observe(threeAxis: Bool, withCandidates: Bool, samples: SampleRing, gravity: (x: Double, y: Double, z: Double)?) {
        guard threeAxis else {
            mean.clear()
            return
        }
        guard withCandidates, let gravity, let value = Self.windowWander(samples: samples, gravity: gravity) else { return }
        mean.add(value)
    }

    /// Whether a chain must wait: the wrist wanders far and its quick changes turn the acceleration.
    func holdsBack(turning: TurningJerk) -> Bool {
        guard let wander = mean.formed(after: Self.minWindows),
              let jerk = turning.mean.formed(after: TurningJerk.minWindows) else { return false }
        return wander > Self.ceiling && jerk > Self.minTurning
    }
}
