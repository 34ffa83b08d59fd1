/// Arm work that circles across gravity: scrubbing, wiping or stirring moves the hand round a loop
/// that |a| barely sees, while a walk's movement goes back and forth and bounces along gravity.
///
/// Why: the acceleration of a hand moving round a circle turns with it, so over a cycle the cross
/// products of consecutive movement vectors (the acceleration beyond the window's mean, gravity)
/// all point the same way and their sum is as long as the sum of their lengths (rotation 1); a
/// movement back and forth along a line, or a figure eight, sums to about 0. Real walks do trace
/// loops (the body's fore-aft and vertical accelerations are out of phase at every step, the arm
/// turns as it swings): the ~10 s mean reaches 0.73-0.76 (p95) and 0.77-0.85 (p99) in the wrist
/// and phone walks' stepping windows, so rotation alone does not separate them. But a walk's loops
/// are upright, in the plane of the bounce, so |a| sees them and the movement across gravity
/// stays about the |a| movement (`TurningArmWork`'s index, log10 of their ratio: p95 0.11-0.31 in
/// the same windows), while circles on a plate held flat or tilted move mostly across gravity
/// (index 0.45 median in the synthetic dishes). The two together: a mean rotation above
/// `minRotation` with a mean index above `minTurning` occurs in 1 of the 13,444 stepping windows of
/// the real walks (Bangle wrist, Oxford phones, ST clips; that one inside an Oxford run; where a
/// chain waits to be confirmed the closest is 0.07 below a threshold) and in 91 % of the synthetic
/// dishes' (docs/motion.md, "Circles across gravity (gate v2.16-C)"). Both are rotation invariant
/// (cross products and norms in the sensor's own frame). While the mean says so, a chain waits and
/// is credited back whole once the movement stops circling and it still keeps its rhythm; a run
/// already credited goes on, and so does a chain within `StepGate.recentSeconds` of a walk (the
/// hook in `StepGate.confirm`, as for `TurningArmWork`). Magnitude-only input carries no direction
/// and clears the mean.
struct CirclingArmWork: Sendable {
    static let span = WindowFeatures.windowLength
    /// Windows the mean needs before it judges (as `TurningArmWork.minWindows`).
    static let minWindows = 10
    /// The mean rotation above which the movement circles: the real walks' stepping windows reach
    /// it (p99 0.77-0.85) only with an upright loop (index below `minTurning`). 0.45-0.6 give the
    /// same real counts; 0.6 leaves half as many again of the synthetic dishes.
    static let minRotation = 0.55
    /// The mean `TurningArmWork` index (log10 of the movement across gravity over the |a|
    /// movement) above which the circle lies across gravity: 0.3 keeps 0.07 more distance to the
    /// Bangle wrist walks' closest stepping window but leaves the steep-plate dishes of seeds 2 and
    /// 3 (781 and 838 instead of 233 and 260 false steps per hour); 0.15-0.25 give the same real counts.
    static let minTurning = 0.25

    /// The recent mean rotation, over the three-axis windows since it was cleared (a
    /// magnitude-only window or a gap clears it).
    private(set) var mean = RecentMean()
    /// The recent mean rotation; nil before a three-axis window, after a magnitude-only window and
    /// after a gap.
    var rotation: Double? { mean.value }

    mutating func reset() {
        mean.clear()
    }

    /// The last window's rotation: |sum of m(i) x m(i+1)| over the sum of their lengths, m the
    /// movement (each sample averaged with its neighbours, so quantisation and noise at 25 Hz do
    /// not add crossings of their own) less the window's mean (`mean`, `SampleRing.mean(of: span)`);
    /// nil without a full window or any movement.
    static func windowRotation(samples: SampleRing, mean: (x: Double, y: Double, z: Double)) -> Double? {
        guard samples.count >= Self.span else { return nil }
        let (gx, gy, gz) = mean
        var sumX = 0.0, sumY = 0.0, sumZ = 0.0
        var lengths = 0.0
        // Oldest to newest, each sample with its two neighbours inside the window (each read once),
        // two movement vectors at a time (one SIMD lane each: the divisions and square roots of two
        // in one instruction); each lane does the scalar expressions' IEEE operations in their order
        // and the sums take the lanes in sample order, so the result is the same bit for bit.
        var a = samples.sample(Self.span - 1), b = samples.sample(Self.span - 2)
        var previous: (x: Double, y: Double, z: Double)?
        func add(_ cx: Double, _ cy: Double, _ cz: Double, _ length: Double) {
            sumX += cx
            sumY += cy
            sumZ += cz
            lengths += length
        }
        /// One cross product p x m outside the pairs (the first pair's own, and an odd last one).
        func addCross(_ p: (x: Double, y: Double, z: Double), _ m: (x: Double, y: Double, z: Double)) {
            let cx = p.y * m.z - p.z * m.y, cy = p.z * m.x - p.x * m.z, cz = p.x * m.y - p.y * m.x
            add(cx, cy, cz, (cx * cx + cy * cy + cz * cz).squareRoot())
        }
        var back = Self.span - 2
        while back >= 2 {
            let c = samples.sample(back - 1), d = samples.sample(back - 2)
            // The movement at the sample after `a` (lane 0) and the one after that (lane 1).
            let mx = (SIMD2(a.x, b.x) + SIMD2(b.x, c.x) + SIMD2(c.x, d.x)) / 3 - gx
            let my = (SIMD2(a.y, b.y) + SIMD2(b.y, c.y) + SIMD2(c.y, d.y)) / 3 - gy
            let mz = (SIMD2(a.z, b.z) + SIMD2(b.z, c.z) + SIMD2(c.z, d.z)) / 3 - gz
            a = c
            b = d
            back -= 2
            if let p = previous {
                let px = SIMD2(p.x, mx[0]), py = SIMD2(p.y, my[0]), pz = SIMD2(p.z, mz[0])
                let cx = py * mz - pz * my, cy = pz * mx - px * mz, cz = px * my - py * mx
                let length = (cx * cx + cy * cy + cz * cz).squareRoot()
                add(cx[0], cy[0], cz[0], length[0])
                add(cx[1], cy[1], cz[1], length[1])
            } else {
                addCross((mx[0], my[0], mz[0]), (mx[1], my[1], mz[1]))
            }
            previous = (mx[1], my[1], mz[1])
        }
        if back >= 1, let p = previous {
            let c = samples.sample(back - 1)
            addCross(p, ((a.x + b.x + c.x) / 3 - gx, (a.y + b.y + c.y) / 3 - gy, (a.z + b.z + c.z) / 3 - gz))
        }
        guard lengths > 0 else { return nil }
        return (sumX * sumX + sumY * sumY + sumZ * sumZ).squareRoot() / lengths
    }

    /// Takes one window (`threeAxis` false: a magnitude-only window, which clears the mean);
    /// `gravity`: the samples' mean over the last `span`, nil before that many.
    mutating func observe(threeAxis: Bool, samples: SampleRing, gravity: (x: Double, y: Double, z: Double)?) {
        guard threeAxis else {
            mean.clear()
            return
        }
        guard let gravity, let value = Self.windowRotation(samples: samples, mean: gravity) else { return }
        mean.add(value)
    }

    /// Whether a chain must wait: the recent movement circles, mostly across gravity (`turning`:
    /// the gate's `TurningArmWork` mean, formed over the same windows).
    func holdsBack(turning: TurningArmWork) -> Bool {
        guard let rotation = mean.formed(after: Self.minWindows),
              let index = turning.mean.formed(after: TurningArmWork.minWindows) else { return false }
        return rotation > Self.minRotation && index > Self.minTurning
    }
}
