/// The wearer heights the stride model takes. `stepd --height` and `stepctl analyze --height`
/// both check against this range so the two commands cannot disagree about what is accepted
/// (they did: 2.5 m and 2.6 m); `StrideModel` falls back to its default height outside it.
public enum WearerHeight {
    /// Metres: a small child to beyond the tallest people on record.
    public static let metres: ClosedRange<Double> = 0.5...2.6
}
