/// A hand holding a device steady (activity rule v2.16-D).
///
/// `isStill` wants a device at rest: below 10 mg of vibration with the gravity direction within
/// 0.05 rad. A hand holding a phone or a forearm resting on an armrest is not at rest: its tremor
/// and small corrections show 10-16 mg with the direction wandering by 0.05-0.1 rad (3-6 degrees)
/// in 5 s (the ST still clips, `sthar-stationary`: 37 of the 82 windows the model held out by
/// person leads with unknown), and a model that has never seen that device at rest calls them
/// unknown. Where the model's lead is unknown, such a window is stationary: the person moves no
/// more than a held device does. Unknown only, not automotive: a car on a smooth road shows the
/// same level with its direction steady, and it stays the model's to call (the still rule's
/// 10 mg keeps deciding automotive-led windows; with automotive-led windows too, the person folds
/// lost 5 points of a drive under a +1 % clock drift and no still clip gained).
/// 0.1 rad, not more: at 0.15 rad the held-out still clips gain 1.8 points more, but a
/// stationary window holds the automotive evidence where an unknown one resets it, and the
/// synthetic eating held out by person became 3.8 -> 4.4 % automotive (docs/motion.md,
/// "A steady hand and a noisy road").
extension ActivityClassifier {
    static let steadyHandVibration = 0.016
    static let steadyHandAngle = 0.1

    /// Whether a three-axis window is a steadily held device (`steadyHandVibration`,
    /// `steadyHandAngle`); magnitude-only windows never are.
    static func isSteadyHand(_ values: [Double], magnitudeOnly: Bool) -> Bool {
        isCalmTurn(values, magnitudeOnly: magnitudeOnly, vibrationBelow: steadyHandVibration, angleBelow: steadyHandAngle)
    }
}
