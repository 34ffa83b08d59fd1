import StepJSON
import StepdModel

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

/// On the wire a bucket length is `{"minutes": N}`, `{"hours": N}` or `{"days": N}`, at most a
/// day, a month or a year of them.
extension BucketInterval.Unit {
    var maxCount: Int {
        switch self {
        case .minutes: return 1440
        case .hours: return 744
        case .days: return 366
        }
    }
}

extension BucketInterval {
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

/// Which samples a query counts, the same two fields on every query: `sources` (only these,
/// like HealthKit's `predicateForObjects(from:)`; default every source) and
/// `include_user_entered` (default true, as HealthKit statistics count them).
public struct SampleSelection: Sendable, Equatable {
    public var sources: [String]?
    public var includeUserEntered: Bool

    public init(sources: [String]? = nil, includeUserEntered: Bool = true) {
        self.sources = sources
        self.includeUserEntered = includeUserEntered
    }

    static let fields = ["sources", "include_user_entered"]

    static func read(_ reader: ParamReader) throws(RPCError) -> SampleSelection {
        SampleSelection(sources: try reader.sourceNames("sources"),
                        includeUserEntered: try reader.bool("include_user_entered") ?? true)
    }

    func write(into o: inout JSONObject) {
        if let sources { o["sources"] = .array(sources.map { .string($0) }) }
        if !includeUserEntered { o["include_user_entered"] = false }
    }
}

/// Most buckets one statistics or collection request may produce.
public let maxBucketsPerRequest = 10_000
/// Longest span of one query (about 10 years).
public let maxQuerySpanSeconds: Double = 3660 * 86_400

/// Refuses more than `maxBucketsPerRequest` buckets. With an `anchor` the first and last
/// buckets may be partial, so they are counted from the anchor, not from the range length.
/// The agent checks the exact count again after laying out day buckets in the query's zone.
public func checkBucketCount(start: Double, end: Double, anchor: Double?, interval: BucketInterval) throws(RPCError) {
    let length = interval.nominalSeconds
    let origin = anchor ?? start
    let buckets = ((end - origin) / length).rounded(.up) - ((start - origin) / length).rounded(.down)
    guard buckets <= Double(maxBucketsPerRequest) else {
        throw .validationFailed("\(buckets < 1e15 ? String(Int(buckets)) : "too many") buckets of \(interval.count) \(interval.unit.rawValue); at most \(maxBucketsPerRequest) per request: use a longer interval or a shorter range")
    }
}

private func checkBucketCount(_ range: QueryRange, anchor: Double? = nil, _ interval: BucketInterval) throws(RPCError) {
    guard case .between(let start, let end) = range else { return }
    try checkBucketCount(start: start, end: end, anchor: anchor, interval: interval)
}

/// `steps.query`: totals over a range.
public struct StepsQueryParams: Sendable, Equatable {
    public var range: QueryRange
    public var timeZone: String?
    public var bySource: Bool
    public var selection: SampleSelection

    public init(range: QueryRange, timeZone: String? = nil, bySource: Bool = false, selection: SampleSelection = .init()) {
        self.range = range
        self.timeZone = timeZone
        self.bySource = bySource
        self.selection = selection
    }

    public init(json params: JSONValue?) throws(RPCError) {
        let method = RPCMethod.stepsQuery.rawValue
        let reader = try ParamReader(params, method: method,
                                     allowed: QueryRange.fields + ["time_zone", "by_source"] + SampleSelection.fields)
        range = try QueryRange.read(reader, method: method, maxSpan: maxQuerySpanSeconds)
        timeZone = try reader.timeZone()
        bySource = try reader.bool("by_source") ?? false
        selection = try SampleSelection.read(reader)
    }

    public var json: JSONValue {
        var o = range.json
        if let timeZone { o["time_zone"] = .string(timeZone) }
        if bySource { o["by_source"] = true }
        selection.write(into: &o)
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
    public var selection: SampleSelection

    public init(range: QueryRange, timeZone: String? = nil, bucket: BucketInterval = BucketInterval(.days, 1),
                options: [StatisticsOption] = [.sum], selection: SampleSelection = .init()) {
        self.range = range
        self.timeZone = timeZone
        self.bucket = bucket
        self.options = options
        self.selection = selection
    }

    public init(json params: JSONValue?) throws(RPCError) {
        let method = RPCMethod.stepsStatistics.rawValue
        let reader = try ParamReader(params, method: method, allowed: QueryRange.fields + ["time_zone", "bucket", "options"] + SampleSelection.fields)
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
        selection = try SampleSelection.read(reader)
        try checkBucketCount(range, bucket)
    }

    public var json: JSONValue {
        var o = range.json
        if let timeZone { o["time_zone"] = .string(timeZone) }
        o["bucket"] = bucket.json
        o["options"] = .array(options.map { .string($0.rawValue) })
        selection.write(into: &o)
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
    public var selection: SampleSelection

    public init(range: QueryRange, timeZone: String? = nil, anchor: Double? = nil, interval: BucketInterval,
                bySource: Bool = false, selection: SampleSelection = .init()) {
        self.range = range
        self.timeZone = timeZone
        self.anchor = anchor
        self.interval = interval
        self.bySource = bySource
        self.selection = selection
    }

    public init(json params: JSONValue?) throws(RPCError) {
        let method = RPCMethod.stepsCollection.rawValue
        let reader = try ParamReader(params, method: method,
                                     allowed: QueryRange.fields + ["time_zone", "anchor", "interval", "by_source"] + SampleSelection.fields)
        range = try QueryRange.read(reader, method: method, maxSpan: maxQuerySpanSeconds)
        timeZone = try reader.timeZone()
        anchor = try reader.timestamp("anchor")
        guard let intervalObject = try reader.objectValue("interval") else {
            throw .invalidParams("steps.collection needs \"interval\": {\"minutes\"|\"hours\"|\"days\": N}")
        }
        interval = try BucketInterval.read(intervalObject, key: "interval")
        bySource = try reader.bool("by_source") ?? false
        selection = try SampleSelection.read(reader)
        try checkBucketCount(range, anchor: anchor, interval)
    }

    public var json: JSONValue {
        var o = range.json
        if let timeZone { o["time_zone"] = .string(timeZone) }
        if let anchor { o["anchor"] = .double(anchor) }
        o["interval"] = interval.json
        if bySource { o["by_source"] = true }
        selection.write(into: &o)
        return .object(o)
    }
}

/// `activity.query`: activity segments overlapping a range.
public struct ActivityQueryParams: Sendable, Equatable {
    /// The longest range one `activity.query` covers.
    public static let maximumSpanSeconds: Double = 31 * 86_400
    public var range: QueryRange
    public var timeZone: String?

    public init(range: QueryRange, timeZone: String? = nil) {
        self.range = range
        self.timeZone = timeZone
    }

    public init(json params: JSONValue?) throws(RPCError) {
        let method = RPCMethod.activityQuery.rawValue
        let reader = try ParamReader(params, method: method, allowed: QueryRange.fields + ["time_zone"])
        range = try QueryRange.read(reader, method: method, maxSpan: Self.maximumSpanSeconds)
        timeZone = try reader.timeZone()
    }
}

/// `steps.subscribe`: a `steps.update` notification each `update_on` steps.
public struct StepsSubscribeParams: Sendable, Equatable {
    /// What `update_on` takes (stepctl watch --update-on checks the same before connecting).
    public static let updateOnRange = 1...100_000
    public var updateOn: Int
    /// Count from this UTC time instead of from now (CMPedometer `startUpdates(from:)`): the
    /// steps already in the ledger since then are included and sent at once.
    public var from: Double?
    /// How far back `from` may reach (CMPedometer keeps seven days).
    public static let maximumLookback: Double = 7 * 86_400

    public init(updateOn: Int = 1, from: Double? = nil) {
        self.updateOn = updateOn
        self.from = from
    }

    public init(json params: JSONValue?) throws(RPCError) {
        let reader = try ParamReader(params, method: RPCMethod.stepsSubscribe.rawValue, allowed: ["update_on", "from"])
        updateOn = try reader.int("update_on", in: Self.updateOnRange) ?? 1
        from = try reader.timestamp("from")
    }

    public var json: JSONValue {
        var o: JSONObject = ["update_on": .int(updateOn)]
        if let from { o["from"] = .double(from) }
        return .object(o)
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

/// One sample of a `samples.add` call.
public struct SampleInput: Sendable, Equatable {
    /// `kind:id` (see `SourceName`); a bare id is `app:<id>`.
    public var source: String
    public var start: Double
    public var end: Double
    public var steps: Int
    public var distanceMeters: Double?
    public var userEntered: Bool
    /// The client's own id for the sample (HKMetadataKeySyncIdentifier) and its version.
    public var syncIdentifier: String?
    public var syncVersion: Int64?

    public init(source: String, start: Double, end: Double, steps: Int, distanceMeters: Double? = nil,
                userEntered: Bool = false, syncIdentifier: String? = nil, syncVersion: Int64? = nil) {
        self.source = source
        self.start = start
        self.end = end
        self.steps = steps
        self.distanceMeters = distanceMeters
        self.userEntered = userEntered
        self.syncIdentifier = syncIdentifier
        self.syncVersion = syncVersion
    }

    static let fields = ["source", "start", "end", "steps", "distance_m", "user_entered", "sync_identifier", "sync_version"]

    init(_ reader: ParamReader, method: String) throws(RPCError) {
        guard let source = try reader.sourceName("source") else {
            throw .invalidParams("\(method) needs \"source\", a source name kind:id such as \"app:phone\" or \"device:watch-1\"")
        }
        guard let name = SourceName(source), !name.isDetector else {
            throw .validationFailed("source kind \"detector\" is reserved for the agent's own detections; name your source (e.g. app:phone)")
        }
        self.source = source
        start = try reader.requiredTimestamp("start")
        end = try reader.requiredTimestamp("end")
        steps = try reader.requiredInt("steps", in: 0...200_000)
        if let problem = Self.spanProblem(start: start, end: end, steps: steps, startName: "\"start\"", endName: "\"end\"") {
            throw .validationFailed(problem)
        }
        distanceMeters = try reader.double("distance_m", in: 0...500_000)
        userEntered = try reader.bool("user_entered") ?? false
        syncIdentifier = try reader.string("sync_identifier", maxLength: 128)
        if let syncIdentifier, !syncIdentifier.utf8.allSatisfy(SourceIdentifier.isValidByte) {
            throw .invalidParams("\"sync_identifier\" may only contain A-Z a-z 0-9 . _ - : @, got \(JSONValue.string(syncIdentifier).jsonText)")
        }
        syncVersion = try reader.int64("sync_version", in: 0...Int64(1) << 53)
        if syncVersion != nil && syncIdentifier == nil {
            throw .invalidParams("\"sync_version\" needs \"sync_identifier\"")
        }
    }

    /// What is wrong with a sample's period and steps, or nil: the one statement of these rules,
    /// so a client (stepctl) can refuse a bad command line before connecting, naming its own
    /// fields (`--start`) where the agent names the protocol's (`"start"`).
    public static func spanProblem(start: Double, end: Double, steps: Int, startName: String, endName: String) -> String? {
        guard end > start else { return "\(endName) must be after \(startName)" }
        let maxSpan = SampleLimits.maximumDurationSeconds
        guard end - start <= maxSpan else { return "one sample may span at most \(Int(maxSpan)) s (\(startName) to \(endName)); split longer periods" }
        let rate = SampleLimits.maximumStepsPerSecond
        if Double(steps) > ((end - start) * rate).rounded(.up) {
            return "\(steps) steps in \(JSONValue.double(end - start).jsonText) s is more than \(JSONValue.double(rate).jsonText) steps/s"
        }
        return nil
    }

    public var json: JSONObject {
        var o: JSONObject = ["source": .string(source), "start": .double(start), "end": .double(end), "steps": .int(steps)]
        if let distanceMeters { o["distance_m"] = .double(distanceMeters) }
        if userEntered { o["user_entered"] = true }
        if let syncIdentifier { o["sync_identifier"] = .string(syncIdentifier) }
        if let syncVersion { o["sync_version"] = .int64(syncVersion) }
        return o
    }
}

/// `samples.add`: steps from other sources (a phone, a treadmill) or entered by the user. One
/// sample's fields as params, or `"samples": [...]` for several added all or none.
public struct SamplesAddParams: Sendable, Equatable {
    public var samples: [SampleInput]

    public init(samples: [SampleInput]) { self.samples = samples }
    public init(_ sample: SampleInput) { self.samples = [sample] }

    public init(json params: JSONValue?) throws(RPCError) {
        let method = RPCMethod.samplesAdd.rawValue
        let reader = try ParamReader(params, method: method, allowed: SampleInput.fields + ["samples"])
        guard let list = reader.object["samples"], !list.isNull else {
            samples = [try SampleInput(reader, method: method)]
            return
        }
        guard reader.object.count == 1 else {
            throw .invalidParams("give either one sample's fields or \"samples\": [...], not both")
        }
        guard let array = list.arrayValue, !array.isEmpty, array.count <= SampleLimits.maximumPerCall else {
            throw .invalidParams("\"samples\" must be an array of 1 to \(SampleLimits.maximumPerCall) sample objects")
        }
        var parsed: [SampleInput] = []
        parsed.reserveCapacity(array.count)
        for (index, element) in array.enumerated() {
            guard element.objectValue != nil else { throw .invalidParams("\"samples\"[\(index)] must be an object, got \(element.kindName)") }
            do throws(RPCError) {
                let inner = try ParamReader(element, method: method, allowed: SampleInput.fields)
                parsed.append(try SampleInput(inner, method: method))
            } catch {
                throw RPCError(code: error.code, message: "samples[\(index)]: " + error.message + " (none were added)")
            }
        }
        samples = parsed
    }

    public var json: JSONValue {
        if samples.count == 1 { return .object(samples[0].json) }
        return ["samples": .array(samples.map { .object($0.json) })]
    }
}

/// `samples.delete`: removes samples a source added earlier, all or none.
public struct SamplesDeleteParams: Sendable, Equatable {
    public var source: String
    public var ids: [String]

    public init(source: String, ids: [String]) {
        self.source = source
        self.ids = ids
    }

    public init(json params: JSONValue?) throws(RPCError) {
        let reader = try ParamReader(params, method: RPCMethod.samplesDelete.rawValue, allowed: ["source", "ids"])
        guard let source = try reader.sourceName("source") else {
            throw .invalidParams("samples.delete needs \"source\", the source the samples were added under (kind:id)")
        }
        guard SourceName(source)?.isDetector != true else {
            throw .validationFailed("the agent's own detections (kind detector) cannot be deleted")
        }
        self.source = source
        guard let ids = try reader.stringArray("ids", maxCount: 1000, maxLength: 64) else {
            throw .invalidParams("samples.delete needs \"ids\": the ids samples.add returned")
        }
        self.ids = ids
    }

    public var json: JSONValue { ["source": .string(source), "ids": .array(ids.map { .string($0) })] }
}

/// `samples.list`: samples that start in a range, by start time (like HKSampleQuery).
public struct SamplesListParams: Sendable, Equatable {
    public var range: QueryRange
    public var timeZone: String?
    public var selection: SampleSelection
    public var limit: Int
    public static let maximumLimit = 2000

    public init(range: QueryRange, timeZone: String? = nil, selection: SampleSelection = .init(), limit: Int = 500) {
        self.range = range
        self.timeZone = timeZone
        self.selection = selection
        self.limit = limit
    }

    public init(json params: JSONValue?) throws(RPCError) {
        let method = RPCMethod.samplesList.rawValue
        let reader = try ParamReader(params, method: method, allowed: QueryRange.fields + ["time_zone", "limit"] + SampleSelection.fields)
        range = try QueryRange.read(reader, method: method, maxSpan: maxQuerySpanSeconds)
        timeZone = try reader.timeZone()
        selection = try SampleSelection.read(reader)
        limit = try reader.int("limit", in: 1...Self.maximumLimit) ?? 500
    }

    public var json: JSONValue {
        var o = range.json
        if let timeZone { o["time_zone"] = .string(timeZone) }
        selection.write(into: &o)
        o["limit"] = .int(limit)
        return .object(o)
    }
}

/// `sources.priority` (admin): which sources win where samples overlap, first wins.
public struct SourcesPriorityParams: Sendable, Equatable {
    public var order: [String]
    public init(order: [String]) { self.order = order }

    public init(json params: JSONValue?) throws(RPCError) {
        let reader = try ParamReader(params, method: RPCMethod.sourcesPriority.rawValue, allowed: ["order"])
        guard reader.has("order") else {
            throw .invalidParams("sources.priority needs \"order\": source names, the winner first (sources.list shows them)")
        }
        // [] clears the order, as documented (it was refused as "must not be empty", so
        // `stepctl sources priority ""` could not clear it either).
        order = try reader.sourceNames("order", allowEmpty: true) ?? []
    }

    public var json: JSONValue { ["order": .array(order.map { .string($0) })] }
}

/// `ledger.export`: records after `anchor`, oldest first.
public struct LedgerExportParams: Sendable, Equatable {
    /// What `limit` takes (stepctl sync export --limit checks the same before connecting).
    public static let limitRange = 1...10_000
    public var anchor: Int64
    public var limit: Int

    public init(anchor: Int64 = 0, limit: Int = 1000) {
        self.anchor = anchor
        self.limit = limit
    }

    public init(json params: JSONValue?) throws(RPCError) {
        let reader = try ParamReader(params, method: RPCMethod.ledgerExport.rawValue, allowed: ["anchor", "limit"])
        anchor = try reader.int64("anchor", in: 0...Int64.max) ?? 0
        limit = try reader.int("limit", in: Self.limitRange) ?? 1000
    }

    public var json: JSONValue { ["anchor": .int64(anchor), "limit": .int(limit)] }
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

    public var json: JSONValue { ["anchor": .int64(anchor)] }
}

/// `recording.start`: raw accelerometer capture for field testers.
public struct RecordingStartParams: Sendable, Equatable {
    /// What `minutes` takes (stepctl record --minutes checks the same before connecting).
    public static let minutesRange = 1...240
    public var minutes: Int
    public var label: String?

    public init(minutes: Int = 10, label: String? = nil) {
        self.minutes = minutes
        self.label = label
    }

    public init(json params: JSONValue?) throws(RPCError) {
        let reader = try ParamReader(params, method: RPCMethod.recordingStart.rawValue, allowed: ["minutes", "label"])
        minutes = try reader.int("minutes", in: Self.minutesRange) ?? 10
        label = try reader.identifier("label", maxLength: 48)
    }

    public var json: JSONValue {
        var o: JSONObject = ["minutes": .int(minutes)]
        if let label { o["label"] = .string(label) }
        return .object(o)
    }
}

/// Methods without params accept none, `{}` or `[]`.
public enum NoParams {
    public static func check(_ params: JSONValue?, method: RPCMethod) throws(RPCError) {
        _ = try ParamReader(params, method: method.rawValue, allowed: [])
    }
}
