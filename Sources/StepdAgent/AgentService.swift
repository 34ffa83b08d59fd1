import CivilTime
import Glibc
import Ledger
import LedgerStore
import RPCDispatch
import POSIXLayer
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
    private var now: Double { agent.wallClock.now() }

    // MARK: - status and activity

    func status() throws(RPCError) -> StatusResult {
        let wallNow = now
        let snapshot = agent.snapshot(wallNow: wallNow)
        let sensor = snapshot.sensor
        // Rates to the digits that mean something (a measured rate is good to about 0.01 %).
        return StatusResult(
            version: Agent.version,
            uptimeSeconds: snapshot.uptime,
            board: .init(name: snapshot.boardName, file: agent.sensor.boardFile),
            sensor: .init(model: sensor.model?.rawValue, address: sensor.address.map(Int.init), bus: sensor.bus,
                          health: sensor.health, samples: sensor.samples, errors: sensor.readErrors,
                          overflows: sensor.overflows, reinits: sensor.reinits, rateHz: sensor.estimatedRate.map { DecimalText.rounded($0, decimals: 3) },
                          lastError: sensor.lastError, deliveredHz: sensor.effectiveRate.map { DecimalText.rounded($0, decimals: 2) }),
            capabilities: .init(stepCounting: true, distance: true, cadence: true, pace: true, floors: false,
                                activity: true),
            stepsToday: snapshot.stepsToday,
            stepsSinceStart: snapshot.stepsSinceStart,
            activity: currentActivity(),
            ledger: .init(health: snapshot.ledgerHealthState, records: snapshot.ledgerRecords,
                          unsavedSteps: snapshot.unsavedSteps, lastCheckpoint: ledger.lastCheckpointTime,
                          message: ledger.health.message, backlogRecords: ledger.health.backlogRecords),
            clients: snapshot.clients,
            details: AgentDetails(recording: snapshot.recording, sensorDescription: agent.sensor.description,
                                  replaySpeed: agent.sensor.speed, stateDirectory: agent.options.stateDirectory,
                                  timeZone: agent.localTimeZoneName, time: wallNow, lastRecording: agent.capture.lastOutcome))
    }

    func activityCurrent() throws(RPCError) -> ActivityResult { currentActivity() }

    private func currentActivity() -> ActivityResult {
        let state = agent.currentActivity
        return ActivityResult(kind: state.kind, confidence: state.confidence,
                              // On the agent's calendar, as the steps and activity.update are: without the
                              // rate, a walk begun hours ago on a --simulate-start calendar read as seconds ago.
                              // The classifier's first state starts at sensor time 0, which a real chip's
                              // clock (CLOCK_MONOTONIC) put at the machine's boot: "unknown since 14:34"
                              // for an agent started at 21:08 whose sensor was missing.
                              start: agent.sensor.timeMapping(wallNow: now, calendarRate: agent.wallClock.rate)
                                  .wall(atSensorTime: max(state.start, agent.sensorClockAtStart)))
    }

    func activityQuery(_ params: ActivityQueryParams) throws(RPCError) -> ActivityQueryResult {
        let zone = try timeZone(params.timeZone)
        let range = resolve(params.range, zone: zone)
        let segments: [ActivitySegment]
        do {
            segments = try ledger.activityHistory(from: range.start, to: range.end)
        } catch {
            throw .unavailable("\(error)")
        }
        // Stored history keeps the dominant activity of each record, not the classifier's
        // confidence at the time; the live state carries its own. The ongoing segment reaches the
        // present, not the end of a range that runs past it: a range ending in an hour gave the
        // walk going on now "medium" where one ending now gave it the live "high".
        let live = currentActivity()
        let present = min(range.end, now)
        return ActivityQueryResult(segments: segments.map { segment in
            var segment = segment
            if segment.end >= present - 1 && segment.kind == live.kind { segment.confidence = live.confidence }
            return segment
        })
    }

    // MARK: - steps

    func currentStepTotal() -> Int { agent.engine.totalSteps }

    func stepsQuery(_ params: StepsQueryParams) throws(RPCError) -> StepsQueryResult {
        let zone = try timeZone(params.timeZone)
        let range = resolve(params.range, zone: zone)
        let data: PedometerData
        let selection = try filter(params.selection)
        do {
            data = try ledger.pedometerData(from: range.start, to: range.end, filter: selection,
                                            splitBySource: params.bySource)
        } catch {
            throw .unavailable("\(error)")
        }
        // Cadence and pace are live figures (CMPedometerData's currentCadence/currentPace): only
        // meaningful for a range that reaches the present, and they are this device's walking, so
        // a query that leaves this device's steps out (e.g. only app:phone) must not carry them.
        let countsThisDevice = selection.sources.map { $0.contains(ledger.deviceSource) } ?? true
        let live = range.end >= now - 5 && countsThisDevice
        let cadence = live ? agent.engine.cadence.map { $0 * 60 } : nil
        let pace = live ? agent.engine.pace : nil
        return StepsQueryResult(
            start: range.start, end: range.end, steps: Int(data.steps.rounded()), distanceMeters: data.distance,
            cadenceStepsPerMinute: cadence, paceSecondsPerMeter: pace,
            bySource: params.bySource ? sourceTotals(data.bySource) : nil)
    }

    func stepsSince(_ from: Double) throws(RPCError) -> (steps: Int, distanceMeters: Double) {
        let end = max(now, from + 0.001)
        do {
            // This device's own steps, as the live counter the subscription continues with.
            let data = try ledger.pedometerData(from: from, to: end, filter: SampleFilter(sources: [ledger.deviceSource]))
            return (Int(data.steps.rounded()), data.distance)
        } catch {
            throw .unavailable("\(error)")
        }
    }

    func stepsStatistics(_ params: StepsStatisticsParams) throws(RPCError) -> StepsStatisticsResult {
        let zone = try timeZone(params.timeZone)
        let range = resolve(params.range, zone: zone)
        let stats: RangeStatistics
        do {
            stats = try ledger.statistics(from: range.start, to: range.end, interval: params.bucket,
                                          timeZone: zone, filter: try filter(params.selection))
        } catch {
            throw .validationFailed("\(error)")
        }
        guard stats.bucketCount <= maxBucketsPerRequest else { throw tooManyBuckets(stats.bucketCount) }
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
        try checkBucketCount(start: range.start, end: range.end, anchor: anchor, interval: params.interval)
        let buckets: [StatisticsBucket]
        do {
            buckets = try ledger.statisticsCollection(
                from: range.start, to: range.end, anchor: anchor, interval: params.interval,
                timeZone: zone, filter: try filter(params.selection), splitBySource: params.bySource)
        } catch {
            throw .validationFailed("\(error)")
        }
        guard buckets.count <= maxBucketsPerRequest else { throw tooManyBuckets(buckets.count) }
        // Page at a bucket boundary before the answer would outgrow one message.
        var page: [CollectionBucket] = []
        var size = 0
        var nextStart: Double?
        // Whole steps per bucket by rounding the running total, so the buckets add up to the
        // rounded total steps.query and steps.statistics report for the same range.
        var runningTotal = 0.0
        var reported = 0
        for bucket in buckets {
            runningTotal += bucket.steps
            let steps = Int(runningTotal.rounded()) - reported
            reported += steps
            let item = CollectionBucket(start: bucket.start, end: bucket.end, steps: steps,
                                        distanceMeters: bucket.distance,
                                        bySource: params.bySource ? sourceTotals(bucket.bySource) : nil)
            size += item.json.serialized().count + 1
            if size > resultBudgetBytes && !page.isEmpty {
                nextStart = max(bucket.start, range.start)
                break
            }
            page.append(item)
        }
        return StepsCollectionResult(timeZone: params.timeZone ?? agent.localTimeZoneName ?? "local", interval: params.interval, anchor: anchor,
                                     buckets: page, more: nextStart != nil, nextStart: nextStart)
    }

    // MARK: - external samples

    func samplesAdd(_ params: SamplesAddParams, caller: RPCCaller) throws(RPCError) -> SamplesAddResult {
        var samples: [ExternalSample] = []
        for input in params.samples {
            let source = try sampleSource(input.source)
            samples.append(ExternalSample(
                start: input.start, end: input.end, steps: input.steps, distance: input.distanceMeters ?? 0,
                activity: .walking, source: source, userEntered: input.userEntered,
                sync: input.syncIdentifier.map { SampleSync(identifier: $0, version: input.syncVersion ?? 0) }))
        }
        let outcomes: [AddOutcome]
        do {
            outcomes = try ledger.addSamples(samples, now: now)
        } catch {
            throw .validationFailed("\(error)")
        }
        let steps = samples.reduce(0) { $0 + $1.steps }
        agent.logger.info("samples.add by uid \(caller.uid): \(samples.count) sample(s), \(steps) steps")
        return SamplesAddResult(samples: outcomes.map { outcome in
            AddedSample(id: String(outcome.record.sequence), status: outcome.status)
        })
    }

    func samplesDelete(_ params: SamplesDeleteParams, caller: RPCCaller) throws(RPCError) -> SamplesDeleteResult {
        let source = try sampleSource(params.source)
        var sequences: [UInt64] = []
        var unknown: [String] = []
        for id in params.ids {
            if let sequence = UInt64(id) { sequences.append(sequence) } else { unknown.append(id) }
        }
        let outcome: DeleteOutcome
        do {
            outcome = try ledger.deleteSamples(sequences: sequences, source: source, now: now)
        } catch {
            throw .validationFailed("\(error); nothing was deleted")
        }
        agent.logger.info("samples.delete by uid \(caller.uid): \(outcome.tombstones.count) record(s) of \(source)")
        return SamplesDeleteResult(deleted: outcome.tombstones.count, notFound: unknown + outcome.notFound.map(String.init),
                                   alreadyDeleted: outcome.alreadyDeleted.map(String.init))
    }

    func samplesList(_ params: SamplesListParams) throws(RPCError) -> SamplesListResult {
        let zone = try timeZone(params.timeZone)
        let range = resolve(params.range, zone: zone)
        // One more than asked tells whether more follow; a page never splits samples that start
        // at the same millisecond, so continuing from next_start repeats and skips nothing.
        var records = ledger.samples(startingFrom: range.start, to: range.end, filter: try filter(params.selection),
                                     limit: params.limit + 1)
        var nextStart: Double?
        if records.count > params.limit {
            let cut = records[params.limit].startMs
            var keep = params.limit
            while keep > 0 && records[keep - 1].startMs == cut { keep -= 1 }
            if keep == 0 {
                records = ledger.samples(startingFrom: range.start, to: Double(cut + 1) / 1000, filter: try filter(params.selection),
                                         limit: Int.max)
                keep = records.count
            }
            records = Array(records.prefix(keep))
            nextStart = Double(records.last.map { $0.startMs == cut ? cut + 1 : cut } ?? cut) / 1000
            // The page grew to hold every sample of its last millisecond: more follow only if one
            // starts after it (it said `more` and sent the client to an empty page).
            if let next = nextStart, records.last?.startMs == cut,
               ledger.samples(startingFrom: next, to: range.end, filter: try filter(params.selection), limit: 1).isEmpty {
                nextStart = nil
            }
        }
        // At most SamplesListParams.maximumLimit samples of under 400 bytes each: always one answer.
        let listed = records.map { record in
            let sync = ledger.syncMetadata(sequence: record.sequence)
            return ListedSample(id: String(record.sequence), source: record.source.description, start: record.start,
                                end: record.end, utcOffset: Int(record.utcOffset), steps: record.steps,
                                distanceMeters: record.distance, userEntered: record.isUserEntered,
                                syncIdentifier: sync?.identifier, syncVersion: sync?.version)
        }
        return SamplesListResult(samples: listed, more: nextStart != nil, nextStart: nextStart)
    }

    func sourcesList() throws(RPCError) -> SourcesResult {
        SourcesResult(order: ledger.sourcePriority.order.map(\.description), ranked: ledger.rankedSources.map(\.description))
    }

    func sourcesPriority(_ params: SourcesPriorityParams, caller: RPCCaller) throws(RPCError) -> SourcesResult {
        var order: [SampleSource] = []
        for name in params.order {
            guard let source = SampleSource(name: name) else { throw .invalidParams("source '\(name)' is not a kind:id name") }
            order.append(source)
        }
        do {
            try ledger.setSourcePriority(order)
        } catch {
            throw .unavailable("\(error)")
        }
        agent.logger.info("sources.priority by uid \(caller.uid): \(params.order.joined(separator: ","))")
        return try sourcesList()
    }

    /// A source name in its `kind:id` form (a bare id is an app's); the detector kind is
    /// this device's own and not writable.
    private func sampleSource(_ text: String) throws(RPCError) -> SampleSource {
        guard let source = SampleSource(name: text) else {
            throw .invalidParams("source '\(text)': the id must be 1-64 characters of A-Z a-z 0-9 . _ - : @")
        }
        guard source.kind != .detector else {
            throw .validationFailed("source kind 'detector' is reserved for this device's own detector")
        }
        return source
    }

    private func filter(_ selection: SampleSelection) throws(RPCError) -> SampleFilter {
        var sources: Set<SampleSource>?
        if let names = selection.sources {
            var set = Set<SampleSource>()
            for name in names {
                guard let source = SampleSource(name: name) else { throw .invalidParams("source '\(name)' is not a kind:id name") }
                set.insert(source)
            }
            sources = set
        }
        return SampleFilter(includeUserEntered: selection.includeUserEntered, sources: sources)
    }

    private func tooManyBuckets(_ count: Int) -> RPCError {
        .validationFailed("\(count) buckets; at most \(maxBucketsPerRequest) per request: use a longer interval or a shorter range")
    }

    // MARK: - sync

    func ledgerExport(_ params: LedgerExportParams) throws(RPCError) -> LedgerExportResult {
        guard params.anchor >= 0 else { throw .invalidParams("anchor must not be negative") }
        let page = ledger.changes(after: UInt64(params.anchor), limit: params.limit)
        // A page ends early, with `more`, before the answer would outgrow one message.
        var records: [ExportedRecord] = []
        records.reserveCapacity(page.records.count)
        var size = 0
        var cut = false
        for record in page.records {
            let item = ExportedRecord(
                anchor: Int64(record.sequence),
                id: String(record.isTombstone ? record.deletes : record.sequence),
                source: record.source.description,
                start: record.start, end: record.end,
                steps: record.steps, distanceMeters: record.distance,
                userEntered: record.isUserEntered, deleted: record.isTombstone, utcOffset: Int(record.utcOffset))
            size += item.json.serialized().count + 1
            if size > resultBudgetBytes {
                cut = true
                break
            }
            records.append(item)
        }
        return LedgerExportResult(records: records, nextAnchor: records.last?.anchor ?? params.anchor,
                                  more: page.more || cut)
    }

    func ledgerAck(_ params: LedgerAckParams, caller: RPCCaller) throws(RPCError) -> LedgerAckResult {
        guard params.anchor >= 0 else { throw .invalidParams("anchor must not be negative") }
        do {
            let pruned = try ledger.acknowledge(anchor: UInt64(params.anchor), now: now)
            let stored = ledger.acknowledgedAnchor
            agent.logger.info("ledger.ack \(params.anchor) by uid \(caller.uid): acknowledged \(stored), pruned \(pruned.removedFiles.count) files")
            return LedgerAckResult(acknowledged: Int64(clamping: stored), pendingRecords: ledger.pendingRecordCount)
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
        } catch .cannotCreate(let path, let code) {
            // The disk, not the request (-32002, as for a ledger that cannot be written).
            throw .unavailable("cannot create \(path): \(code); free space in the state directory or fix its permissions")
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
            throw .validationFailed("time_zone: \(error)")
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

    /// Each source's own merged steps and distance, winner first.
    private func sourceTotals(_ bySource: [SampleSource: SourceAmount]) -> [SourceTotal] {
        let ranked = ledger.rankedSources
        return bySource.sorted { a, b in
            (ranked.firstIndex(of: a.key) ?? Int.max, a.key.description) < (ranked.firstIndex(of: b.key) ?? Int.max, b.key.description)
        }.map { source, amount in
            SourceTotal(source: source.description, steps: Int(amount.steps.rounded()), distanceMeters: amount.distance)
        }
    }
}
