import StepdModel

/// Reference: the classic early-iOS pedometer, kept to show how far ahead MotionEngine is.
/// 40 Hz (samples averaged into 25 ms bins on their timestamps); g = |a| - 1; within each batch
/// of 10 samples the deepest local minimum with g < -0.12 is a tread point; tread points less
/// than 259 ms after the last accepted one are dropped; counting starts once `warmUpTreads`
/// tread points arrived without a 2 s gap, and those warm-up treads are then counted too.
public struct ClassicPedometer: Sendable {
    public static let rate = 40.0
    public static let threshold = -0.12
    public static let batchSize = 10
    public static let minTreadInterval = 0.259
    public static let maxWarmUpGap = 2.0
    public let warmUpTreads: Int

    public private(set) var totalSteps = 0
    private var bin: Int64 = .min
    private var sum = (0.0, 0.0, 0.0)
    private var count = 0
    private var previous = Double.nan, beforePrevious = Double.nan
    private var previousTime = 0.0
    private var batchFill = 0
    private var batchMinimum = Double.infinity
    private var batchMinimumTime = 0.0
    private var lastTread = -Double.infinity
    private var warmUp = 0
    private var counting = false

    public init(warmUpTreads: Int = 4) {
        self.warmUpTreads = max(1, warmUpTreads)
    }

    /// Returns the number of steps this sample added (warm-up treads arrive together).
    @discardableResult
    public mutating func process(_ sample: AccelSample) -> Int {
        guard let b = timeBin(sample.t, rate: Self.rate) else { return 0 }
        if b == bin {
            sum.0 += sample.x; sum.1 += sample.y; sum.2 += sample.z
            count += 1
            return 0
        }
        var added = 0
        if count > 0 {
            let n = Double(count)
            let g = ((sum.0 / n) * (sum.0 / n) + (sum.1 / n) * (sum.1 / n) + (sum.2 / n) * (sum.2 / n)).squareRoot() - 1
            added = consume(g, at: (Double(bin) + 0.5) / Self.rate)
        }
        bin = b
        sum = (sample.x, sample.y, sample.z)
        count = 1
        return added
    }

    public mutating func markGap() {
        count = 0
        bin = .min
        previous = .nan
        beforePrevious = .nan
        batchFill = 0
        batchMinimum = .infinity
        warmUp = 0
        counting = false
    }

    private mutating func consume(_ g: Double, at t: Double) -> Int {
        var added = 0
        // `previous` is a local minimum when both neighbours are higher.
        if previous < Self.threshold && previous < beforePrevious && previous <= g && previous < batchMinimum {
            batchMinimum = previous
            batchMinimumTime = previousTime
        }
        beforePrevious = previous
        previous = g
        previousTime = t
        batchFill += 1
        if batchFill == Self.batchSize {
            if batchMinimum.isFinite { added = tread(at: batchMinimumTime) }
            batchFill = 0
            batchMinimum = .infinity
        }
        return added
    }

    private mutating func tread(at t: Double) -> Int {
        if t - lastTread < Self.minTreadInterval { return 0 }
        let gap = t - lastTread
        lastTread = t
        if counting {
            if gap > Self.maxWarmUpGap {
                counting = false
                warmUp = 1
                return 0
            }
            totalSteps += 1
            return 1
        }
        warmUp = gap > Self.maxWarmUpGap ? 1 : warmUp + 1
        if warmUp >= warmUpTreads {
            counting = true
            totalSteps += warmUp
            return warmUp
        }
        return 0
    }
}
