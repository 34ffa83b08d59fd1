/// Arm work whose |a| peaks lie along the arm's own swing: in a walk the footfalls jolt the body
/// along gravity at every step whatever the arm's swing is doing, while the peaks of combing or
/// clapping are the arm's own strokes stopped or reversed, so the acceleration at each peak points
/// along the way the hand moves across gravity.
///
/// Why: the swing is read as the principal axis of the window's movement across gravity (the
/// acceleration beyond the window's mean, less its part along gravity); at each step candidate's
/// |a| maximum (the same samples `UpwardPeaks` reads) the acceleration beyond gravity is split
/// into its cosine with that axis (unsigned: a stroke ends both ways) and its cosine with gravity.
/// The reading is the first less the second, averaged over the window's peaks: about -0.4 in a
/// walk's window (a pocket, a hand, a wrist), +1 when the peaks are the hand's strokes across
/// gravity. Both are cosines between vectors of the same frame, so the watch's mounting does not
/// matter; the exponential mean over windows with enough peaks (as the other arm-work means)
/// decides: while it is above `ceiling`, a chain waits and is credited back whole once the peaks
/// turn upright and it still keeps its rhythm.
struct SwingAlignedPeaks: Sendable {
    static let span = WindowFeatures.windowLength
    /// Windows with peaks the mean needs before it judges: three, not the ten of the other
    /// arm-work means, because claps confirm 3-9 windows into a bout (the real walks' means formed
    /// over three windows reach 0.714, over eight 0.511).
    static let minWindows = 3
    /// The mean above which the peaks are the arm's own strokes: 0.19 above every real walk's
    /// mean formed over `minWindows` (docs/motion.md, "Claps along the arm's swing (gate v2.18-W)").
    static let ceiling = 0.9

    private(set) var mean = RecentMean()
    var alignment: Double? { mean.value }

    mutating func reset() {
        mean.clear()
    }

    /// The window's mean, over its peaks, of |cos(peak acceleration, swing axis)| less
    /// cos(peak acceleration, gravity); nil without enough samples, peaks, gravity or movement
    /// across gravity. `gravity`: the samples' mean over the last `span` (`SampleRing.mean(of:)`).
    static func windowAlignment(samples: SampleRing, gravity: (x: Double, y: Double, z: Double), peaks: UpwardPeaks,
                                newest: Double) -> Double? {
        guard samples.count >= span else { return nil }
        let (gx, gy, gz) = gravity
        let norm = (gx * gx + gy * gy + gz * gz).squareRoot()
        guard norm > 0.3 else { return nil }
        let ux = gx / norm, uy = gy / norm, uz = gz / norm
        // Covariance of the movement across gravity.
        var cxx = 0.0, cyy = 0.0, czz = 0.0, cxy = 0.0, cxz = 0.0, cyz = 0.0
        for back in 0..<span {
            let s = samples.sample(back)
            let dx = s.x - gx, dy = s.y - gy, dz = s.z - gz
            let along = dx * ux + dy * uy + dz * uz
            let hx = dx - along * ux, hy = dy - along * uy, hz = dz - along * uz
            cxx += hx * hx; cyy += hy * hy; czz += hz * hz
            cxy += hx * hy; cxz += hx * hz; cyz += hy * hz
        }
        guard cxx + cyy + czz > 0 else { return nil }
        // Principal axis by power iteration, from the axis with the largest variance.
        var (vx, vy, vz) = cxx >= cyy && cxx >= czz ? (1.0, 0.0, 0.0) : (cyy >= czz ? (0.0, 1.0, 0.0) : (0.0, 0.0, 1.0))
        for _ in 0..<24 {
            let nx = cxx * vx + cxy * vy + cxz * vz
            let ny = cxy * vx + cyy * vy + cyz * vz
            let nz = cxz * vx + cyz * vy + czz * vz
            let length = (nx * nx + ny * ny + nz * nz).squareRoot()
            guard length > 0 else { return nil }
            vx = nx / length; vy = ny / length; vz = nz / length
        }
        var sum = 0.0
        var used = 0
        peaks.forEachPeak(samples: samples, newest: newest) { back in
            let peak = samples.sample(back)
            let dx = peak.x - gx, dy = peak.y - gy, dz = peak.z - gz
            let size = (dx * dx + dy * dy + dz * dz).squareRoot()
            guard size > 0 else { return }
            sum += (abs(dx * vx + dy * vy + dz * vz) - (dx * ux + dy * uy + dz * uz)) / size
            used += 1
        }
        return used >= UpwardPeaks.minPeaks ? sum / Double(used) : nil
    }

    /// Takes one window (`threeAxis` false: a magnitude-only window, which clears the mean);
    /// `gravity`: the samples' mean over the last `span`, nil before that many.
    mutating func observe(threeAxis: Bool, samples: SampleRing, gravity: (x: Double, y: Double, z: Double)?,
                          peaks: UpwardPeaks, newest: Double) {
        guard threeAxis else {
            mean.clear()
            return
        }
        guard let gravity, let value = Self.windowAlignment(samples: samples, gravity: gravity, peaks: peaks, newest: newest) else { return }
        mean.add(value)
    }

    /// Whether a chain must wait: the recent peaks lie along the arm's swing.
    var holdsBack: Bool {
        guard let alignment = mean.formed(after: Self.minWindows) else { return false }
        return alignment > Self.ceiling
    }
}
