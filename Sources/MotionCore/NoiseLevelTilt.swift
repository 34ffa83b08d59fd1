import StepdModel

/// A slow tilt within the sensor's own noise, which the model calls a car (activity rule v2.19-A).
///
/// On a noisy sensor a resting device vibrates at the noise: under 0.03 g of white noise per axis
/// the held-out ST still clips (`sthar-stationary`) sit at 18-34 mg over a noise floor of 18-29 mg
/// (`sensorNoiseFloor`, v2.17-F), a smooth road's level, and the person-fold model leads such
/// windows automotive at 0.85-0.99. The still rule takes those whose gravity direction holds
/// (`isStill` against 1.5 x the floor); a hand that tilts the device slowly, as `isQuietTilt` (0.05-0.25
/// rad in 5 s), was left to the model: the clip's fifth part, tilted at 31-35 mg (1.3-1.4 x its 25 mg
/// floor), stayed unknown (the model leading automotive at 0.86-0.97) and carried over into the next part.
///
/// Such a window is two readings at once: a device at rest in a hand, and a car on a smooth road with
/// a hand on the wheel (the noisy Bangle drives' tilts at the noise are indistinguishable from it:
/// turns of 0.06 / 0.09-0.11 / 0.18-0.20 rad, `vertical_share` 0.07 / 0.15-0.17 / 0.29-0.30 and 0.94-1.12 /
/// 1.27-1.32 / 1.44-1.48 x the floor at the 10th / 50th / 90th percentile, against the still clip's
/// 0.06 / 0.09 / 0.20 rad, 0.06 / 0.17 / 0.25 and 1.22 / 1.31 / 1.38 x).
/// So the state reads it as stationary while the evidence reads it as the model led it: it counts
/// towards a drive's 30-window onset and its `vehicleSilence` as an automotive window, and once that
/// onset is met, or while the state is automotive, the window is the model's automotive. Read as a
/// rest alone (the tilt holding the evidence as a stop does, or resetting it as `isQuietTilt` does),
/// the noisy drives held out by person fell 90.2 -> 64.4 / 58.3 % automotive.
/// Not inside a walk or a run: the pauses of `bangle-hughb-walk-6605` under the same noise (the model
/// leading automotive at the noise while the walker stands) became stationary a few windows before
/// the walk went on (the in-sample robustness rows' walking windows 97.6 -> 97.5 %), where the still
/// windows among them alone did not make the three in a row that stationary needs.
/// Only on a noisy sensor (`sensorNoiseFloor` at least `noiseLevelTiltFloor`, 8 mg, as `NoisyRoad`):
/// on a quiet sensor automotive leads stay the model's (`isQuietTilt` takes unknown ones at 12 mg).
extension ActivityClassifier {
    static let noiseLevelTiltFloor = 0.008

    /// Whether a three-axis window turns its gravity direction by less than `quietTiltAngle` while it
    /// vibrates within `noiseFloorMargin` (1.5) times the sensor's noise floor (`sensorNoiseFloor`, g,
    /// counted up to `noiseFloorCap`; 0 when unknown), on a sensor whose floor is at least
    /// `noiseLevelTiltFloor`; magnitude-only windows never do.
    static func isNoiseLevelTilt(_ values: [Double], magnitudeOnly: Bool, sensorNoiseFloor: Double) -> Bool {
        sensorNoiseFloor >= noiseLevelTiltFloor
            && isCalmTurn(values, magnitudeOnly: magnitudeOnly, vibrationBelow: noiseFloorMargin * min(sensorNoiseFloor, noiseFloorCap),
                          angleBelow: quietTiltAngle)
    }

    /// Whether a window led by `lead` is read as stationary by the state as a noise-level tilt
    /// (`Window.noiseLevelTilt`), its automotive evidence counted all the same: an automotive lead,
    /// not still (the still rule decides those), outside a walk, a run or a drive, and before the
    /// count that meets the onset (`counted`: the automotive windows so far).
    static func readsNoiseLevelTiltAsRest(_ window: Window, lead: ActivityKind, state: ActivityKind, counted: Int) -> Bool {
        window.noiseLevelTilt && !window.still && lead == .automotive
            && state != .walking && state != .running && state != .automotive
            && counted + 1 < automotiveOnset
    }
}
