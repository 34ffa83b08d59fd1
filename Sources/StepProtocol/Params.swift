import StepJSON

/// The period a query covers: explicit UTC bounds, or the current local day (in `time_zone`,
/// else the agent's zone) up to now.
public enum QueryRange: Sendable, Equatable {
    case between(start: Double, end: Double)
    case today

    static let fields = ["start", "end", "today"]

    static func read(_ reader: ParamReader, method: String, maxSpan: Double) throws(RPCError) -> QueryRange {
        let today = try reader.bool("today") ?? false
        let start = try reader.timestamp("start")
        let end = try reader.timestamp("end")
        if today {
            guard start == nil, end == nil else { throw .invalidParams("give either \"today\": true or \"start\" and \"end\", not both") }
            return .today
        }
        guard let start, let end else {
            throw .invalidParams("\(method) needs \"start\" and \"end\" (UTC seconds since 1970) or \"today\": true")
        }
        guard end > start else { throw .validationFailed("\"end\" (\(JSONValue.double(end).jsonText)) must be after \"start\" (\(JSONValue.double(start).jsonText))") }
        guard end - start <= maxSpan else {
            throw .validationFailed("range of \(Int((end - start) / 86_400)) days is too long; at most \(Int(maxSpan / 86_400)) days per request")
        }
        return .between(start: start, end: end)
    }

    public var json: JSONObject {
        switch self {
        case .between(let start, let end): return ["start": .double(start), "end": .double(end)]
        case .today: return ["today": true]
        }
    }
}

/// The bucket length of statistics and collections: `{"minutes": N}`, `{"hours": N}` or `{"days": N}`.
public struct BucketInterval: Sendable, Equatable {
    public enum Unit: String, Sendable, CaseIterable {
        case minutes, hours, days

        var seconds: Double {
            switch self {
            case .minutes: return 60
            case .hours: return 3600
            case .days: return 86_400
            }
        }

        var maxCount: Int {
            switch self {
            case .minutes: return 1440
            case .hours: return 744
            case .days: return 366
            }
        }
    }

    public var unit: Unit
    public var count: Int

    public init(_ unit: Unit, _ count: Int) {
        self.unit = unit
        self.count = count
    }

    /// Nominal length; days follow the calendar in the query's zone (23 or 25 h across DST).
    public var nominalSeconds: Double { unit.seconds * Double(count) }

    public var json: JSONValue { .object([unit.rawValue: .int(count)]) }

    static func read(_ object: JSONObject, key: String) throws(RPCError) -> BucketInterval {
        guard object.count == 1, let member = object.members.first, let unit = Unit(rawValue: member.key) else {
            throw .invalidParams("\"\(key)\" must be exactly one of {\"minutes\": N}, {\"hours\": N}, {\"days\": N}")
        }
        guard let n = member.value.intValue, n >= 1, n <= unit.maxCount else {
            throw .invalidParams("\"\(key)\".\(unit.rawValue) must be an integer between 1 and \(unit.maxCount), got \(member.value.jsonText)")
        }
        return BucketInterval(unit, n)
    }
}

/// Most buckets one statistics or collection request may produce.
public let maxBucketsPerRequest = 10_000
/// Longest span of one query (about 10 years).
public let maxQuerySpanSeconds: Double = 3660 * 86_400

private func checkBucketCount(_ range: QueryRange, _ interval: BucketInterval) throws(RPCError) {
    guard case .between(let start, let end) = range else { return }
    let buckets = ((end - start) / interval.nominalSeconds).rounded(.up)
    guard buckets <= Double(maxBucketsPerRequest) else {
        throw .validationFailed("\(Int(buckets)) buckets of \(interval.count) \(interval.unit.rawValue); at most \(maxBucketsPerRequest) per request: use a longer interval or a shorter range")
    }
}

/// `steps.query`: totals over a range.
public struct StepsQueryParams: Sendable, Equatable {
    public var range: QueryRange
    public var timeZone: String?
    public var bySource: Bool

    public init(range: QueryRange, timeZone: String? = nil, bySource: Bool = false) {
        self.range = range
        self.timeZone = timeZone
        self.bySource = bySource
    }

    public init(json params: JSONValue?) throws(RPCError) {
        let method = RPCMethod.stepsQuery.rawValue
        let reader = try ParamReader(params, method: method, allowed: QueryRange.fields + ["time_zone", "by_source"])
        range = try QueryRange.read(reader, method: method, maxSpan: maxQuerySpanSeconds)
        timeZone = try reader.timeZone()
        bySource = try reader.bool("by_source") ?? false
    }

    public var json: JSONValue {
        var o = range.json
        if let timeZone { o["time_zone"] = .string(timeZone) }
        if bySource { o["by_source"] = true }
        return .object(o)
    }
}

/// Which statistics `steps.statistics` computes over the buckets.
public enum StatisticsOption: String, Sendable, CaseIterable {
    case sum, min, max, avg
}

/// `steps.statistics`: sum over the range; min/max/avg over buckets of `bucket` (default 1 day).
public struct StepsStatisticsParams: Sendable, Equatable {
    public var range: QueryRange
    public var timeZone: String?
    public var bucket: BucketInterval
    public var options: [StatisticsOption]

    public init(range: QueryRange, timeZone: String? = nil, bucket: BucketInterval = BucketInterval(.days, 1),
                options: [StatisticsOption] = [.sum]) {
        self.range = range
        self.timeZone = timeZone
        self.bucket = bucket
        self.options = options
    }

    public init(json params: JSONValue?) throws(RPCError) {
        let method = RPCMethod.stepsStatistics.rawValue
        let reader = try ParamReader(params, method: method, allowed: QueryRange.fields + ["time_zone", "bucket", "options"])
        range = try QueryRange.read(reader, method: method, maxSpan: maxQuerySpanSeconds)
        timeZone = try reader.timeZone()
        bucket = try reader.objectValue("bucket").map { (o) throws(RPCError) in try BucketInterval.read(o, key: "bucket") } ?? BucketInterval(.days, 1)
        let allowedNames = StatisticsOption.allCases.map(\.rawValue).joined(separator: ", ")
        if let names = try reader.stringArray("options", maxCount: 4, maxLength: 8) {
            var parsed: [StatisticsOption] = []
            for name in names {
                guard let option = StatisticsOption(rawValue: name) else {
                    throw .invalidParams("unknown option \"\(name)\" in \"options\"; allowed: \(allowedNames)")
                }
                if !parsed.contains(option) { parsed.append(option) }
            }
            options = parsed
        } else {
            options = [.sum]
        }
        try checkBucketCount(range, bucket)
    }

    public var json: JSONValue {
        var o = range.json
        if let timeZone { o["time_zone"] = .string(timeZone) }
        o["bucket"] = bucket.json
        o["options"] = .array(options.map { .string($0.rawValue) })
        return .object(o)
    }
}

/// `steps.collection`: buckets of `interval` aligned on `anchor` (like HKStatisticsCollectionQuery).
public struct StepsCollectionParams: Sendable, Equatable {
    public var range: QueryRange
    public var timeZone: String?
    /// UTC seconds buckets are aligned to; default: local midnight of the range start.
    public var anchor: Double?
    public var interval: BucketInterval
    /// true: each bucket lists per-source totals; false: sources merged without double counting.
    public var bySource: Bool
    public var includeUserEntered: Bool

    public init(range: QueryRange, timeZone: String? = nil, anchor: Double? = nil, interval: BucketInterval,
                bySource: Bool = false, includeUserEntered: Bool = true) {
        self.range = range
        self.timeZone = timeZone
        self.anchor = anchor
        self.interval = interval
        self.bySource = bySource
        self.includeUserEntered = includeUserEntered
    }

    public init(json params: JSONValue?) throws(RPCError) {
        let method = RPCMethod.stepsCollection.rawValue
        let reader = try ParamReader(params, method: method,
                                     allowed: QueryRange.fields + ["time_zone", "anchor", "interval", "by_source", "include_user_entered"])
        range = try QueryRange.read(reader, method: method, maxSpan: maxQuerySpanSeconds)
        timeZone = try reader.timeZone()
        anchor = try reader.timestamp("anchor")
        guard let intervalObject = try reader.objectValue("interval") else {
            throw .invalidParams("steps.collection needs \"interval\": {\"minutes\"|\"hours\"|\"days\": N}")
        }
        interval = try BucketInterval.read(intervalObject, key: "interval")
        bySource = try reader.bool("by_source") ?? false
        includeUserEntered = try reader.bool("include_user_entered") ?? true
        try checkBucketCount(range, interval)
    }

    public var json: JSONValue {
        var o = range.json
        if let timeZone { o["time_zone"] = .string(timeZone) }
        if let anchor { o["anchor"] = .double(anchor) }
        o["interval"] = interval.json
        o["by_source"] = .bool(bySource)
        o["include_user_entered"] = .bool(includeUserEntered)
        return .object(o)
    }
}

/// `activity.query`: activity segments overlapping a range.
public struct ActivityQueryParams: Sendable, Equatable {
    public var range: QueryRange
    public var timeZone: String?

    public init(range: QueryRange, timeZone: String? = nil) {
        self.range = range
        self.timeZone = timeZone
    }

    public init(json params: JSONValue?) throws(RPCError) {
        let method = RPCMethod.activityQuery.rawValue
        let reader = try ParamReader(params, method: method, allowed: QueryRange.fields + ["time_zone"])
        range = try QueryRange.read(reader, method: method, maxSpan: 31 * 86_400)
        timeZone = try reader.timeZone()
    }
}

/// `steps.subscribe`: a `steps.update` notification each `update_on` steps.
public struct StepsSubscribeParams: Sendable, Equatable {
    public var updateOn: Int
    public init(updateOn: Int = 1) { self.updateOn = updateOn }

    public init(json params: JSONValue?) throws(RPCError) {
        let reader = try ParamReader(params, method: RPCMethod.stepsSubscribe.rawValue, allowed: ["update_on"])
        updateOn = try reader.int("update_on", in: 1...100_000) ?? 1
    }
}

/// `unsubscribe`: ends one subscription of this connection.
public struct UnsubscribeParams: Sendable, Equatable {
    public var subscription: Int
    public init(subscription: Int) { self.subscription = subscription }

    public init(json params: JSONValue?) throws(RPCError) {
        let reader = try ParamReader(params, method: RPCMethod.unsubscribe.rawValue, allowed: ["subscription"])
        subscription = try reader.requiredInt("subscription", in: 1...Int(Int32.max))
    }
}

/// `samples.add`: steps from another source (a phone, a treadmill) or entered by the user.
public struct SamplesAddParams: Sendable, Equatable {
    public var source: String
    public var start: Double
    public var end: Double
    public var steps: Int
    public var distanceMeters: Double?
    public var userEntered: Bool

    public init(source: String, start: Double, end: Double, steps: Int, distanceMeters: Double? = nil, userEntered: Bool = false) {
        self.source = source
        self.start = start
        self.end = end
        self.steps = steps
        self.distanceMeters = distanceMeters
        self.userEntered = userEntered
    }

    /// The agent's own detections use this source name; clients may not write under it.
    public static let reservedSource = "stepd"

    public init(json params: JSONValue?) throws(RPCError) {
        let reader = try ParamReader(params, method: RPCMethod.samplesAdd.rawValue,
                                     allowed: ["source", "start", "end", "steps", "distance_m", "user_entered"])
        guard let source = try reader.identifier("source", maxLength: 64) else {
            throw .invalidParams("samples.add needs \"source\" (letters, digits, '.', '_', '-'; at most 64 bytes)")
        }
        guard source != Self.reservedSource else {
            throw .validationFailed("source \"stepd\" is reserved for the agent's own detections; name your source")
        }
        self.source = source
        start = try reader.requiredTimestamp("start")
        end = try reader.requiredTimestamp("end")
        guard end > start else { throw .validationFailed("\"end\" must be after \"start\"") }
        guard end - start <= 86_400 else { throw .validationFailed("one sample may span at most 86400 s; split longer periods") }
        steps = try reader.requiredInt("steps", in: 0...200_000)
        // 12.5 steps/s is beyond any human cadence: such a sample is a unit mistake.
        guard Double(steps) <= (end - start) * 12.5 else {
            throw .validationFailed("\(steps) steps in \(JSONValue.double(end - start).jsonText) s is more than 12.5 steps/s")
        }
        distanceMeters = try reader.double("distance_m", in: 0...500_000)
        userEntered = try reader.bool("user_entered") ?? false
    }

    public var json: JSONValue {
        var o: JSONObject = ["source": .string(source), "start": .double(start), "end": .double(end), "steps": .int(steps)]
        if let distanceMeters { o["distance_m"] = .double(distanceMeters) }
        o["user_entered"] = .bool(userEntered)
        return .object(o)
    }
}

/// `samples.delete`: removes samples a source added earlier.
public struct SamplesDeleteParams: Sendable, Equatable {
    public var source: String
    public var ids: [String]

    public init(source: String, ids: [String]) {
        self.source = source
        self.ids = ids
    }

    public init(json params: JSONValue?) throws(RPCError) {
        let reader = try ParamReader(params, method: RPCMethod.samplesDelete.rawValue, allowed: ["source", "ids"])
        guard let source = try reader.identifier("source", maxLength: 64) else {
            throw .invalidParams("samples.delete needs \"source\", the source the samples were added under")
        }
        guard source != SamplesAddParams.reservedSource else {
            throw .validationFailed("the agent's own detections (source \"stepd\") cannot be deleted")
        }
        self.source = source
        guard let ids = try reader.stringArray("ids", maxCount: 1000, maxLength: 64) else {
            throw .invalidParams("samples.delete needs \"ids\": the ids samples.add returned")
        }
        self.ids = ids
    }
}

/// `ledger.export`: records after `anchor`, oldest first.
public struct LedgerExportParams: Sendable, Equatable {
    public var anchor: Int64
    public var limit: Int

    public init(anchor: Int64 = 0, limit: Int = 1000) {
        self.anchor = anchor
        self.limit = limit
    }

    public init(json params: JSONValue?) throws(RPCError) {
        let reader = try ParamReader(params, method: RPCMethod.ledgerExport.rawValue, allowed: ["anchor", "limit"])
        anchor = try reader.int64("anchor", in: 0...Int64.max) ?? 0
        limit = try reader.int("limit", in: 1...10_000) ?? 1000
    }
}

/// `ledger.ack`: the client has stored everything up to and including `anchor`.
public struct LedgerAckParams: Sendable, Equatable {
    public var anchor: Int64
    public init(anchor: Int64) { self.anchor = anchor }

    public init(json params: JSONValue?) throws(RPCError) {
        let reader = try ParamReader(params, method: RPCMethod.ledgerAck.rawValue, allowed: ["anchor"])
        guard let anchor = try reader.int64("anchor", in: 0...Int64.max) else {
            throw .invalidParams("ledger.ack needs \"anchor\": the next_anchor of the last export you stored")
        }
        self.anchor = anchor
    }
}

/// `recording.start`: raw accelerometer capture for field testers.
public struct RecordingStartParams: Sendable, Equatable {
    public var minutes: Int
    public var label: String?

    public init(minutes: Int = 10, label: String? = nil) {
        self.minutes = minutes
        self.label = label
    }

    public init(json params: JSONValue?) throws(RPCError) {
        let reader = try ParamReader(params, method: RPCMethod.recordingStart.rawValue, allowed: ["minutes", "label"])
        minutes = try reader.int("minutes", in: 1...240) ?? 10
        label = try reader.identifier("label", maxLength: 48)
    }
}

/// Methods without params accept none, `{}` or `[]`.
public enum NoParams {
    public static func check(_ params: JSONValue?, method: RPCMethod) throws(RPCError) {
        _ = try ParamReader(params, method: method.rawValue, allowed: [])
    }
}
