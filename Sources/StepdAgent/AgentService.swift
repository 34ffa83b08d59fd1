import Glibc
import Ledger
import LedgerStore
import SensorChips
import StepProtocol
import StepdModel

/// Answers the socket protocol from the agent's state: the ledger for history (durable records
/// plus the steps not yet saved), the motion engine for what is happening now, the supervisor
/// for the sensor. Runs on the agent's loop thread; every answer is computed from memory.
final class AgentService: StepdService {
    unowned let agent: Agent

    init(agent: Agent) { self.agent = agent }

    private var ledger: LedgerService { agent.ledger }
    private var now: Double { SystemClocks.wall() }

    // MARK: - status and activity

    func status() throws(RPCError) -> StatusResult {
        let snapshot = agent.snapshot(wallNow: now)
        let sensor = snapshot.sensor
        return StatusResult(
            version: Agent.version,
            uptimeSeconds: snapshot.uptime,
            board: .init(name: snapshot.boardName, file: agent.sensor.boardFile),
            sensor: .init(model: sensor.model?.rawValue, address: sensor.address.map(Int.init), bus: sensor.bus,
                          health: sensor.health, samples: sensor.samples, errors: sensor.readErrors,
                          overflows: sensor.overflows, reinits: sensor.reinits, rateHz: sensor.effectiveRate,
                          lastError: sensor.lastError),
            capabilities: .init(stepCounting: true, distance: true, cadence: true, pace: true, floors: false,
                                activity: true),
            stepsToday: snapshot.stepsToday,
            stepsSinceStart: snapshot.stepsSinceStart,
            activity: currentActivity(),
            ledger: .init(health: snapshot.ledgerHealthState, records: snapshot.ledgerRecords,
                          unsavedSteps: snapshot.unsavedSteps, lastCheckpoint: ledger.lastCheckpointTime,
                          message: ledger.health.message, backlogRecords: ledger.health.backlogRecords),
            clients: snapshot.clients,
            extra: [
                "recording": .bool(snapshot.recording),
                "sensor_description": .string(agent.sensor.description),
                "replay_speed": .double(agent.sensor.speed),
                "state_directory": .string(agent.options.stateDirectory),
            ])
    }

    func activityCurrent() throws(RPCError) -> ActivityResult { currentActivity() }

    private func currentActivity() -> ActivityResult {
        let state = agent.currentActivity
        return ActivityResult(kind: state.kind, confidence: state.confidence,
                              start: agent.sensor.timeMapping(wallNow: now).wall(atSensorTime: state.start))
    }

    func activityQuery(_ params: ActivityQueryParams) throws(RPCError) -> ActivityQueryResult {
        let zone = try timeZone(params.timeZone)
        let range = resolve(params.range, zone: zone)
        let segments: [Ledger.ActivitySegment]
        do {
            segments = try ledger.activityHistory(from: range.start, to: range.end)
        } catch {
            throw .unavailable("\(error)")
        }
        // Stored history keeps the dominant activity of each record, not the classifier's
        // confidence at the time; the live state carries its own.
        let live = currentActivity()
        return ActivityQueryResult(segments: segments.map { segment in
            let isLive = segment.end >= range.end - 1 && segment.activity == live.kind
            return StepProtocol.ActivitySegment(kind: segment.activity, confidence: isLive ? live.confidence : .medium,
                                                start: segment.start, end: segment.end)
        })
    }

    // MARK: - steps

    func currentStepTotal() -> Int { agent.engine.totalSteps }

    func stepsQuery(_ params: StepsQueryParams) throws(RPCError) -> StepsQueryResult {
        let zone = try timeZone(params.timeZone)
        let range = resolve(params.range, zone: zone)
        let data: PedometerData
        do {
            data = try ledger.pedometerData(from: range.start, to: range.end, splitBySource: params.bySource)
        } catch {
            throw .unavailable("\(error)")
        }
        // Cadence and pace are live figures (CMPedometerData's currentCadence/currentPace): only
        // meaningful for a range that reaches the present.
        let live = range.end >= now - 5
        let cadence = live ? agent.engine.cadence.map { $0 * 60 } : nil
        let pace = live ? agent.engine.pace : nil
        return StepsQueryResult(
            start: range.start, end: range.end, steps: Int(data.steps.rounded()), distanceMeters: data.distance,
            cadenceStepsPerMinute: cadence, paceSecondsPerMeter: pace,
            bySource: params.bySource ? sourceTotals(data.stepsBySource, distanceTotal: data.distance, steps: data.steps) : nil)
    }

    func stepsStatistics(_ params: StepsStatisticsParams) throws(RPCError) -> StepsStatisticsResult {
        let zone = try timeZone(params.timeZone)
        let range = resolve(params.range, zone: zone)
        let stats: RangeStatistics
        do {
            stats = try ledger.statistics(from: range.start, to: range.end, interval: ledgerInterval(params.bucket),
                                          timeZone: zone)
        } catch {
            throw .invalidParams("\(error)")
        }
        let wants = Set(params.options)
        return StepsStatisticsResult(
            start: range.start, end: range.end, bucket: params.bucket, buckets: stats.bucketCount,
            sum: wants.contains(.sum) ? Int(stats.steps.rounded()) : nil,
            min: wants.contains(.min) ? Int(stats.minimumSteps.rounded()) : nil,
            max: wants.contains(.max) ? Int(stats.maximumSteps.rounded()) : nil,
            average: wants.contains(.avg) ? stats.averageSteps : nil)
    }

    func stepsCollection(_ params: StepsCollectionParams) throws(RPCError) -> StepsCollectionResult {
        let zone = try timeZone(params.timeZone)
        let range = resolve(params.range, zone: zone)
        let anchor = params.anchor ?? zone.startOfLocalDay(containing: range.start)
        let buckets: [StatisticsBucket]
        do {
            buckets = try ledger.statisticsCollection(
                from: range.start, to: range.end, anchor: anchor, interval: ledgerInterval(params.interval),
                timeZone: zone, filter: SampleFilter(includeUserEntered: params.includeUserEntered),
                splitBySource: params.bySource)
        } catch {
            throw .invalidParams("\(error)")
        }
        return StepsCollectionResult(
            timeZone: params.timeZone ?? "local",
            interval: params.interval,
            buckets: buckets.map { bucket in
                CollectionBucket(start: bucket.start, end: bucket.end, steps: Int(bucket.steps.rounded()),
                                 distanceMeters: bucket.distance,
                                 bySource: params.bySource
                                     ? sourceTotals(bucket.stepsBySource, distanceTotal: bucket.distance, steps: bucket.steps) : nil)
            })
    }

    // MARK: - external samples

    func samplesAdd(_ params: SamplesAddParams, caller: RPCCaller) throws(RPCError) -> SamplesAddResult {
        let source = try sampleSource(params.source, userEntered: params.userEntered)
        let sample = ExternalSample(start: params.start, end: params.end, steps: params.steps,
                                    distance: params.distanceMeters ?? 0, activity: .walking, source: source,
                                    userEntered: params.userEntered)
        do {
            let record = try ledger.addSample(sample, now: now)
            agent.logger.info("samples.add by uid \(caller.uid): \(params.steps) steps from \(source)")
            return SamplesAddResult(id: String(record.sequence))
        } catch {
            throw .validationFailed("\(error)")
        }
    }

    func samplesDelete(_ params: SamplesDeleteParams, caller: RPCCaller) throws(RPCError) -> SamplesDeleteResult {
        let source = try sampleSource(params.source, userEntered: false)
        var deleted = 0
        var notFound: [String] = []
        for id in params.ids {
            guard let sequence = UInt64(id) else {
                notFound.append(id)
                continue
            }
            do {
                _ = try ledger.deleteSample(sequence: sequence, sourceId: source.id, now: now)
                deleted += 1
            } catch {
                if case .notFound = error {
                    notFound.append(id)
                } else {
                    throw .validationFailed("\(id): \(error)")
                }
            }
        }
        agent.logger.info("samples.delete by uid \(caller.uid): \(deleted) records of \(source.id)")
        return SamplesDeleteResult(deleted: deleted, notFound: notFound)
    }

    /// `kind:id` names the kind explicitly (`device:watch-1`, `app:health-sync`,
    /// `manual:alice`); a bare id is an app, or manual entry when flagged `user_entered`.
    private func sampleSource(_ text: String, userEntered: Bool) throws(RPCError) -> SampleSource {
        var kind: SourceKind = userEntered ? .manual : .app
        var id = text
        if let colon = text.firstIndex(of: ":"), let named = SourceKind(rawValue: String(text[..<colon])) {
            guard named != .detector else {
                throw .validationFailed("source kind 'detector' is reserved for this device's own detector")
            }
            kind = named
            id = String(text[text.index(after: colon)...])
        }
        guard SampleSource.isValidId(id) else {
            throw .invalidParams("source '\(text)': the id must be 1-64 characters of A-Z a-z 0-9 . _ - : @")
        }
        return SampleSource(id: id, kind: kind)
    }

    // MARK: - sync

    func ledgerExport(_ params: LedgerExportParams) throws(RPCError) -> LedgerExportResult {
        guard params.anchor >= 0 else { throw .invalidParams("anchor must not be negative") }
        let page = ledger.changes(after: UInt64(params.anchor), limit: params.limit)
        return LedgerExportResult(
            records: page.records.map { record in
                ExportedRecord(
                    anchor: Int64(record.sequence),
                    id: String(record.flags.contains(.tombstone) ? record.deletes : record.sequence),
                    source: record.source.description,
                    start: Double(record.startMs) / 1000, end: Double(record.endMs) / 1000,
                    steps: record.steps, distanceMeters: Double(record.distanceMm) / 1000,
                    userEntered: record.flags.contains(.userEntered),
                    deleted: record.flags.contains(.tombstone))
            },
            nextAnchor: Int64(page.newAnchor), more: page.more)
    }

    func ledgerAck(_ params: LedgerAckParams, caller: RPCCaller) throws(RPCError) -> LedgerAckResult {
        guard params.anchor >= 0 else { throw .invalidParams("anchor must not be negative") }
        do {
            let pruned = try ledger.acknowledge(anchor: UInt64(params.anchor), now: now)
            agent.logger.info("ledger.ack \(params.anchor) by uid \(caller.uid): pruned \(pruned.removedFiles.count) files")
            let pending = ledger.changes(after: UInt64(params.anchor), limit: LedgerSync.maximumPageSize).records.count
            return LedgerAckResult(acknowledged: params.anchor, pendingRecords: pending)
        } catch {
            throw .validationFailed("\(error)")
        }
    }

    // MARK: - raw recordings

    func recordingStart(_ params: RecordingStartParams, caller: RPCCaller) throws(RPCError) -> RecordingStartResult {
        let status = agent.sensor.supervisor.status
        let metadata = RawCapture.Metadata(
            board: agent.sensor.boardName, chip: status.model?.rawValue ?? "unknown", rateHz: SensorSupervisor.deliveredRate,
            label: params.label ?? "", agentVersion: Agent.version)
        let monotonic = SystemClocks.monotonic()
        do {
            let file = try agent.capture.start(minutes: Double(params.minutes), label: params.label ?? "",
                                               metadata: metadata, monotonicNow: monotonic, wallNow: now)
            agent.logger.info("recording.start by uid \(caller.uid)")
            return RecordingStartResult(file: file, until: now + Double(params.minutes) * 60)
        } catch {
            throw .validationFailed("\(error)")
        }
    }

    func recordingStop(caller: RPCCaller) throws(RPCError) -> RecordingStopResult {
        guard let started = agent.capture.startedWall, let result = agent.capture.stop(reason: "stopped by uid \(caller.uid)") else {
            throw .unavailable("no recording is running")
        }
        return RecordingStopResult(file: result.file, samples: result.samples, seconds: now - started)
    }

    // MARK: - helpers

    private func timeZone(_ name: String?) throws(RPCError) -> TimeZoneRule {
        guard let name else { return agent.localTimeZone }
        do {
            return try TimeZoneLoader.load(name)
        } catch {
            throw .invalidParams("time_zone: \(error)")
        }
    }

    private func resolve(_ range: QueryRange, zone: TimeZoneRule) -> (start: Double, end: Double) {
        switch range {
        case .between(let start, let end): return (start, end)
        case .today:
            let current = now
            let today = LedgerQueries.todayRange(now: current, timeZone: zone)
            return (today.start, max(current, today.start + 0.001))
        }
    }

    private func ledgerInterval(_ interval: StepProtocol.BucketInterval) -> Ledger.BucketInterval {
        switch interval.unit {
        case .minutes: return .minutes(interval.count)
        case .hours: return .hours(interval.count)
        case .days: return .days(interval.count)
        }
    }

    /// Per-source totals; a source's distance is its share of the merged distance by steps,
    /// since the merge reports distance only in total.
    private func sourceTotals(_ bySource: [String: Double], distanceTotal: Double, steps: Double) -> [SourceTotal] {
        bySource.sorted { $0.key < $1.key }.map { source, sourceSteps in
            SourceTotal(source: source, steps: Int(sourceSteps.rounded()),
                        distanceMeters: steps > 0 ? distanceTotal * sourceSteps / steps : 0)
        }
    }
}
