/// Arm work in a slow rhythm that pushes the hand across gravity: talking with the hands, combing,
/// scrubbing a plate at 0.8-1.2 s a stroke, whose |a| peaks form a chain as regular as a walk's.
///
/// Why: a chain whose candidates come 0.78 s or more apart is, in a walk, either a slow walk (77
/// steps/min or fewer: the body and the hand move little) or a wrist walk read at one peak per stride,
/// whose arm swings as a pendulum: a pendulum's acceleration (the specific force the watch reads)
/// stays along the forearm, so the swing moves the reading across gravity only by its small departures
/// from a free swing. Hands that gesture, comb or scrub are pushed sideways by the muscles, and the
/// push is what the watch reads. The reading is the RMS of the acceleration across gravity (beyond a
/// 1 s moving mean of the three axes, gravity's direction taken from that mean sample by sample, so a
/// wrist that turns slowly is not counted), over the chain's span (up to the gate's 12 s of samples):
/// a length in the sensor's own frame, rotation invariant. At the 147 confirmations of the three-axis
/// recordings of the development set whose chain's mean interval is at least `minInterval` (the Bangle
/// wrist walks, the Oxford phones; as recorded, time-scaled to ~80 / ~150 / ~180, the 10 / 20-step
/// bouts, after daily life and around the 2 s hole) it stays at or below 0.385 g (median 0.14), the ST
/// walking and running clips' at or below 0.36 and the synthetic control walk's at or below 0.10, while
/// the synthetic gesturing confirms at 0.21-0.68 g (median 0.48, 70 % above `ceiling`), the scrubbing at
/// 0.34-0.54, the combing at 0.31-0.48 (docs/motion.md, "A slow rhythm across gravity"). While it is
/// above `ceiling`, a chain waits and is credited back whole once the movement falls or the rhythm
/// quickens and it still keeps its rhythm; a run already credited goes on, and so does a chain
/// within `StepGate.recentSeconds` of a walk (the hook in `StepGate.confirm`, as for the other
/// arm-work waits). Magnitude-only input carries no direction: the rule does not read it.
enum SlowRhythmAcrossGravity {
    /// The chain's mean candidate interval (s) from which the rule reads it: a walk's candidates come
    /// this far apart only in a slow walk or at one peak per stride. The real walks' confirmations
    /// just below it reach 0.45 g (0.74-0.78 s) and 0.53 g (0.70-0.74 s): quicker chains are not read.
    static let minInterval = 0.78
    /// The RMS (g) of the movement across gravity above which the slow rhythm is arm work: 0.085 g
    /// (22 %) above the highest real walk confirmation beyond `minInterval` (0.385 g), and above the
    /// 0.45 g the real chains just quicker than it reach. The real wrists behind that margin are one
    /// Bangle wearer and the ST clips, so the margin is kept wide: 0.43 removed 5-10 more false steps
    /// per synthetic arm-busy hour for half of it (docs/motion.md, "A slow rhythm across gravity").
    static let ceiling = 0.47
    /// Samples on each side of the moving mean that stands for gravity (25 Hz: about 1 s in all).
    static let halfWidth = 12
    /// Seconds before the chain's first candidate that its span includes (the band lags |a|).
    static let lead = 0.6

    /// The RMS (g) of the movement across gravity over the newest `span` samples: each sample less the
    /// mean of the samples within `halfWidth` of it (inside the span), less its part along that mean;
    /// nil without a span of at least 2 s or with a mean too short to give a direction (a free fall).
    static func acrossGravityRMS(samples: SampleRing, span: Int) -> Double? {
        let span = min(span, samples.count)
        guard span >= 2 * Int(MotionEngine.internalRate) else { return nil }
        // The moving mean's window [low, high] in samples back from the newest, kept as running sums.
        var sx = 0.0, sy = 0.0, sz = 0.0
        var low = 0, high = -1
        var sum = 0.0
        for back in 0..<span {
            while high < min(back + halfWidth, span - 1) {
                high += 1
                let s = samples.sample(high)
                sx += s.x; sy += s.y; sz += s.z
            }
            while low < back - halfWidth {
                let s = samples.sample(low)
                sx -= s.x; sy -= s.y; sz -= s.z
                low += 1
            }
            let n = Double(high - low + 1)
            let gx = sx / n, gy = sy / n, gz = sz / n
            let norm = (gx * gx + gy * gy + gz * gz).squareRoot()
            guard norm > 0.3 else { return nil }
            let s = samples.sample(back)
            let mx = s.x - gx, my = s.y - gy, mz = s.z - gz
            let along = (mx * gx + my * gy + mz * gz) / norm
            sum += max(mx * mx + my * my + mz * mz - along * along, 0)
        }
        return (sum / Double(span)).squareRoot()
    }

    /// Whether a chain must wait: its mean interval `meanInterval` (s) is slow and the movement over its
    /// span (from `lead` before `chainStart` to the newest sample at `newest`) pushes across gravity.
    static func holdsBack(meanInterval: Double, chainStart: Double, samples: SampleRing, newest: Double) -> Bool {
        guard meanInterval >= minInterval else { return false }
        let span = Int(((newest - chainStart + lead) * MotionEngine.internalRate).rounded()) + 1
        guard let rms = acrossGravityRMS(samples: samples, span: span) else { return false }
        return rms > ceiling
    }
}
