/// The k-th smallest of a few values without sorting them all (`MagnitudeImpacts` reads three
/// quantiles of every |a| window).
enum OrderStatistics {
    /// Reorders `values[lower..<upper]` so that index `k` holds the value a sort would put there,
    /// every value before it is at most that and every value after it at least that (Hoare's
    /// selection, a median-of-three pivot, Lomuto partitions). The values must not be NaN.
    static func select(_ k: Int, in values: UnsafeMutableBufferPointer<Double>, from lower: Int, to upper: Int) {
        precondition(0 <= lower && lower <= k && k < upper && upper <= values.count, "index out of the range")
        var low = lower, high = upper - 1
        while low < high {
            // The median of the first, middle and last value goes last, as the pivot.
            let middle = low + (high - low) / 2
            if values[middle] < values[low] { values.swapAt(middle, low) }
            if values[high] < values[low] { values.swapAt(high, low) }
            if values[middle] < values[high] { values.swapAt(middle, high) }
            let pivot = values[high]
            var store = low
            for i in low..<high where values[i] < pivot {
                values.swapAt(i, store)
                store += 1
            }
            values.swapAt(store, high)
            if k == store { return }
            if k < store { high = store - 1 } else { low = store + 1 }
        }
    }
}
