/// A reading's mean over the recent windows, and how many windows formed it since it was
/// cleared: the step gate's vertical share and its arm-work rules (`TurningArmWork`,
/// `UpwardPeaks`, `CirclingArmWork`, `MagnitudeArmWork`, `MagnitudeImpacts`) each judge such a
/// mean, so that one odd window neither starts nor ends a wait.
struct RecentMean: Sendable {
    /// Each window moves the mean this share of the way: about 10 s of windows. For the vertical
    /// share (`StepGate.vertical`), 0.05 (slower) or 0.2 (faster) lose more of the real walks
    /// (docs/motion.md, gate v2.10).
    static let gain = 0.1

    /// The mean; nil before the first window and after `clear`.
    private(set) var value: Double?
    /// Windows in the mean since it was cleared.
    private(set) var windows = 0

    mutating func add(_ reading: Double) {
        value = value.map { $0 + Self.gain * (reading - $0) } ?? reading
        windows += 1
    }

    mutating func clear() {
        value = nil
        windows = 0
    }

    /// The mean once at least `minWindows` windows formed it, else nil.
    func formed(after minWindows: Int) -> Double? {
        windows >= minWindows ? value : nil
    }
}
