/// The bucket length of statistics and collections: N minutes, hours or days. Minute and hour
/// buckets are fixed lengths of elapsed time; day buckets follow the local calendar (23 or 25 h
/// across a DST change).
public struct BucketInterval: Sendable, Equatable {
    public enum Unit: String, Sendable, CaseIterable {
        case minutes, hours, days

        /// Nominal length of one unit.
        public var seconds: Double {
            switch self {
            case .minutes: return 60
            case .hours: return 3600
            case .days: return 86_400
            }
        }
    }

    public var unit: Unit
    public var count: Int

    public init(_ unit: Unit, _ count: Int) {
        self.unit = unit
        self.count = count
    }

    public static func minutes(_ n: Int) -> BucketInterval { BucketInterval(.minutes, n) }
    public static func hours(_ n: Int) -> BucketInterval { BucketInterval(.hours, n) }
    public static func days(_ n: Int) -> BucketInterval { BucketInterval(.days, n) }

    /// Nominal length; days follow the calendar in the query's zone (23 or 25 h across DST).
    public var nominalSeconds: Double { unit.seconds * Double(count) }
}
