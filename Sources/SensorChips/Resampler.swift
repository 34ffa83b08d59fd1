import StepdModel

/// Resamples a timestamped stream onto a regular grid by linear interpolation: the LIS3DH has no
/// 40 Hz rate, so its 50 Hz output is delivered at 40 Hz. The grid starts at the first input
/// sample after `reset()`; each output lies between two inputs, so nothing is extrapolated.
public struct Resampler: Sendable {
    public let outputPeriod: Double
    private var previous: AccelSample?
    /// Grid times are origin + index * period (not a running sum, which would drift).
    private var gridOrigin = 0.0
    private var nextIndex = 0

    public init(outputRate: Double) {
        outputPeriod = 1 / outputRate
    }

    /// Forget the past: call after a gap so no output bridges it.
    public mutating func reset() {
        previous = nil
    }

    public mutating func process(_ input: [AccelSample]) -> [AccelSample] {
        var output: [AccelSample] = []
        output.reserveCapacity(input.count)
        for sample in input {
            guard let last = previous else {
                previous = sample
                output.append(sample)
                gridOrigin = sample.t
                nextIndex = 1
                continue
            }
            let span = sample.t - last.t
            if span <= 0 { continue }  // out-of-order or duplicate input: skip rather than divide by zero
            while true {
                let time = gridOrigin + Double(nextIndex) * outputPeriod
                // Tolerate rounding: a grid point a few ulps past the input is that input.
                guard time <= sample.t + outputPeriod * 1e-9 else { break }
                let f = min(1, (time - last.t) / span)
                output.append(AccelSample(t: time,
                                          x: last.x + (sample.x - last.x) * f,
                                          y: last.y + (sample.y - last.y) * f,
                                          z: last.z + (sample.z - last.z) * f))
                nextIndex += 1
            }
            previous = sample
        }
        return output
    }
}
