import StepJSON
import StepdModel

/// A method result the server can send.
public protocol RPCResult: Sendable {
    var json: JSONValue { get }
}

/// `status`: everything a client needs to know whether counting works (the way
/// `CMPedometer.isStepCountingAvailable()` answers) and how the device is doing.
public struct StatusResult: RPCResult, Equatable {
    public struct Board: Sendable, Equatable {
        public var name: String
        public var file: String?
        public init(name: String, file: String?) {
            self.name = name
            self.file = file
        }
    }

    public struct Sensor: Sendable, Equatable {
        public var model: String?
        public var address: Int?
        public var bus: String
        public var health: SensorHealth
        public var samples: Int
        public var errors: Int
        public var overflows: Int
        public var reinits: Int
        /// The chip's sample rate as measured on the sensor clock (its oscillator is not exactly
        /// nominal); nil until measured.
        public var rateHz: Double?
        /// Samples per second delivered to the motion core (40 after resampling); nil until known.
        public var deliveredHz: Double?
        public var lastError: String?
        public init(model: String?, address: Int?, bus: String, health: SensorHealth, samples: Int, errors: Int,
                    overflows: Int, reinits: Int, rateHz: Double?, lastError: String?, deliveredHz: Double? = nil) {
            self.deliveredHz = deliveredHz
            self.model = model
            self.address = address
            self.bus = bus
            self.health = health
            self.samples = samples
            self.errors = errors
            self.overflows = overflows
            self.reinits = reinits
            self.rateHz = rateHz
            self.lastError = lastError
        }
    }

    public struct Capabilities: Sendable, Equatable {
        public var stepCounting: Bool
        public var distance: Bool
        public var cadence: Bool
        public var pace: Bool
        public var floors: Bool
        public var activity: Bool
        public init(stepCounting: Bool, distance: Bool, cadence: Bool, pace: Bool, floors: Bool = false, activity: Bool) {
            self.stepCounting = stepCounting
            self.distance = distance
            self.cadence = cadence
            self.pace = pace
            self.floors = floors
            self.activity = activity
        }
    }

    public struct Ledger: Sendable, Equatable {
        public var health: String
        public var records: Int
        public var unsavedSteps: Int
        public var lastCheckpoint: Double?
        /// Why the ledger is degraded (file, error, errno name), nil while healthy.
        public var message: String?
        /// Records held in memory because the disk could not take them.
        public var backlogRecords: Int
        public init(health: String, records: Int, unsavedSteps: Int, lastCheckpoint: Double?, message: String? = nil,
                    backlogRecords: Int = 0) {
            self.health = health
            self.records = records
            self.unsavedSteps = unsavedSteps
            self.lastCheckpoint = lastCheckpoint
            self.message = message
            self.backlogRecords = backlogRecords
        }
    }

    public var version: String
    public var uptimeSeconds: Double
    public var board: Board
    public var sensor: Sensor
    public var capabilities: Capabilities
    public var stepsToday: Int
    public var stepsSinceStart: Int
    public var activity: ActivityResult
    public var ledger: Ledger
    /// Filled in by the server (connected clients right now).
    public var clients: Int
    /// What stepd adds after `clients` (absent from other implementations, such as the bench's).
    public var details: AgentDetails?
    /// Other members appended to the object as is (a test or bench service's own figures).
    public var extra: JSONObject

    public init(version: String, uptimeSeconds: Double, board: Board, sensor: Sensor, capabilities: Capabilities,
                stepsToday: Int, stepsSinceStart: Int, activity: ActivityResult, ledger: Ledger, clients: Int = 0,
                details: AgentDetails? = nil, extra: JSONObject = JSONObject()) {
        self.details = details
        self.version = version
        self.uptimeSeconds = uptimeSeconds
        self.board = board
        self.sensor = sensor
        self.capabilities = capabilities
        self.stepsToday = stepsToday
        self.stepsSinceStart = stepsSinceStart
        self.activity = activity
        self.ledger = ledger
        self.clients = clients
        self.extra = extra
    }

    public var json: JSONValue {
        var sensorObject: JSONObject = [
            "model": .string(sensor.model),
            "address": sensor.address.map { .int($0) } ?? .null,
            "bus": .string(sensor.bus),
            "health": .string(sensor.health.rawValue),
            "samples": .int(sensor.samples),
            "errors": .int(sensor.errors),
            "overflows": .int(sensor.overflows),
            "reinits": .int(sensor.reinits),
            "rate_hz": .double(sensor.rateHz),
            "delivered_hz": .double(sensor.deliveredHz),
        ]
        sensorObject["last_error"] = .string(sensor.lastError)
        var object: JSONObject = [
            "protocol_version": .int(stepdProtocolVersion),
            "version": .string(version),
            "uptime_s": .double(uptimeSeconds),
            "board": ["name": .string(board.name), "file": .string(board.file)],
            "sensor": .object(sensorObject),
            "capabilities": [
                "step_counting": .bool(capabilities.stepCounting), "distance": .bool(capabilities.distance),
                "cadence": .bool(capabilities.cadence), "pace": .bool(capabilities.pace),
                "floors": .bool(capabilities.floors), "activity": .bool(capabilities.activity),
            ],
            "steps": ["today": .int(stepsToday), "since_start": .int(stepsSinceStart)],
            "activity": activity.json,
            "ledger": [
                "health": .string(ledger.health), "records": .int(ledger.records),
                "unsaved_steps": .int(ledger.unsavedSteps), "last_checkpoint": .double(ledger.lastCheckpoint),
                "backlog_records": .int(ledger.backlogRecords), "message": .string(ledger.message),
            ],
            "clients": .int(clients),
        ]
        if let details {
            object["recording"] = .bool(details.recording)
            object["sensor_description"] = .string(details.sensorDescription)
            object["replay_speed"] = .double(details.replaySpeed)
            object["state_directory"] = .string(details.stateDirectory)
            object["time_zone"] = details.timeZone.map { .string($0) } ?? .null
            if let time = details.time { object["time"] = .double(time) }
            object["last_recording"] = details.lastRecording?.json ?? .null
        }
        for member in extra.members where object[member.key] == nil { object[member.key] = member.value }
        return .object(object)
    }
}

/// The members stepd adds to `status`: whether a raw capture runs, what the sensor is, the
/// replay speed of a simulated one, and where the ledger and recordings are.
public struct AgentDetails: Sendable, Equatable {
    public var recording: Bool
    public var sensorDescription: String
    public var replaySpeed: Double
    public var stateDirectory: String
    /// The agent's zone by name ("today" and buckets without a time_zone follow it); nil when
    /// it has none, or from an agent that does not say.
    public var timeZone: String?
    /// The agent's "now" when it answered (UTC seconds on its calendar, which under `stepd
    /// --simulate-start` is not the machine's clock): what relative times such as "-1h" count
    /// back from. nil from an agent that does not say (one older than the member).
    public var time: Double?
    /// How the last raw capture of this run ended; nil before the first ends, or from an agent
    /// that does not say (one older than the member).
    public var lastRecording: RecordingOutcome?
    public init(recording: Bool, sensorDescription: String, replaySpeed: Double, stateDirectory: String,
                timeZone: String? = nil, time: Double? = nil, lastRecording: RecordingOutcome? = nil) {
        self.recording = recording
        self.sensorDescription = sensorDescription
        self.replaySpeed = replaySpeed
        self.stateDirectory = stateDirectory
        self.timeZone = timeZone
        self.time = time
        self.lastRecording = lastRecording
    }
}

/// `status.last_recording`: the file of the last raw capture, the samples in it, and what cut
/// it short (a failed write, the recordings cap; null when it ended whole, by its time limit or
/// recording.stop).
public struct RecordingOutcome: Sendable, Equatable {
    public var file: String
    public var samples: Int
    public var error: String?
    public init(file: String, samples: Int, error: String?) {
        self.file = file
        self.samples = samples
        self.error = error
    }
    public var json: JSONValue { ["file": .string(file), "samples": .int(samples), "error": .string(error)] }
}

/// Steps and distance one source contributed.
public struct SourceTotal: Sendable, Equatable {
    public var source: String
    public var steps: Int
    public var distanceMeters: Double
    public init(source: String, steps: Int, distanceMeters: Double) {
        self.source = source
        self.steps = steps
        self.distanceMeters = distanceMeters
    }

    public var json: JSONValue { ["source": .string(source), "steps": .int(steps), "distance_m": .double(distanceMeters)] }
}

/// `steps.query` result, the fields of `CMPedometerData`.
public struct StepsQueryResult: RPCResult, Equatable {
    public var start: Double
    public var end: Double
    public var steps: Int
    public var distanceMeters: Double
    /// Steps per minute while walking in the range; nil without steps.
    public var cadenceStepsPerMinute: Double?
    /// Seconds per metre (CMPedometer's `averageActivePace`); nil without distance.
    public var paceSecondsPerMeter: Double?
    public var bySource: [SourceTotal]?

    public init(start: Double, end: Double, steps: Int, distanceMeters: Double, cadenceStepsPerMinute: Double?,
                paceSecondsPerMeter: Double?, bySource: [SourceTotal]? = nil) {
        self.start = start
        self.end = end
        self.steps = steps
        self.distanceMeters = distanceMeters
        self.cadenceStepsPerMinute = cadenceStepsPerMinute
        self.paceSecondsPerMeter = paceSecondsPerMeter
        self.bySource = bySource
    }

    public var json: JSONValue {
        var o: JSONObject = [
            "start": .double(start), "end": .double(end), "steps": .int(steps), "distance_m": .double(distanceMeters),
            "cadence_spm": .double(cadenceStepsPerMinute), "pace_s_per_m": .double(paceSecondsPerMeter),
        ]
        if let bySource { o["by_source"] = .array(bySource.map(\.json)) }
        return .object(o)
    }
}

/// `steps.statistics` result; only the requested statistics are present.
public struct StepsStatisticsResult: RPCResult, Equatable {
    public var start: Double
    public var end: Double
    public var bucket: BucketInterval
    public var buckets: Int
    public var sum: Int?
    public var min: Int?
    public var max: Int?
    public var average: Double?

    public init(start: Double, end: Double, bucket: BucketInterval, buckets: Int, sum: Int?, min: Int?, max: Int?, average: Double?) {
        self.start = start
        self.end = end
        self.bucket = bucket
        self.buckets = buckets
        self.sum = sum
        self.min = min
        self.max = max
        self.average = average
    }

    public var json: JSONValue {
        var o: JSONObject = ["start": .double(start), "end": .double(end), "bucket": bucket.json, "buckets": .int(buckets)]
        if let sum { o["sum"] = .int(sum) }
        if let min { o["min"] = .int(min) }
        if let max { o["max"] = .int(max) }
        if let average { o["avg"] = .double(average) }
        return .object(o)
    }
}

/// One bucket of a `steps.collection`.
public struct CollectionBucket: Sendable, Equatable {
    public var start: Double
    public var end: Double
    public var steps: Int
    public var distanceMeters: Double
    public var bySource: [SourceTotal]?

    public init(start: Double, end: Double, steps: Int, distanceMeters: Double, bySource: [SourceTotal]? = nil) {
        self.start = start
        self.end = end
        self.steps = steps
        self.distanceMeters = distanceMeters
        self.bySource = bySource
    }

    public var json: JSONValue {
        var o: JSONObject = ["start": .double(start), "end": .double(end), "steps": .int(steps), "distance_m": .double(distanceMeters)]
        if let bySource { o["by_source"] = .array(bySource.map(\.json)) }
        return .object(o)
    }
}

/// `steps.collection` result.
/// A page ends early when the next bucket would not fit in one answer: ask again with
/// `start` = `next_start` and the same `anchor`.
public struct StepsCollectionResult: RPCResult, Equatable {
    public var timeZone: String
    public var interval: BucketInterval
    /// The time buckets are aligned to (pass it back with `next_start`).
    public var anchor: Double
    public var buckets: [CollectionBucket]
    public var more: Bool
    public var nextStart: Double?

    public init(timeZone: String, interval: BucketInterval, anchor: Double, buckets: [CollectionBucket], more: Bool = false,
                nextStart: Double? = nil) {
        self.timeZone = timeZone
        self.interval = interval
        self.anchor = anchor
        self.buckets = buckets
        self.more = more
        self.nextStart = nextStart
    }

    public var json: JSONValue {
        ["time_zone": .string(timeZone), "interval": interval.json, "anchor": .double(anchor),
         "buckets": .array(buckets.map(\.json)), "more": .bool(more), "next_start": .double(nextStart)]
    }
}

/// `activity.current` result and the `activity.update` payload; `start` is UTC seconds.
public struct ActivityResult: RPCResult, Equatable {
    public var kind: ActivityKind
    public var confidence: ActivityConfidence
    public var start: Double?

    public init(kind: ActivityKind, confidence: ActivityConfidence, start: Double?) {
        self.kind = kind
        self.confidence = confidence
        self.start = start
    }

    public var json: JSONValue {
        ["type": .string(kind.rawValue), "confidence": .string(confidence.rawValue), "start": .double(start)]
    }
}

extension ActivitySegment {
    public var json: JSONValue {
        ["type": .string(kind.rawValue), "confidence": .string(confidence.rawValue), "start": .double(start), "end": .double(end)]
    }
}

/// `activity.query` result, oldest first.
public struct ActivityQueryResult: RPCResult, Equatable {
    public var segments: [ActivitySegment]
    public init(segments: [ActivitySegment]) { self.segments = segments }
    public var json: JSONValue { ["segments": .array(segments.map(\.json))] }
}

/// `steps.subscribe` / `activity.subscribe` result.
public struct SubscribeResult: RPCResult, Equatable {
    public var subscription: Int
    public init(subscription: Int) { self.subscription = subscription }
    public var json: JSONValue { ["subscription": .int(subscription)] }
}

/// What `samples.add` did with one sample: `added`, `replaced` (a higher `sync_version` of
/// a held `sync_identifier`; the old sample is deleted) or `unchanged` (an equal or lower version).
public struct AddedSample: Sendable, Equatable {
    /// The id to delete the sample with (for `unchanged`, the sample already held).
    public var id: String
    public var status: SampleAddStatus
    public init(id: String, status: SampleAddStatus) {
        self.id = id
        self.status = status
    }
    public var json: JSONValue { ["id": .string(id), "status": .string(status.rawValue)] }
}

/// `samples.add` result, one entry per sample in request order.
public struct SamplesAddResult: RPCResult, Equatable {
    public var samples: [AddedSample]
    public init(samples: [AddedSample]) { self.samples = samples }
    public var json: JSONValue { ["samples": .array(samples.map(\.json))] }
}

/// `samples.delete` result; ids that were not found or already deleted are listed, not an error.
public struct SamplesDeleteResult: RPCResult, Equatable {
    public var deleted: Int
    public var notFound: [String]
    public var alreadyDeleted: [String]
    public init(deleted: Int, notFound: [String], alreadyDeleted: [String] = []) {
        self.deleted = deleted
        self.notFound = notFound
        self.alreadyDeleted = alreadyDeleted
    }
    public var json: JSONValue {
        // "deleted" is the deprecated name of deleted_count (on ledger.export records "deleted" is
        // whether the record is a tombstone); kept for clients written before deleted_count.
        ["deleted_count": .int(deleted), "deleted": .int(deleted), "not_found": .array(notFound.map { .string($0) }),
         "already_deleted": .array(alreadyDeleted.map { .string($0) })]
    }
}

/// One sample of a `samples.list` answer.
public struct ListedSample: Sendable, Equatable {
    public var id: String
    public var source: String
    public var start: Double
    public var end: Double
    /// Local time minus UTC at `start`, seconds, as recorded.
    public var utcOffset: Int
    public var steps: Int
    public var distanceMeters: Double
    public var userEntered: Bool
    public var syncIdentifier: String?
    public var syncVersion: Int64?

    public init(id: String, source: String, start: Double, end: Double, utcOffset: Int, steps: Int, distanceMeters: Double,
                userEntered: Bool, syncIdentifier: String? = nil, syncVersion: Int64? = nil) {
        self.id = id
        self.source = source
        self.start = start
        self.end = end
        self.utcOffset = utcOffset
        self.steps = steps
        self.distanceMeters = distanceMeters
        self.userEntered = userEntered
        self.syncIdentifier = syncIdentifier
        self.syncVersion = syncVersion
    }

    public var json: JSONValue {
        ["id": .string(id), "source": .string(source), "start": .double(start), "end": .double(end),
         "utc_offset": .int(utcOffset), "steps": .int(steps), "distance_m": .double(distanceMeters),
         "user_entered": .bool(userEntered), "sync_identifier": .string(syncIdentifier),
         "sync_version": syncVersion.map { .int64($0) } ?? .null]
    }
}

/// `samples.list` result: when `more`, ask again with `start` = `next_start`.
public struct SamplesListResult: RPCResult, Equatable {
    public var samples: [ListedSample]
    public var more: Bool
    public var nextStart: Double?
    public init(samples: [ListedSample], more: Bool, nextStart: Double?) {
        self.samples = samples
        self.more = more
        self.nextStart = nextStart
    }
    public var json: JSONValue {
        ["samples": .array(samples.map(\.json)), "more": .bool(more), "next_start": .double(nextStart)]
    }
}

/// `sources.list` and `sources.priority` result: the order a user set (`order`) and every
/// source the ledger knows from the winner down (`ranked`).
public struct SourcesResult: RPCResult, Equatable {
    public var order: [String]
    public var ranked: [String]
    public init(order: [String], ranked: [String]) {
        self.order = order
        self.ranked = ranked
    }
    public var json: JSONValue { ["order": .array(order.map { .string($0) }), "ranked": .array(ranked.map { .string($0) })] }
}

/// `ledger.changed` notification params: records reached the disk (and can be exported).
public struct LedgerChangedNotice: Sendable, Equatable {
    public typealias Reason = LedgerChangeReason
    public var subscription: Int
    public var reasons: [Reason]
    public var latestAnchor: Int64
    public init(subscription: Int, reasons: [Reason], latestAnchor: Int64) {
        self.subscription = subscription
        self.reasons = reasons
        self.latestAnchor = latestAnchor
    }
    public var json: JSONValue {
        ["subscription": .int(subscription), "reasons": .array(reasons.map { .string($0.rawValue) }),
         "latest_anchor": .int64(latestAnchor)]
    }
}

/// `steps.update` notification params.
public struct StepsUpdateNotice: Sendable, Equatable {
    public var subscription: Int
    public var steps: Int
    public var start: Double
    public var end: Double
    public var distanceMeters: Double?
    public init(subscription: Int, steps: Int, start: Double, end: Double, distanceMeters: Double?) {
        self.subscription = subscription
        self.steps = steps
        self.start = start
        self.end = end
        self.distanceMeters = distanceMeters
    }
    public var json: JSONValue {
        var o: JSONObject = ["subscription": .int(subscription), "steps": .int(steps), "start": .double(start), "end": .double(end)]
        if let distanceMeters { o["distance_m"] = .double(distanceMeters) }
        return .object(o)
    }
}

/// One ledger record in an export.
public struct ExportedRecord: Sendable, Equatable {
    public var anchor: Int64
    public var id: String
    public var source: String
    public var start: Double
    public var end: Double
    public var steps: Int
    public var distanceMeters: Double
    public var userEntered: Bool
    /// A tombstone: the record with `id` was deleted.
    public var deleted: Bool
    /// Local time minus UTC at `start`, seconds: what the wearer's clock showed.
    public var utcOffset: Int

    public init(anchor: Int64, id: String, source: String, start: Double, end: Double, steps: Int, distanceMeters: Double,
                userEntered: Bool, deleted: Bool = false, utcOffset: Int = 0) {
        self.utcOffset = utcOffset
        self.anchor = anchor
        self.id = id
        self.source = source
        self.start = start
        self.end = end
        self.steps = steps
        self.distanceMeters = distanceMeters
        self.userEntered = userEntered
        self.deleted = deleted
    }

    public var json: JSONValue {
        [
            "anchor": .int64(anchor), "id": .string(id), "source": .string(source), "start": .double(start), "end": .double(end),
            "utc_offset": .int(utcOffset), "steps": .int(steps), "distance_m": .double(distanceMeters),
            "user_entered": .bool(userEntered), "deleted": .bool(deleted),
        ]
    }
}

/// `ledger.export` result: pass `next_anchor` to the next export and to `ledger.ack`.
public struct LedgerExportResult: RPCResult, Equatable {
    public var records: [ExportedRecord]
    public var nextAnchor: Int64
    public var more: Bool

    public init(records: [ExportedRecord], nextAnchor: Int64, more: Bool) {
        self.records = records
        self.nextAnchor = nextAnchor
        self.more = more
    }

    public var json: JSONValue {
        ["records": .array(records.map(\.json)), "next_anchor": .int64(nextAnchor), "more": .bool(more)]
    }
}

/// `ledger.ack` result.
public struct LedgerAckResult: RPCResult, Equatable {
    public var acknowledged: Int64
    public var pendingRecords: Int
    public init(acknowledged: Int64, pendingRecords: Int) {
        self.acknowledged = acknowledged
        self.pendingRecords = pendingRecords
    }
    public var json: JSONValue { ["acknowledged": .int64(acknowledged), "pending_records": .int(pendingRecords)] }
}

/// `recording.start` result.
public struct RecordingStartResult: RPCResult, Equatable {
    public var file: String
    public var until: Double
    public init(file: String, until: Double) {
        self.file = file
        self.until = until
    }
    public var json: JSONValue { ["file": .string(file), "until": .double(until)] }
}

/// `recording.stop` result.
public struct RecordingStopResult: RPCResult, Equatable {
    public var file: String
    public var samples: Int
    public var seconds: Double
    public init(file: String, samples: Int, seconds: Double) {
        self.file = file
        self.samples = samples
        self.seconds = seconds
    }
    /// `duration_s` as `status`'s `uptime_s`; `seconds` is its deprecated name, kept for clients
    /// written before it.
    public var json: JSONValue {
        ["file": .string(file), "samples": .int(samples), "duration_s": .double(seconds), "seconds": .double(seconds)]
    }
}

/// `unsubscribe` result.
public struct UnsubscribeResult: RPCResult, Equatable {
    public var subscription: Int
    public init(subscription: Int) { self.subscription = subscription }
    public var json: JSONValue { ["unsubscribed": .int(subscription)] }
}
