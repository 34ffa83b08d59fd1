/// One entry of the window feature vector, found by its name: the order of the vector belongs to
/// the generated model (`WindowFeatures.names`), so the rules beside the model (the activity
/// state's still and running windows, the step gate's window cadence) read features by name.
struct NamedFeature: Sendable {
    private let index: Int?

    init(_ name: String) {
        index = WindowFeatures.names.firstIndex(of: name)
    }

    /// Its value in one window's vector; nil when the vector does not hold it.
    func value(in values: [Double]) -> Double? {
        guard let index, index < values.count else { return nil }
        return values[index]
    }
}
