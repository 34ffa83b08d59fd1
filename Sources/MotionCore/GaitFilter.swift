import Glibc

/// Second-order IIR section (transposed direct form II).
struct Biquad: Sendable {
    var b0, b1, b2, a1, a2: Double
    var z1 = 0.0, z2 = 0.0

    /// Butterworth low-pass (RBJ cookbook, Q = 1/sqrt(2)).
    init(lowpass cutoff: Double, sampleRate: Double) {
        let w0 = 2 * Double.pi * cutoff / sampleRate
        let alpha = sin(w0) / (2 * 0.70710678118654752)
        let c = cos(w0)
        let a0 = 1 + alpha
        b0 = (1 - c) / 2 / a0
        b1 = 2 * b0
        b2 = b0
        a1 = -2 * c / a0
        a2 = (1 - alpha) / a0
    }

    /// Starts in the steady state for a constant input, so the first samples do not ring.
    mutating func settle(at value: Double) {
        z1 = value * (1 - b0)
        z2 = value * (b2 - a2)
    }

    @inline(__always) mutating func callAsFunction(_ x: Double) -> Double {
        let y = b0 * x + z1
        z1 = b1 * x - a1 * y + z2
        z2 = b2 * x - a2 * y
        return y
    }
}

/// Turns the acceleration magnitude (25 Hz) into the gait band: low-pass, minus a slow
/// baseline (gravity and drift), with a running RMS that scales the peak hysteresis.
struct GaitFilter: Sendable {
    private var lowpass: Biquad
    private let baselineKeep: Double
    private let rmsKeep: Double
    private var baseline = 0.0
    private(set) var meanSquare = 0.0
    private var started = false

    init(parameters: DetectorParameters, sampleRate: Double) {
        lowpass = Biquad(lowpass: parameters.lowpassHz, sampleRate: sampleRate)
        baselineKeep = exp(-1 / (parameters.baselineSeconds * sampleRate))
        rmsKeep = exp(-1 / (parameters.rmsSeconds * sampleRate))
    }

    mutating func reset() {
        started = false
        baseline = 0
        meanSquare = 0
    }

    @inline(__always) mutating func callAsFunction(_ magnitude: Double) -> Double {
        var smoothed: Double
        if started {
            smoothed = lowpass(magnitude)
        } else {
            lowpass.settle(at: magnitude)
            baseline = magnitude
            smoothed = magnitude
            started = true
        }
        baseline = baselineKeep * baseline + (1 - baselineKeep) * smoothed
        smoothed -= baseline
        meanSquare = rmsKeep * meanSquare + (1 - rmsKeep) * smoothed * smoothed
        return smoothed
    }
}

/// Peak picking with hysteresis: a peak is confirmed once the signal has fallen `h` below it,
/// and the next peak can only come after the signal has risen `h` above the valley between.
struct PeakPicker: Sendable {
    private var seekingPeak = true
    private var extreme = -Double.infinity
    private var extremeTime = 0.0
    /// The valley before the current peak, and the swing (peak minus that valley, g) of the
    /// last confirmed peak.
    private var valley = 0.0
    private(set) var lastSwing = 0.0

    mutating func reset() {
        valley = 0
        lastSwing = 0
        seekingPeak = true
        extreme = -Double.infinity
        extremeTime = 0
    }

    /// Returns the time of a peak confirmed by this sample, if any.
    @inline(__always) mutating func feed(_ value: Double, at t: Double, hysteresis h: Double) -> Double? {
        if seekingPeak {
            if value > extreme {
                extreme = value
                extremeTime = t
            } else if value < extreme - h {
                let peak = extremeTime
                lastSwing = extreme - valley
                seekingPeak = false
                extreme = value
                extremeTime = t
                return peak
            }
        } else {
            if value < extreme {
                extreme = value
                extremeTime = t
            } else if value > extreme + h {
                valley = extreme
                seekingPeak = true
                extreme = value
                extremeTime = t
            }
        }
        return nil
    }
}
