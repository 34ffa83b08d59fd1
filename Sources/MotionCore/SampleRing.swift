/// The last seconds of 25 Hz three-axis samples and their |a|, for the gate rules that read the
/// signal around the step candidates (`UpwardPeaks`, `CirclingArmWork` and others the newest window,
/// `SlowRhythmAcrossGravity` a chain's span of up to 12 s): a fixed ring, no allocation per sample.
struct SampleRing: Sendable {
    let capacity: Int
    /// x, y, z and |a| of each slot side by side: one array, so a push checks one buffer's
    /// uniqueness instead of four (the engine pushes every sample).
    private var values: [Double]
    private var head = 0
    /// Samples held (at most `capacity`).
    private(set) var count = 0

    init(capacity: Int) {
        self.capacity = capacity
        values = [Double](repeating: 0, count: 4 * capacity)
    }

    mutating func reset() {
        head = 0
        count = 0
    }

    @inline(__always) mutating func push(x: Double, y: Double, z: Double, magnitude: Double) {
        values.withUnsafeMutableBufferPointer { buffer in
            let base = 4 * head
            buffer[base] = x
            buffer[base + 1] = y
            buffer[base + 2] = z
            buffer[base + 3] = magnitude
        }
        head = head + 1 == capacity ? 0 : head + 1
        if count < capacity { count += 1 }
    }

    /// The ring slot of the sample `back` samples before the newest.
    @inline(__always) private func slot(_ back: Int) -> Int {
        let i = head - 1 - back
        return i < 0 ? i + capacity : i
    }

    /// The sample `back` samples before the newest (0: the newest).
    @inline(__always) func sample(_ back: Int) -> (x: Double, y: Double, z: Double) {
        // One check of `back` instead of three of the slots: the window rules read about 600
        // samples a second through here.
        precondition(back >= 0 && back < capacity, "a sample the ring does not hold")
        let base = 4 &* slot(back)
        return values.withUnsafeBufferPointer { v in (v[base], v[base &+ 1], v[base &+ 2]) }
    }

    /// |a| of the sample `back` samples before the newest.
    @inline(__always) func magnitude(_ back: Int) -> Double {
        precondition(back >= 0 && back < capacity, "a sample the ring does not hold")
        return values.withUnsafeBufferPointer { v in v[4 &* slot(back) &+ 3] }
    }

    /// The mean vector of the newest `span` samples (gravity over a window).
    func mean(of span: Int) -> (x: Double, y: Double, z: Double) {
        var gx = 0.0, gy = 0.0, gz = 0.0
        for back in 0..<span {
            let s = sample(back)
            gx += s.x
            gy += s.y
            gz += s.z
        }
        let n = Double(span)
        return (gx / n, gy / n, gz / n)
    }

    /// Whether the newest `span` samples are magnitude-only (y and z exactly zero throughout, as
    /// `WindowFeatures` flags a window).
    func isMagnitudeOnly(_ span: Int) -> Bool {
        (0..<span).allSatisfy { back in
            let s = sample(back)
            return s.y == 0 && s.z == 0
        }
    }
}
