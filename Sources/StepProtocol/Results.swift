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
        public var rateHz: Double?
        public var lastError: String?
        public init(model: String?, address: Int?, bus: String, health: SensorHealth, samples: Int, errors: Int,
                    overflows: Int, reinits: Int, rateHz: Double?, lastError: String?) {
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
    /// Agent-specific extras appended to the object as is (for example `"recording"`).
    public var extra: JSONObject

    public init(version: String, uptimeSeconds: Double, board: Board, sensor: Sensor, capabilities: Capabilities,
                stepsToday: Int, stepsSinceStart: Int, activity: ActivityResult, ledger: Ledger, clients: Int = 0,
                extra: JSONObject = JSONObject()) {
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
        for member in extra.members where object[member.key] == nil { object[member.key] = member.value }
        return .object(object)
    }
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
public struct StepsCollectionResult: RPCResult, Equatable {
    public var timeZone: String
    public var interval: BucketInterval
    public var buckets: [CollectionBucket]

    public init(timeZone: String, interval: BucketInterval, buckets: [CollectionBucket]) {
        self.timeZone = timeZone
        self.interval = interval
        self.buckets = buckets
    }

    public var json: JSONValue {
        ["time_zone": .string(timeZone), "interval": interval.json, "buckets": .array(buckets.map(\.json))]
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

/// One stretch of a single activity.
public struct ActivitySegment: Sendable, Equatable {
    public var kind: ActivityKind
    public var confidence: ActivityConfidence
    public var start: Double
    public var end: Double

    public init(kind: ActivityKind, confidence: ActivityConfidence, start: Double, end: Double) {
        self.kind = kind
        self.confidence = confidence
        self.start = start
        self.end = end
    }

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

/// `samples.add` result: the id to delete the sample with later.
public struct SamplesAddResult: RPCResult, Equatable {
    public var id: String
    public init(id: String) { self.id = id }
    public var json: JSONValue { ["id": .string(id)] }
}

/// `samples.delete` result; ids that were not found are listed, not an error.
public struct SamplesDeleteResult: RPCResult, Equatable {
    public var deleted: Int
    public var notFound: [String]
    public init(deleted: Int, notFound: [String]) {
        self.deleted = deleted
        self.notFound = notFound
    }
    public var json: JSONValue { ["deleted": .int(deleted), "not_found": .array(notFound.map { .string($0) })] }
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

    public init(anchor: Int64, id: String, source: String, start: Double, end: Double, steps: Int, distanceMeters: Double,
                userEntered: Bool, deleted: Bool = false) {
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
            "steps": .int(steps), "distance_m": .double(distanceMeters), "user_entered": .bool(userEntered), "deleted": .bool(deleted),
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
    public var json: JSONValue { ["file": .string(file), "samples": .int(samples), "seconds": .double(seconds)] }
}

/// `unsubscribe` result.
public struct UnsubscribeResult: RPCResult, Equatable {
    public var subscription: Int
    public init(subscription: Int) { self.subscription = subscription }
    public var json: JSONValue { ["unsubscribed": .int(subscription)] }
}
