import Glibc

/// Whether a magnitude-only window moves (gate v2.19-G, issue 10 round 12): the |a| means that the
/// magnitude-only arm-work rules read (`MagnitudeArmWork`'s balance and swing; `MagnitudeImpacts` and
/// `UnprovenMagnitudeRuns` read its balance too) count moving windows only.
///
/// Why: a still wrist's |a| is the sensor's noise, white, so as much of its power lies above 6 Hz as
/// in the 2.5 Hz gait band (balance about +0.3, higher than any arm work) while its peaks barely
/// swing. Averaged in, the bouts' 15 s of rest kept the balance above `MagnitudeImpacts.smoothBalance`
/// for the whole 16 s of a slow rieck walk after it: a walk from rest was judged by the rest, not by
/// its steps (docs/motion.md, "Still windows in the |a| means").
/// The reading is the one that tells rest from movement elsewhere on |a| (`MagnitudeImpacts`,
/// `DeskMinute`, which reads it here): the window's |a| deviation at least `MagnitudeImpacts.minimumSpread` (0.02 g).
enum MovingMagnitude {
    static let minimumSpread = MagnitudeImpacts.minimumSpread
    private static let spreadFeature = NamedFeature("magnitude_std_log")
    /// The spread as the feature reads it (log10 of the deviation plus 1e-4).
    private static let minimumSpreadLog = log10(minimumSpread + 1e-4)

    /// Whether a window's |a| moves more than a still sensor's noise; `unknown` when the feature is
    /// missing (the means keep such a window, `DeskMinute` counts it as no desk work).
    static func isMoving(_ values: [Double], unknown: Bool = true) -> Bool {
        guard let spread = spreadFeature.value(in: values) else { return unknown }
        return spread >= minimumSpreadLog
    }
}
