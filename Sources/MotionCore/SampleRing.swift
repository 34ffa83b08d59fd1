/// The last few seconds of 25 Hz three-axis samples and their |a|, for the gate rules that read the
/// signal around the step candidates (`UpwardPeaks`, `CirclingArmWork`): a fixed ring, no
/// allocation per sample.
struct SampleRing: Sendable {
    let capacity: Int
    private var xs: [Double]
    private var ys: [Double]
    private var zs: [Double]
    private var magnitudes: [Double]
    private var head = 0
    /// Samples held (at most `capacity`).
    private(set) var count = 0

    init(capacity: Int) {
        self.capacity = capacity
        xs = [Double](repeating: 0, count: capacity)
        ys = xs
        zs = xs
        magnitudes = xs
    }

    mutating func reset() {
        head = 0
        count = 0
    }

    @inline(__always) mutating func push(x: Double, y: Double, z: Double, magnitude: Double) {
        xs[head] = x
        ys[head] = y
        zs[head] = z
        magnitudes[head] = magnitude
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
        let s = slot(back)
        return (xs[s], ys[s], zs[s])
    }

    /// |a| of the sample `back` samples before the newest.
    @inline(__always) func magnitude(_ back: Int) -> Double { magnitudes[slot(back)] }

    /// The mean vector of the newest `span` samples (gravity over a window).
    func mean(of span: Int) -> (x: Double, y: Double, z: Double) {
        var gx = 0.0, gy = 0.0, gz = 0.0
        for back in 0..<span {
            let s = slot(back)
            gx += xs[s]
            gy += ys[s]
            gz += zs[s]
        }
        let n = Double(span)
        return (gx / n, gy / n, gz / n)
    }
}
