import Glibc

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
/// 10 mg keeps deciding automotive-led windows).
extension ActivityClassifier {
    static let steadyHandVibration = 0.016
    static let steadyHandAngle = 0.1

    /// Whether a three-axis window is a steadily held device (`steadyHandVibration`,
    /// `steadyHandAngle`); magnitude-only windows never are.
    static func isSteadyHand(_ values: [Double], magnitudeOnly: Bool) -> Bool {
        guard !magnitudeOnly, let vibration = vibrationFeature.value(in: values),
              let move = gravityMoveFeature.value(in: values), let spread = orientationSpreadFeature.value(in: values)
        else { return false }
        return vibration < log10(steadyHandVibration) && move < steadyHandAngle && spread < steadyHandAngle
    }
}
