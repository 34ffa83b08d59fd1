/// Arm work seen through |a| alone (a magnitude-only watch, `WindowFeatures.magnitudeOnly`):
/// manipulation puts a large share of the |a| movement above 6 Hz, walking does not.
///
/// Why: on the wrist a walk's |a| is the body's bounce and the arm's pendulum swing, smooth
/// movements at the step and stride rate whose power stays in the 2.5 Hz gait band (the rieck
/// walks at 40-130 steps/min: `high_rms_log - gait_rms_log` about -0.3 at every speed), while
/// tying laces, dressing, scrubbing dishes or working at a desk are quick strokes, grips and
/// contacts whose |a| carries about as much power above 6 Hz as in the gait band (-0.2 to 0.0).
/// One window's balance is noisy (a heel strike, a bump), so exponential means over the moving
/// magnitude-only windows (`RecentMean`, about 10 s; a still wrist's are noise, `MovingMagnitude`) decide, as the vertical share does for
/// three-axis windows (`StepGate.verticalFloor`): while the balance is above `ceiling` and the
/// band's peaks swing more than `swingFloor` (vigorous movement: the slow, weak walks whose
/// balance wanders up keep their steps), a chain at a step period of at least `minPeriod` is arm
/// work and waits; it is credited back whole once the evidence falls and it still keeps its
/// rhythm. A run that has not shown the gait ends on clearer evidence (`endsRun`), and chains then
/// wait for a gait window, as after the 35 s arm-work rule (`StepGate.observe`). Brisker chains
/// are exempt: from about 120 steps/min a real walk's step harmonics reach above 6 Hz (and walks
/// time-scaled to ~150-180 steps/min compress their impacts there too).
/// Three-axis windows clear the means.
struct MagnitudeArmWork: Sendable {
    /// The recent balance (log10 of the |a| RMS above 6 Hz over the gait band's RMS) and the
    /// recent peak swing (log10 g) over the magnitude-only windows since they were cleared.
    private(set) var balanceMean = RecentMean()
    private(set) var swingMean = RecentMean()
    /// The recent balance and swing, nil before the first magnitude-only window, after a
    /// three-axis one and after a gap.
    var balance: Double? { balanceMean.value }
    var swing: Double? { swingMean.value }
    /// Mean balance above which the |a| movement is arm work: the rieck walks' exponential mean
    /// exceeds -0.15 in 0-6 % of their windows (none at -0.1), the held-out rieck shoe-lace and
    /// desk work in 86-100 %, dressing 91 %, dishwashing 48 %; -0.2 catches 7-25 % of the slow walks.
    static let ceiling = -0.15
    /// Mean peak swing (log10 g, 0.45 g) above which the movement is vigorous: dressing, laces and
    /// dishes swing -0.26 to -0.34, the slow rieck walks -0.41 and sped up to ~80 steps/min -0.46.
    /// Without it the slow walks sped up to ~80 steps/min lose steps (MAPE 2.95 -> 7.37 % held out).
    static let swingFloor = -0.35
    /// Step period (s) below which a chain is exempt (120 steps/min); 0.45 s costs the rieck walks
    /// time-scaled to ~150 steps/min, 0.55 s no longer reaches the laces and the dishes.
    static let minPeriod = 0.5
    /// A run already credited ends only on clearer evidence (hysteresis: a walk's balance wanders
    /// up for a few windows, especially sped up to ~80 steps/min), and only while it has shown no
    /// gait window (`StepGate.gaitShownCorrelation`): balance above -0.1 and peaks swinging 0.5 g.
    /// At the waiting limits (-0.15, 0.45 g) the rieck slow walks sped up to ~80 steps/min lose
    /// steps (MAPE 2.95 -> 3.99 % held out).
    static let endCeiling = -0.1
    static let endSwingFloor = -0.3

    private static let gaitFeature = NamedFeature("gait_rms_log")
    private static let highFeature = NamedFeature("high_rms_log")
    private static let swingFeature = NamedFeature("peak_swing_log")

    /// One magnitude-only window's evidence.
    struct Evidence: Sendable, Equatable {
        var balance: Double
        var swing: Double
        /// Whether the wrist moves (`MovingMagnitude`): a still window's balance and swing are the
        /// sensor's noise, and leave the means as they are (gate v2.19-G).
        var moving = true
    }

    /// The evidence of one window's feature vector; nil unless the window is magnitude-only
    /// (three-axis windows have the vertical share) and holds the features.
    static func evidence(in values: [Double], magnitudeOnly: Bool) -> Evidence? {
        guard magnitudeOnly, let gait = gaitFeature.value(in: values), let high = highFeature.value(in: values),
              let swing = swingFeature.value(in: values) else { return nil }
        return Evidence(balance: high - gait, swing: swing, moving: MovingMagnitude.isMoving(values))
    }

    /// Takes one window's evidence (nil: a three-axis window, which clears the means); a still
    /// window is skipped (`MovingMagnitude`).
    mutating func observe(_ evidence: Evidence?) {
        guard let evidence else {
            reset()
            return
        }
        guard evidence.moving else { return }
        balanceMean.add(evidence.balance)
        swingMean.add(evidence.swing)
    }

    /// Whether a chain at `stepPeriod` (s) is magnitude-only arm work and must wait.
    func holdsBack(stepPeriod: Double) -> Bool {
        guard stepPeriod >= Self.minPeriod, let balance, let swing else { return false }
        return balance > Self.ceiling && swing > Self.swingFloor
    }

    /// Whether a run at `stepPeriod` (s) that has not shown the gait is clearly arm work and ends.
    func endsRun(stepPeriod: Double) -> Bool {
        guard stepPeriod >= Self.minPeriod, let balance, let swing else { return false }
        return balance > Self.endCeiling && swing > Self.endSwingFloor
    }

    mutating func reset() {
        balanceMean.clear()
        swingMean.clear()
    }
}
