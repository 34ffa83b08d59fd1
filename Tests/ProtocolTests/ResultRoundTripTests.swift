import StepJSON
import StepProtocol
import StepdModel
import Testing

/// One vocabulary: every result the agent encodes, stepctl decodes with the same types. A key
/// renamed on one side only fails here.
@Suite struct ResultRoundTripTests {
    func roundTrip<R: RPCResult & Equatable>(_ value: R, _ decode: (JSONValue) throws(ResultDecodingError) -> R) throws {
        // Through text, as over the socket.
        let wire = try JSONParser.parse(value.json.serialized(), limits: JSONLimits(maxBytes: 1 << 20))
        #expect(try decode(wire) == value)
    }

    let activity = ActivityResult(kind: .running, confidence: .medium, start: 1_763_803_650.5)
    let totals = [SourceTotal(source: "device:watch-1", steps: 1500, distanceMeters: 1100.5), SourceTotal(source: "app:phone", steps: 400, distanceMeters: 0)]

    @Test func status() throws {
        let text = #"{"protocol_version":2,"version":"0.1.0","uptime_s":3600.25,"board":{"name":"pi","file":"/etc/stepd/board.toml"},"sensor":{"model":"lis3dh","address":25,"bus":"/dev/i2c-1","health":"degraded","samples":1200,"errors":3,"overflows":1,"reinits":2,"rate_hz":50.01,"delivered_hz":39.9,"last_error":"EREMOTEIO"},"capabilities":{"step_counting":true,"distance":true,"cadence":false,"pace":true,"floors":false,"activity":true},"steps":{"today":5230,"since_start":1800},"activity":{"type":"running","confidence":"medium","start":1763803650.5},"ledger":{"health":"degraded","records":120,"unsaved_steps":12,"last_checkpoint":null,"backlog_records":7,"message":"cannot write 2026-11-23.steps: No space left on device (ENOSPC)"},"clients":3,"recording":true,"sensor_description":"/dev/i2c-1","replay_speed":1,"state_directory":"/var/lib/stepd","time_zone":"Europe/Berlin","last_recording":{"file":"/var/lib/stepd/recordings/r.csv.gz","samples":4800,"error":"write failed: No space left on device (ENOSPC)"}}"#
        let status = try StatusResult(json: JSONParser.parse(text))
        #expect(status.details?.stateDirectory == "/var/lib/stepd" && status.sensor.lastError == "EREMOTEIO")
        #expect(status.details?.timeZone == "Europe/Berlin")
        #expect(status.details?.lastRecording == RecordingOutcome(file: "/var/lib/stepd/recordings/r.csv.gz", samples: 4800,
                                                                   error: "write failed: No space left on device (ENOSPC)"))
        // A capture that ended whole says error null; an agent from before last_recording does not say.
        let whole = text.replacing(#""write failed: No space left on device (ENOSPC)""#, with: "null")
        #expect(try StatusResult(json: JSONParser.parse(whole)).details?.lastRecording?.error == nil)
        let beforeMember = text.replacing(#/,"last_recording":\{[^}]*\}/#, with: "")
        #expect(try StatusResult(json: JSONParser.parse(beforeMember)).details?.lastRecording == nil)
        // An agent without a zone name says null; one from before time_zone does not say.
        for older in [text.replacing(#""Europe/Berlin""#, with: "null"),
                      text.replacing(#""time_zone":"Europe/Berlin","#, with: "")] {
            let decoded = try StatusResult(json: JSONParser.parse(older))
            #expect(decoded.details?.stateDirectory == "/var/lib/stepd" && decoded.details?.timeZone == nil)
        }
        #expect(status.json.jsonText == text)
        #expect(try StatusResult(json: status.json) == status)
    }

    @Test func queries() throws {
        try roundTrip(StepsQueryResult(start: 1, end: 2, steps: 1900, distanceMeters: 1400.5, cadenceStepsPerMinute: 108.5,
                                       paceSecondsPerMeter: nil, bySource: totals), StepsQueryResult.init(json:))
        try roundTrip(StepsStatisticsResult(start: 1, end: 2, bucket: BucketInterval(.hours, 3), buckets: 8, sum: 10, min: nil, max: 7,
                                            average: 1.25), StepsStatisticsResult.init(json:))
        try roundTrip(StepsCollectionResult(timeZone: "Europe/Berlin", interval: BucketInterval(.minutes, 15), anchor: 0.5,
                                            buckets: [CollectionBucket(start: 0, end: 900, steps: 5, distanceMeters: 3.5, bySource: totals),
                                                      CollectionBucket(start: 900, end: 1800, steps: 0, distanceMeters: 0)],
                                            more: true, nextStart: 1800), StepsCollectionResult.init(json:))
    }

    @Test func activityAndSubscriptions() throws {
        try roundTrip(activity, ActivityResult.init(json:))
        try roundTrip(ActivityQueryResult(segments: [ActivitySegment(kind: .walking, confidence: .high, start: 1, end: 2)]),
                      ActivityQueryResult.init(json:))
        try roundTrip(SubscribeResult(subscription: 7), SubscribeResult.init(json:))
    }

    @Test func samplesAndSources() throws {
        try roundTrip(SamplesAddResult(samples: [AddedSample(id: "4", status: .replaced), AddedSample(id: "5", status: .unchanged)]),
                      SamplesAddResult.init(json:))
        try roundTrip(SamplesDeleteResult(deleted: 1, notFound: ["99"], alreadyDeleted: ["4"]), SamplesDeleteResult.init(json:))
        try roundTrip(SamplesListResult(samples: [ListedSample(id: "6", source: "device:watch-1", start: 1, end: 2, utcOffset: 3600, steps: 3,
                                                               distanceMeters: 2.5, userEntered: true, syncIdentifier: "w", syncVersion: 2)],
                                        more: false, nextStart: nil), SamplesListResult.init(json:))
        try roundTrip(SourcesResult(order: ["app:phone"], ranked: ["app:phone", "detector:this-device"]), SourcesResult.init(json:))
    }

    @Test func syncRecordingAndNotifications() throws {
        try roundTrip(LedgerExportResult(records: [ExportedRecord(anchor: 9_007_199_254_740_993, id: "3", source: "manual:alice", start: 1.5,
                                                                  end: 2.5, steps: 0, distanceMeters: 0, userEntered: true, deleted: true,
                                                                  utcOffset: -18_000)],
                                         nextAnchor: 9_007_199_254_740_993, more: true), LedgerExportResult.init(json:))
        try roundTrip(LedgerAckResult(acknowledged: 5, pendingRecords: 2), LedgerAckResult.init(json:))
        try roundTrip(RecordingStartResult(file: "/x.csv.gz", until: 5), RecordingStartResult.init(json:))
        try roundTrip(RecordingStopResult(file: "/x.csv.gz", samples: 4800, seconds: 120), RecordingStopResult.init(json:))
        let notice = StepsUpdateNotice(subscription: 1, steps: 21, start: 1, end: 2, distanceMeters: 15.1)
        #expect(try StepsUpdateNotice(json: notice.json) == notice)
        let changed = LedgerChangedNotice(subscription: 3, reasons: [.add, .delete], latestAnchor: 7)
        #expect(try LedgerChangedNotice(json: changed.json) == changed)
    }

    /// recording.stop said `seconds` where status says `uptime_s`, samples.delete's count was
    /// `deleted` (a boolean on ledger.export records): the consistent names are sent beside the
    /// deprecated ones, and a client reads either (an agent from before sends only the old).
    @Test func consistentNamesBesideTheDeprecatedOnes() throws {
        let stop = RecordingStopResult(file: "/x.csv.gz", samples: 4800, seconds: 120).json
        #expect(stop["duration_s"]?.doubleValue == 120 && stop["seconds"]?.doubleValue == 120, "\(stop)")
        let delete = SamplesDeleteResult(deleted: 2, notFound: []).json
        #expect(delete["deleted_count"]?.intValue == 2 && delete["deleted"]?.intValue == 2, "\(delete)")
        #expect(try RecordingStopResult(json: ["file": "/x", "samples": 1, "duration_s": 7]).seconds == 7)
        #expect(try RecordingStopResult(json: ["file": "/x", "samples": 1, "seconds": 7]).seconds == 7)
        #expect(try SamplesDeleteResult(json: ["deleted_count": 3, "not_found": [], "already_deleted": []]).deleted == 3)
        #expect(try SamplesDeleteResult(json: ["deleted": 3, "not_found": [], "already_deleted": []]).deleted == 3)
    }

    @Test func aDriftNamesTheField() {
        var json = StepsQueryResult(start: 1, end: 2, steps: 3, distanceMeters: 4, cadenceStepsPerMinute: nil, paceSecondsPerMeter: nil).json
        if case .object(var o) = json {
            o["steps"] = .string("3")
            json = .object(o)
        }
        #expect(throws: ResultDecodingError("steps.query.steps: expected an integer, got a string")) { try StepsQueryResult(json: json) }
    }
}

