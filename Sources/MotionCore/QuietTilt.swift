/// A device tilted slowly at rest-level vibration (activity rule v2.18-R).
///
/// `isSteadyHand` takes a held device whose gravity direction wanders by less than 0.1 rad in
/// 5 s. A person sitting or standing with a phone in the hand also tilts it slowly, as when
/// reading it or shifting the grip, by 0.1-0.25 rad (6-14 degrees) in 5 s, while the device
/// vibrates no more than a resting one (the held-out ST still clips, `sthar-stationary`: 10-12 mg,
/// turns of 0.06-0.2 rad, led unknown by the fold models). Nothing moves the body: an arm that
/// carries the device somewhere turns it further and shakes it above 12 mg (the same clips' hand
/// movements: 15-115 mg, 0.2-1.3 rad). Where the model's lead is unknown such a window is
/// stationary. It is a quiet turn (`isQuietTurn`), the desk's sign against a car, so it does not
/// hold a drive's onset evidence as a stop does: an unknown lead reset that evidence, and so does
/// this window (docs/motion.md, "A hand that tilts a phone").
/// 12 mg, not the steady hand's 16: at 16 mg (the tilt then holding the evidence) the synthetic
/// eating held out by person became 3.8 -> 5.2 % automotive and seed 3's 1.8 -> 4.4 % walking.
extension ActivityClassifier {
    static let quietTiltVibration = 0.012
    static let quietTiltAngle = 0.25

    /// Whether a three-axis window turns its gravity direction by less than `quietTiltAngle`
    /// at rest-level vibration (`quietTiltVibration`); magnitude-only windows never do.
    static func isQuietTilt(_ values: [Double], magnitudeOnly: Bool) -> Bool {
        isCalmTurn(values, magnitudeOnly: magnitudeOnly, vibrationBelow: quietTiltVibration, angleBelow: quietTiltAngle)
    }
}
