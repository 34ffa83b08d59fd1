import StepJSON
import StepdModel

/// A result that does not have the shape this client's result types expect: the agent and
/// the client drifted apart.
public struct ResultDecodingError: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// Typed reads of one result object; each failure names the field and what was expected.
struct Fields {
    let object: JSONObject
    let context: String

    init(_ value: JSONValue, _ context: String) throws(ResultDecodingError) {
        guard let object = value.objectValue else { throw ResultDecodingError("\(context): expected an object, got \(value.kindName)") }
        self.object = object
        self.context = context
    }

    private func fail(_ key: String, _ what: String) -> ResultDecodingError {
        ResultDecodingError("\(context).\(key): expected \(what), got \(object[key]?.kindName ?? "nothing")")
    }
    private func present(_ key: String) -> JSONValue? {
        guard let value = object[key], !value.isNull else { return nil }
        return value
    }

    func double(_ key: String) throws(ResultDecodingError) -> Double {
        guard let d = object[key]?.doubleValue else { throw fail(key, "a number") }
        return d
    }
    func optionalDouble(_ key: String) throws(ResultDecodingError) -> Double? {
        guard let value = present(key) else { return nil }
        guard let d = value.doubleValue else { throw fail(key, "a number or null") }
        return d
    }
    /// `key`, else its deprecated name, which an agent from before `key` sends alone.
    func double(_ key: String, deprecated old: String) throws(ResultDecodingError) -> Double {
        object[key] == nil ? try double(old) : try double(key)
    }
    func int(_ key: String, deprecated old: String) throws(ResultDecodingError) -> Int {
        object[key] == nil ? try int(old) : try int(key)
    }
    func int(_ key: String) throws(ResultDecodingError) -> Int {
        guard let i = object[key]?.intValue else { throw fail(key, "an integer") }
        return i
    }
    func optionalInt(_ key: String) throws(ResultDecodingError) -> Int? {
        guard let value = present(key) else { return nil }
        guard let i = value.intValue else { throw fail(key, "an integer or null") }
        return i
    }
    func int64(_ key: String) throws(ResultDecodingError) -> Int64 {
        guard let i = object[key]?.int64Value else { throw fail(key, "an integer") }
        return i
    }
    func optionalInt64(_ key: String) throws(ResultDecodingError) -> Int64? {
        guard let value = present(key) else { return nil }
        guard let i = value.int64Value else { throw fail(key, "an integer or null") }
        return i
    }
    func bool(_ key: String) throws(ResultDecodingError) -> Bool {
        guard let b = object[key]?.boolValue else { throw fail(key, "true or false") }
        return b
    }
    func string(_ key: String) throws(ResultDecodingError) -> String {
        guard let s = object[key]?.stringValue else { throw fail(key, "a string") }
        return s
    }
    func optionalString(_ key: String) throws(ResultDecodingError) -> String? {
        guard let value = present(key) else { return nil }
        guard let s = value.stringValue else { throw fail(key, "a string or null") }
        return s
    }
    func strings(_ key: String) throws(ResultDecodingError) -> [String] {
        guard let array = object[key]?.arrayValue else { throw fail(key, "an array of strings") }
        var out: [String] = []
        for element in array {
            guard let s = element.stringValue else { throw fail(key, "an array of strings") }
            out.append(s)
        }
        return out
    }
    func array(_ key: String) throws(ResultDecodingError) -> [JSONValue] {
        guard let array = object[key]?.arrayValue else { throw fail(key, "an array") }
        return array
    }
    func optionalArray(_ key: String) throws(ResultDecodingError) -> [JSONValue]? {
        guard let value = present(key) else { return nil }
        guard let array = value.arrayValue else { throw fail(key, "an array") }
        return array
    }
    func nested(_ key: String) throws(ResultDecodingError) -> Fields {
        guard let value = object[key] else { throw fail(key, "an object") }
        return try Fields(value, "\(context).\(key)")
    }
    /// `key`'s object, nil when it is null or absent.
    func optionalNested(_ key: String) throws(ResultDecodingError) -> Fields? {
        guard let value = present(key) else { return nil }
        return try Fields(value, "\(context).\(key)")
    }
    func rawEnum<E: RawRepresentable>(_ key: String, _ type: E.Type) throws(ResultDecodingError) -> E where E.RawValue == String {
        guard let e = object[key]?.stringValue.flatMap(E.init(rawValue:)) else { throw fail(key, "one of the known \(E.self) names") }
        return e
    }
}

extension BucketInterval {
    init(decoding value: JSONValue, _ context: String) throws(ResultDecodingError) {
        guard let o = value.objectValue, o.count == 1, let member = o.members.first,
              let unit = Unit(rawValue: member.key), let count = member.value.intValue else {
            throw ResultDecodingError("\(context): expected {\"minutes\"|\"hours\"|\"days\": N}")
        }
        self.init(unit, count)
    }
}

extension StatusResult {
    /// Members the agent sends beyond the typed ones land in `extra`.
    public init(json: JSONValue) throws(ResultDecodingError) {
        let f = try Fields(json, "status")
        let version = try f.int("protocol_version")
        guard version == stepdProtocolVersion else {
            throw ResultDecodingError("the agent speaks protocol_version \(version), this client \(stepdProtocolVersion): update the older one")
        }
        let board = try f.nested("board"), sensor = try f.nested("sensor"), caps = try f.nested("capabilities")
        let steps = try f.nested("steps"), ledger = try f.nested("ledger")
        var known: Set<String> = ["protocol_version", "version", "uptime_s", "board", "sensor", "capabilities", "steps",
                                  "activity", "ledger", "clients"]
        var details: AgentDetails?
        if f.object["state_directory"] != nil {
            details = AgentDetails(recording: try f.bool("recording"), sensorDescription: try f.string("sensor_description"),
                                   replaySpeed: try f.double("replay_speed"), stateDirectory: try f.string("state_directory"),
                                   timeZone: try f.optionalString("time_zone"), time: try f.optionalDouble("time"),
                                   lastRecording: try f.optionalNested("last_recording").map { (fields) throws(ResultDecodingError) in
                                       try RecordingOutcome(fields: fields)
                                   })
            known.formUnion(["recording", "sensor_description", "replay_speed", "state_directory", "time_zone", "time", "last_recording"])
        }
        var extra = JSONObject()
        for member in f.object.members where !known.contains(member.key) { extra[member.key] = member.value }
        self.init(
            version: try f.string("version"), uptimeSeconds: try f.double("uptime_s"),
            board: Board(name: try board.string("name"), file: try board.optionalString("file")),
            sensor: Sensor(model: try sensor.optionalString("model"), address: try sensor.optionalInt("address"),
                           bus: try sensor.string("bus"), health: try sensor.rawEnum("health", SensorHealth.self),
                           samples: try sensor.int("samples"), errors: try sensor.int("errors"),
                           overflows: try sensor.int("overflows"), reinits: try sensor.int("reinits"),
                           rateHz: try sensor.optionalDouble("rate_hz"), lastError: try sensor.optionalString("last_error"),
                           deliveredHz: try sensor.optionalDouble("delivered_hz")),
            capabilities: Capabilities(stepCounting: try caps.bool("step_counting"), distance: try caps.bool("distance"),
                                       cadence: try caps.bool("cadence"), pace: try caps.bool("pace"),
                                       floors: try caps.bool("floors"), activity: try caps.bool("activity")),
            stepsToday: try steps.int("today"), stepsSinceStart: try steps.int("since_start"),
            activity: try ActivityResult(json: f.object["activity"] ?? .null),
            ledger: Ledger(health: try ledger.string("health"), records: try ledger.int("records"),
                           unsavedSteps: try ledger.int("unsaved_steps"), lastCheckpoint: try ledger.optionalDouble("last_checkpoint"),
                           message: try ledger.optionalString("message"), backlogRecords: try ledger.int("backlog_records")),
            clients: try f.int("clients"), details: details, extra: extra)
    }
}

extension SourceTotal {
    init(decoding value: JSONValue) throws(ResultDecodingError) {
        let f = try Fields(value, "by_source[]")
        self.init(source: try f.string("source"), steps: try f.int("steps"), distanceMeters: try f.double("distance_m"))
    }
}

private func sourceTotals(_ values: [JSONValue]?) throws(ResultDecodingError) -> [SourceTotal]? {
    guard let values else { return nil }
    var out: [SourceTotal] = []
    for value in values { out.append(try SourceTotal(decoding: value)) }
    return out
}

extension StepsQueryResult {
    public init(json: JSONValue) throws(ResultDecodingError) {
        let f = try Fields(json, "steps.query")
        self.init(start: try f.double("start"), end: try f.double("end"), steps: try f.int("steps"),
                  distanceMeters: try f.double("distance_m"), cadenceStepsPerMinute: try f.optionalDouble("cadence_spm"),
                  paceSecondsPerMeter: try f.optionalDouble("pace_s_per_m"),
                  bySource: try sourceTotals(f.optionalArray("by_source")))
    }
}

extension StepsStatisticsResult {
    public init(json: JSONValue) throws(ResultDecodingError) {
        let f = try Fields(json, "steps.statistics")
        self.init(start: try f.double("start"), end: try f.double("end"),
                  bucket: try BucketInterval(decoding: f.object["bucket"] ?? .null, "steps.statistics.bucket"),
                  buckets: try f.int("buckets"), sum: try f.optionalInt("sum"), min: try f.optionalInt("min"),
                  max: try f.optionalInt("max"), average: try f.optionalDouble("avg"))
    }
}

extension StepsCollectionResult {
    public init(json: JSONValue) throws(ResultDecodingError) {
        let f = try Fields(json, "steps.collection")
        var buckets: [CollectionBucket] = []
        for value in try f.array("buckets") {
            let b = try Fields(value, "steps.collection.buckets[]")
            buckets.append(CollectionBucket(start: try b.double("start"), end: try b.double("end"), steps: try b.int("steps"),
                                            distanceMeters: try b.double("distance_m"),
                                            bySource: try sourceTotals(b.optionalArray("by_source"))))
        }
        self.init(timeZone: try f.string("time_zone"),
                  interval: try BucketInterval(decoding: f.object["interval"] ?? .null, "steps.collection.interval"),
                  anchor: try f.double("anchor"), buckets: buckets, more: try f.bool("more"),
                  nextStart: try f.optionalDouble("next_start"))
    }
}

extension ActivityResult {
    public init(json: JSONValue) throws(ResultDecodingError) {
        let f = try Fields(json, "activity")
        self.init(kind: try f.rawEnum("type", ActivityKind.self), confidence: try f.rawEnum("confidence", ActivityConfidence.self),
                  start: try f.optionalDouble("start"))
    }
}

extension ActivityQueryResult {
    public init(json: JSONValue) throws(ResultDecodingError) {
        let f = try Fields(json, "activity.query")
        var segments: [ActivitySegment] = []
        for value in try f.array("segments") {
            let s = try Fields(value, "activity.query.segments[]")
            segments.append(ActivitySegment(kind: try s.rawEnum("type", ActivityKind.self),
                                            confidence: try s.rawEnum("confidence", ActivityConfidence.self),
                                            start: try s.double("start"), end: try s.double("end")))
        }
        self.init(segments: segments)
    }
}

extension SubscribeResult {
    public init(json: JSONValue) throws(ResultDecodingError) {
        self.init(subscription: try Fields(json, "subscribe").int("subscription"))
    }
}

extension SamplesAddResult {
    public init(json: JSONValue) throws(ResultDecodingError) {
        var samples: [AddedSample] = []
        for value in try Fields(json, "samples.add").array("samples") {
            let s = try Fields(value, "samples.add.samples[]")
            samples.append(AddedSample(id: try s.string("id"), status: try s.rawEnum("status", SampleAddStatus.self)))
        }
        self.init(samples: samples)
    }
}

extension SamplesDeleteResult {
    public init(json: JSONValue) throws(ResultDecodingError) {
        let f = try Fields(json, "samples.delete")
        // deleted_count since protocol 2's naming pass; an older agent sends only "deleted".
        self.init(deleted: try f.int("deleted_count", deprecated: "deleted"), notFound: try f.strings("not_found"), alreadyDeleted: try f.strings("already_deleted"))
    }
}

extension SamplesListResult {
    public init(json: JSONValue) throws(ResultDecodingError) {
        let f = try Fields(json, "samples.list")
        var samples: [ListedSample] = []
        for value in try f.array("samples") {
            let s = try Fields(value, "samples.list.samples[]")
            samples.append(ListedSample(
                id: try s.string("id"), source: try s.string("source"), start: try s.double("start"), end: try s.double("end"),
                utcOffset: try s.int("utc_offset"), steps: try s.int("steps"), distanceMeters: try s.double("distance_m"),
                userEntered: try s.bool("user_entered"), syncIdentifier: try s.optionalString("sync_identifier"),
                syncVersion: try s.optionalInt64("sync_version")))
        }
        self.init(samples: samples, more: try f.bool("more"), nextStart: try f.optionalDouble("next_start"))
    }
}

extension SourcesResult {
    public init(json: JSONValue) throws(ResultDecodingError) {
        let f = try Fields(json, "sources")
        self.init(order: try f.strings("order"), ranked: try f.strings("ranked"))
    }
}

extension LedgerExportResult {
    public init(json: JSONValue) throws(ResultDecodingError) {
        let f = try Fields(json, "ledger.export")
        var records: [ExportedRecord] = []
        for value in try f.array("records") {
            let r = try Fields(value, "ledger.export.records[]")
            records.append(ExportedRecord(
                anchor: try r.int64("anchor"), id: try r.string("id"), source: try r.string("source"),
                start: try r.double("start"), end: try r.double("end"), steps: try r.int("steps"),
                distanceMeters: try r.double("distance_m"), userEntered: try r.bool("user_entered"),
                deleted: try r.bool("deleted"), utcOffset: try r.int("utc_offset")))
        }
        self.init(records: records, nextAnchor: try f.int64("next_anchor"), more: try f.bool("more"))
    }
}

extension LedgerAckResult {
    public init(json: JSONValue) throws(ResultDecodingError) {
        let f = try Fields(json, "ledger.ack")
        self.init(acknowledged: try f.int64("acknowledged"), pendingRecords: try f.int("pending_records"))
    }
}

extension RecordingOutcome {
    init(fields f: Fields) throws(ResultDecodingError) {
        self.init(file: try f.string("file"), samples: try f.int("samples"), error: try f.optionalString("error"))
    }
}

extension RecordingStartResult {
    public init(json: JSONValue) throws(ResultDecodingError) {
        let f = try Fields(json, "recording.start")
        self.init(file: try f.string("file"), until: try f.double("until"))
    }
}

extension RecordingStopResult {
    public init(json: JSONValue) throws(ResultDecodingError) {
        let f = try Fields(json, "recording.stop")
        // duration_s since protocol 2's naming pass; an older agent sends only "seconds".
        self.init(file: try f.string("file"), samples: try f.int("samples"), seconds: try f.double("duration_s", deprecated: "seconds"))
    }
}

extension StepsUpdateNotice {
    public init(json: JSONValue) throws(ResultDecodingError) {
        let f = try Fields(json, "steps.update")
        self.init(subscription: try f.int("subscription"), steps: try f.int("steps"), start: try f.double("start"),
                  end: try f.double("end"), distanceMeters: try f.optionalDouble("distance_m"))
    }
}

extension LedgerChangedNotice {
    public init(json: JSONValue) throws(ResultDecodingError) {
        let f = try Fields(json, "ledger.changed")
        var reasons: [Reason] = []
        for name in try f.strings("reasons") {
            guard let reason = Reason(rawValue: name) else { throw ResultDecodingError("ledger.changed.reasons: unknown \(name)") }
            reasons.append(reason)
        }
        self.init(subscription: try f.int("subscription"), reasons: reasons, latestAnchor: try f.int64("latest_anchor"))
    }
}
