import Foundation
import StepJSON
import StepProtocol
import StepdModel
import StepSocket
import Testing

/// Issue 12 against the real agent: history and sync a client can trust.
@Suite(.serialized) struct HistoryTests {
    /// One batch, answered in one turn of the agent's loop (no sensor data in between).
    func batch(_ client: UnixSocketClient, _ calls: [(RPCMethod, JSONValue?)]) throws -> [JSONValue] {
        var requests: [JSONValue] = []
        for (index, call) in calls.enumerated() {
            requests.append(RPCRequest(id: .number(Int64(index + 1)), method: call.0.rawValue, params: call.1).json)
        }
        try client.sendRaw(JSONValue.array(requests).serialized() + [0x0A])
        guard let reply = try client.readMessage(timeout: 30)?.arrayValue, reply.count == calls.count else {
            throw AgentTestError("no batch answer")
        }
        return try reply.map { answer in
            guard let result = answer["result"] else { throw AgentTestError("error in batch: \(answer.jsonText)") }
            return result
        }
    }

    func now() -> Double { Date().timeIntervalSince1970 }

    /// Targets: a 10,000-record ledger exports completely at limit 10,000 (in pages that each
    /// fit one answer), nothing lost or repeated across a restart; a minute collection with
    /// by_source over a week is paged instead of dropped and adds up to steps.query.
    @Test func tenThousandRecordsExportCompletelyAcrossARestart() throws {
        let started = now()
        let agent = try AgentProcess(arguments: ["--simulate", "builtin"], environment: ["TZ": "UTC"])
        let client = try agent.connect()
        client.timeout = 60
        let base = ((started - 7 * 86_400 + 600) / 60).rounded(.down) * 60
        var ids = Set<String>()
        for chunk in 0..<20 {
            let samples: [SampleInput] = (0..<500).map { offset in
                let i = chunk * 500 + offset
                let start = base + Double(i) * 60
                return SampleInput(source: i % 2 == 0 ? "app:phone" : "device:watch", start: start, end: start + 30, steps: 100,
                                   distanceMeters: 70)
            }
            let added = try SamplesAddResult(json: client.call(.samplesAdd, SamplesAddParams(samples: samples).json))
            #expect(added.samples.count == 500 && added.samples.allSatisfy { $0.status == .added })
            for sample in added.samples { ids.insert(sample.id) }
        }

        func exportAll(_ client: UnixSocketClient, from anchor: Int64) throws -> (records: [ExportedRecord], pages: Int, end: Int64) {
            var records: [ExportedRecord] = []
            var params = LedgerExportParams(anchor: anchor, limit: 10_000)
            var pages = 0
            while true {
                let page = try LedgerExportResult(json: client.call(.ledgerExport, params.json))
                pages += 1
                records += page.records
                params.anchor = page.nextAnchor
                if !page.more { return (records, pages, page.nextAnchor) }
            }
        }
        let first = try exportAll(client, from: 0)
        let anchors = first.records.map(\.anchor)
        #expect(anchors == anchors.sorted() && Set(anchors).count == anchors.count, "anchors repeat or go back")
        #expect(ids.isSubset(of: Set(first.records.map(\.id))), "exported \(first.records.count) records, missing some of 10000")
        #expect(first.pages >= 2)
        let mine = first.records.filter { ids.contains($0.id) }
        #expect(mine.count == 10_000)
        #expect(Set(mine.map(\.source)) == ["app:phone", "device:watch"])
        #expect(mine.allSatisfy { $0.utcOffset == 0 && $0.steps == 100 })
        // A simulated run never writes under the device's own source.
        #expect(first.records.allSatisfy { $0.source != "detector:this-device" })

        // A week by minute with by_source is paged; the pages add up to steps.query.
        let rangeStart = started - 6.9 * 86_400, rangeEnd = started - 60
        var collection = StepsCollectionParams(range: .between(start: rangeStart, end: rangeEnd), timeZone: "UTC",
                                               interval: BucketInterval(.minutes, 1), bySource: true)
        var bucketSteps = 0, buckets = 0, pages = 0
        var lastEnd = rangeStart
        while true {
            let page = try StepsCollectionResult(json: client.call(.stepsCollection, collection.json))
            pages += 1
            buckets += page.buckets.count
            bucketSteps += page.buckets.reduce(0) { $0 + $1.steps }
            #expect(page.buckets.first.map { $0.start <= lastEnd + 1e-6 } ?? true)
            lastEnd = page.buckets.last?.end ?? lastEnd
            guard page.more, let next = page.nextStart else { break }
            collection.range = .between(start: next, end: rangeEnd)
            collection.anchor = page.anchor
        }
        #expect(pages >= 2)
        let query = try StepsQueryResult(json: client.call(.stepsQuery, StepsQueryParams(range: .between(start: rangeStart, end: rangeEnd)).json))
        #expect(bucketSteps == query.steps)
        #expect(buckets >= Int((rangeEnd - rangeStart) / 60))

        client.close()
        #expect(agent.terminate() == 0)
        let again = try AgentProcess(arguments: ["--simulate", "builtin"], environment: ["TZ": "UTC"],
                                     stateDirectory: agent.stateDirectory)
        let client2 = try again.connect()
        client2.timeout = 60
        let second = try exportAll(client2, from: 0)
        #expect(Array(second.records.prefix(first.records.count)) == first.records, "records changed across the restart")
        let rest = try exportAll(client2, from: first.end)
        #expect(rest.records.allSatisfy { $0.anchor > first.end })
        #expect(rest.records.count == second.records.count - first.records.count)
        client2.close()
        #expect(again.terminate() == 0)
    }

    /// Defect 2 and the target: status, steps.query, steps.statistics and the sum of
    /// steps.collection agree for the same range, with and without user-entered samples.
    @Test func queriesAgreeWithAndWithoutUserEnteredSamples() throws {
        let started = now()
        let midnight = (started / 86_400).rounded(.down) * 86_400
        let sampleStart = max(midnight + 1, started - 400)
        guard started - sampleStart >= 25 else { return }  // the first 25 s of a UTC day: no room before the agent
        let agent = try AgentProcess(arguments: ["--simulate", "builtin", "--replay-speed", "5"], environment: ["TZ": "UTC"])
        let client = try agent.connect()
        _ = try client.call(.samplesAdd, SamplesAddParams(SampleInput(source: "manual:me", start: sampleStart, end: sampleStart + 20,
                                                                       steps: 80, userEntered: true)).json)
        _ = try agent.waitForStatus { ($0.value(atPath: "steps.since_start")?.intValue ?? 0) > 20 }
        for include in [true, false] {
            let selection = SampleSelection(includeUserEntered: include)
            let answers = try batch(client, [
                (.status, nil),
                (.stepsQuery, StepsQueryParams(range: .today, selection: selection).json),
                (.stepsStatistics, StepsStatisticsParams(range: .today, selection: selection).json),
                (.stepsCollection, StepsCollectionParams(range: .today, interval: BucketInterval(.hours, 1), selection: selection).json),
            ])
            let status = try StatusResult(json: answers[0])
            let query = try StepsQueryResult(json: answers[1])
            let statistics = try StepsStatisticsResult(json: answers[2])
            let collection = try StepsCollectionResult(json: answers[3])
            let collected = collection.buckets.reduce(0) { $0 + $1.steps }
            #expect(statistics.sum == query.steps, "include \(include)")
            #expect(collected == query.steps, "include \(include)")
            if include { #expect(status.stepsToday == query.steps) }
        }
        let range = QueryRange.between(start: sampleStart - 1, end: sampleStart + 21)
        let with = try StepsQueryResult(json: client.call(.stepsQuery, StepsQueryParams(range: range).json))
        let without = try StepsQueryResult(json: client.call(.stepsQuery, StepsQueryParams(range: range, selection: SampleSelection(includeUserEntered: false)).json))
        #expect(with.steps - without.steps == 80)
        #expect(agent.terminate() == 0)
    }

    /// Defects 3, 4, 5 and 7 through the socket, and the features a HealthKit developer uses.
    @Test func samplesSourcesAndSync() throws {
        let t = (now() - 3 * 86_400).rounded()
        let agent = try AgentProcess(arguments: ["--simulate", "builtin"], environment: ["TZ": "UTC"])
        let client = try agent.connect()
        let changes = try UnixSocketClient(path: agent.socketPath)
        let subscription = try SubscribeResult(json: changes.call(.ledgerSubscribe))

        // The same sync identifier twice is one sample; a higher version replaces it.
        func add(_ input: SampleInput) throws -> AddedSample {
            try SamplesAddResult(json: client.call(.samplesAdd, SamplesAddParams(input).json)).samples[0]
        }
        let watch = try add(SampleInput(source: "app:watch", start: t, end: t + 600, steps: 600, distanceMeters: 450,
                                        syncIdentifier: "w-1", syncVersion: 1))
        #expect(try add(SampleInput(source: "app:watch", start: t, end: t + 600, steps: 600, distanceMeters: 450,
                                    syncIdentifier: "w-1", syncVersion: 1)) == AddedSample(id: watch.id, status: .unchanged))
        let phone = try add(SampleInput(source: "phone", start: t, end: t + 1200, steps: 1800))
        #expect(phone.status == .added)

        // ledger.changed tells a subscriber about the add.
        guard let notice = try changes.nextNotification(timeout: 10) else { throw AgentTestError("no ledger.changed") }
        #expect(notice.method == RPCNotificationMethod.ledgerChanged)
        let changed = try LedgerChangedNotice(json: notice.params)
        #expect(changed.subscription == subscription.subscription && changed.reasons.contains(.add))

        // Defect 5: the source added first wins by default, not the alphabetically first.
        let range = QueryRange.between(start: t, end: t + 3600)
        var query = try StepsQueryResult(json: client.call(.stepsQuery, StepsQueryParams(range: range, bySource: true).json))
        #expect(query.steps == 1500)
        // Defect 3: the phone gave no distance and gets none.
        #expect(query.bySource?.first { $0.source == "app:phone" }?.distanceMeters == 0)
        #expect(query.bySource?.first { $0.source == "app:watch" }?.distanceMeters == 450)
        // stepctl dropped the empty entry of "a,,b" and set sources the ledger never saw.
        let doubledComma = try runTool(AgentProcess.stepctlPath, ["--socket", agent.socketPath, "sources", "priority", "app:phone,,app:watch"])
        #expect(doubledComma.status == 64 && doubledComma.error.contains("entry 2 of 'app:phone,,app:watch' is empty"), "\(doubledComma.error)")
        let misspelt = try runTool(AgentProcess.stepctlPath, ["--socket", agent.socketPath, "sources", "priority", "app:phone,app:wacth"])
        #expect(misspelt.status == 64, "\(misspelt.error)")
        #expect(misspelt.error.contains("unknown source app:wacth; the ledger knows: ") && misspelt.error.contains("app:watch, app:phone"),
                "\(misspelt.error)")
        #expect(try SourcesResult(json: client.call(.sourcesList)).order.isEmpty, "a refused order was set")
        // A bare id is an app's, as everywhere.
        let set = try runTool(AgentProcess.stepctlPath, ["--socket", agent.socketPath, "sources", "priority", "phone,app:watch", "--json"])
        #expect(set.status == 0, "\(set.error)")
        let sources = try SourcesResult(json: client.call(.sourcesList))
        #expect(sources.order == ["app:phone", "app:watch"] && sources.ranked.prefix(2) == ["app:phone", "app:watch"])
        query = try StepsQueryResult(json: client.call(.stepsQuery, StepsQueryParams(range: range).json))
        #expect(query.steps == 1800)
        // The source filter.
        let onlyWatch = try StepsQueryResult(json: client.call(.stepsQuery, StepsQueryParams(range: range, selection: SampleSelection(sources: ["app:watch"])).json))
        #expect(onlyWatch.steps == 600)

        // One name form: what samples.list shows is what samples.delete takes.
        let listed = try SamplesListResult(json: client.call(.samplesList, SamplesListParams(range: range).json))
        #expect(listed.samples.map(\.source) == ["app:watch", "app:phone"])
        #expect(listed.samples[0].syncIdentifier == "w-1" && listed.samples[0].syncVersion == 1)

        // Defect 4: a delete is all or none, and a retry answers the same.
        let other = try add(SampleInput(source: "app:phone", start: t + 1300, end: t + 1360, steps: 60))
        _ = try client.call(.samplesDelete, SamplesDeleteParams(source: listed.samples[1].source, ids: [phone.id]).json)
        let mixed = try SamplesDeleteResult(json: client.call(.samplesDelete, SamplesDeleteParams(source: "app:phone", ids: [other.id, phone.id]).json))
        #expect(mixed == SamplesDeleteResult(deleted: 1, notFound: [], alreadyDeleted: [phone.id]))
        let retry = try SamplesDeleteResult(json: client.call(.samplesDelete, SamplesDeleteParams(source: "app:phone", ids: [other.id, phone.id]).json))
        #expect(retry == SamplesDeleteResult(deleted: 0, notFound: [], alreadyDeleted: [other.id, phone.id]))
        let foreign = try add(SampleInput(source: "app:phone", start: t + 1400, end: t + 1460, steps: 60))
        #expect(throws: ClientError.self) {
            try client.call(.samplesDelete, SamplesDeleteParams(source: "app:phone", ids: [foreign.id, watch.id]).json)
        }
        let stillThere = try SamplesListResult(json: client.call(.samplesList, SamplesListParams(range: range, selection: SampleSelection(sources: ["app:phone"])).json))
        #expect(stillThere.samples.map(\.id) == [foreign.id])

        // Defect 7: a lower acknowledgement keeps (and reports) the stored anchor.
        let export = try LedgerExportResult(json: client.call(.ledgerExport, LedgerExportParams(anchor: 0, limit: 3).json))
        let high = export.nextAnchor
        #expect(try LedgerAckResult(json: client.call(.ledgerAck, LedgerAckParams(anchor: high).json)).acknowledged == high)
        #expect(try LedgerAckResult(json: client.call(.ledgerAck, LedgerAckParams(anchor: 1).json)).acknowledged == high)
        // Defect 7: an unknown zone is -32004 as documented, and the offset form is accepted.
        do {
            _ = try client.call(.stepsQuery, ["today": true, "time_zone": "Mars/Olympus"])
            Issue.record("unknown zone answered")
        } catch {
            guard case .rpc(let rpc) = error else { throw error }
            #expect(rpc.code == RPCError.validationFailedCode)
        }
        _ = try client.call(.stepsQuery, ["today": true, "time_zone": "+02:00"])
        // stepctl takes every zone form the agent does: local times read and shown at +02:00.
        let steps = ["--socket", agent.socketPath, "steps", "--tz", "+02:00", "--from", "2026-11-20T10:00", "--to", "2026-11-20T11:30"]
        let shown = try runTool(AgentProcess.stepctlPath, steps)
        #expect(shown.status == 0, "\(shown.error)")
        #expect(shown.output.contains("period    2026-11-20 10:00 - 2026-11-20 11:30"), "\(shown.output)")
        let sent = try runTool(AgentProcess.stepctlPath, steps + ["--json"])
        #expect(sent.output.contains("\"start\":1795161600") && sent.output.contains("\"end\":1795167000"), "\(sent.output)")
        let unknown = try runTool(AgentProcess.stepctlPath, ["--socket", agent.socketPath, "today", "--tz", "Mars/Olympus"])
        #expect(unknown.status != 0 && unknown.error.contains("unknown time zone 'Mars/Olympus'"), "\(unknown.error)")
        #expect(agent.terminate() == 0)
    }

    /// `--json` is one object however many pages the agent answered in: `sync export --all`
    /// printed one object per page, `samples list` too past 2000 samples (history an array of
    /// pages), so a script's JSON parser failed only once the ledger grew.
    @Test func pagedListingsPrintOneJSONObject() throws {
        let agent = try AgentProcess(arguments: ["--simulate", "builtin", "--replay-speed", "0.01"], environment: ["TZ": "UTC"])
        let client = try agent.connect()
        let first = (now() / 60).rounded(.down) * 60 - 2 * 86_400
        for chunk in 0..<5 {
            let samples: [JSONValue] = (0..<500).map { index in
                let start = first + Double(chunk * 500 + index) * 60
                return ["source": "app:bulk", "start": .double(start), "end": .double(start + 60), "steps": 10]
            }
            _ = try client.call(.samplesAdd, ["samples": .array(samples)])
        }
        let socket = ["--socket", agent.socketPath]
        let listed = try runTool(AgentProcess.stepctlPath, socket + ["samples", "list", "--last", "3d", "--json"])
        #expect(listed.status == 0, "\(listed.error)")
        let samples = try JSONParser.parse(Array(listed.output.utf8), limits: JSONLimits(maxBytes: 1 << 24))
        #expect(samples["samples"]?.arrayValue?.count == 2500)
        #expect(samples["more"] == false && samples["next_start"] == .null)

        let exported = try runTool(AgentProcess.stepctlPath, socket + ["sync", "export", "--limit", "1000", "--all", "--json"])
        #expect(exported.status == 0, "\(exported.error)")
        let records = try JSONParser.parse(Array(exported.output.utf8), limits: JSONLimits(maxBytes: 1 << 24))
        let anchors = records["records"]?.arrayValue?.compactMap { $0["anchor"]?.intValue } ?? []
        #expect(anchors.count >= 2500 && anchors == anchors.sorted() && Set(anchors).count == anchors.count)
        #expect(records["more"] == false && records["next_anchor"]?.intValue == anchors.last)
        #expect(agent.terminate() == 0)
    }

    /// An agent in Berlin, a shell in New York: `history --by day` without --tz labelled each of
    /// the agent's days (from Berlin midnight, 18:00 the day before in New York) with the day
    /// before, so today's steps showed as yesterday's. The answer now names the agent's zone and
    /// stepctl shows the buckets in it.
    @Test func historyWithoutTzShowsTheAgentsDays() throws {
        let agent = try AgentProcess(arguments: ["--simulate", "builtin", "--replay-speed", "0.01"], environment: ["TZ": "Europe/Berlin"])
        let client = try agent.connect()
        // 00:30 in Berlin two days ago: 18:30 the day before in New York.
        var berlin = Calendar(identifier: .gregorian)
        berlin.timeZone = try #require(TimeZone(identifier: "Europe/Berlin"))
        let midnight = berlin.startOfDay(for: Date(timeIntervalSinceNow: -2 * 86_400))
        let start = midnight.timeIntervalSince1970 + 1800
        _ = try client.call(.samplesAdd, ["source": "app:phone", "start": .double(start), "end": .double(start + 600), "steps": 777])
        let day = berlin.dateComponents([.year, .month, .day], from: midnight)
        let label = String(format: "%04d-%02d-%02d", day.year ?? 0, day.month ?? 0, day.day ?? 0)
        let shown = try runTool(AgentProcess.stepctlPath, ["--socket", agent.socketPath, "history", "--by", "day", "--last", "4d"],
                                environment: ["TZ": "America/New_York"])
        #expect(shown.status == 0, "\(shown.error)")
        let row = shown.output.split(separator: "\n").first { $0.contains("777") }.map(String.init) ?? ""
        #expect(row.hasPrefix(label), "\(shown.output)")
        #expect(shown.output.contains("(time zone Europe/Berlin)"), "\(shown.output)")
        let answer = try client.call(.stepsCollection, ["start": .double(start - 3600), "end": .double(start + 3600), "interval": ["hours": 1]])
        #expect(answer["time_zone"] == "Europe/Berlin")
        #expect(try client.call(.status)["time_zone"] == "Europe/Berlin")
        // "today" starts at the agent's midnight, shown as such (it read "18:00" the day before).
        let today = berlin.dateComponents([.year, .month, .day], from: Date())
        let todayLabel = String(format: "%04d-%02d-%02d 00:00", today.year ?? 0, today.month ?? 0, today.day ?? 0)
        let shownToday = try runTool(AgentProcess.stepctlPath, ["--socket", agent.socketPath, "today"], environment: ["TZ": "America/New_York"])
        #expect(shownToday.output.contains("period    \(todayLabel) - "), "\(shownToday.output)")
        #expect(agent.terminate() == 0)
    }

    /// CMPedometer startUpdates(from:): the steps since `from` arrive at once after the answer.
    @Test func subscribeFromAPastTime() throws {
        let agent = try AgentProcess(arguments: ["--simulate", "builtin", "--replay-speed", "5"], environment: ["TZ": "UTC"])
        _ = try agent.waitForStatus { ($0.value(atPath: "steps.since_start")?.intValue ?? 0) > 30 }
        let client = try agent.connect()
        let from = now() - 600
        let own = SampleSelection(sources: ["detector:simulated"])
        let before = try StepsQueryResult(json: client.call(.stepsQuery, StepsQueryParams(range: .between(start: from, end: now()), selection: own).json))
        let subscription = try SubscribeResult(json: client.call(.stepsSubscribe, StepsSubscribeParams(updateOn: 1_000, from: from).json))
        guard let first = try client.nextNotification(timeout: 30) else { throw AgentTestError("no steps.update") }
        let update = try StepsUpdateNotice(json: first.params)
        let after = try StepsQueryResult(json: client.call(.stepsQuery, StepsQueryParams(range: .between(start: from, end: now()), selection: own).json))
        #expect(update.subscription == subscription.subscription && update.start == from)
        #expect(update.steps >= before.steps && update.steps <= after.steps && update.steps > 0)
        do {
            _ = try client.call(.stepsSubscribe, StepsSubscribeParams(from: now() - 8 * 86_400).json)
            Issue.record("from 8 days back accepted")
        } catch {}
        #expect(agent.terminate() == 0)
    }
}

/// activity.query gives the segment going on now the live confidence (stored records keep
/// none); it did so only when the range ended now, so a range running past the present (an
/// app asking for "today until midnight") got "medium" for the walk `activity.current` called
/// "high".
@Suite struct ActivityQueryLiveConfidenceTests {
    @Test func theOngoingSegmentHasTheLiveConfidenceWhereverTheRangeEnds() throws {
        let agent = try AgentProcess(arguments: ["--simulate", "builtin", "--replay-speed", "10"], environment: ["TZ": "UTC"])
        let client = try agent.connect()
        let status = try agent.waitForStatus(timeout: 60) {
            $0.value(atPath: "activity.type") == "walking" && $0.value(atPath: "activity.confidence") == "high"
                && ($0.value(atPath: "steps.since_start")?.intValue ?? 0) >= 20
        }
        let now = try #require(status["time"]?.doubleValue)
        for end in [now, now + 3600] {
            let answer = try client.call(.activityQuery, ["start": .double(now - 600), "end": .double(end)])
            let last = try #require(answer["segments"]?.arrayValue?.last, "\(answer.jsonText)")
            #expect(last["type"] == "walking", "end now + \(end - now) s: \(answer.jsonText)")
            #expect(last["confidence"] == "high", "end now + \(end - now) s: \(answer.jsonText)")
        }
        #expect(agent.terminate() == 0)
    }
}

/// A real sensor that never answered: the first activity state ("unknown") read as begun at the
/// machine's boot, hours before the agent started (sensor time 0 on CLOCK_MONOTONIC).
@Suite struct ActivityStartTests {
    @Test func noActivityBeganBeforeTheAgent() throws {
        let directory = try makeTemporaryDirectory("stepd-absent")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let board = try writeAbsentSensorBoard(in: directory)
        let before = Date().timeIntervalSince1970
        let agent = try AgentProcess(arguments: ["--board", board])
        let status = try agent.waitForStatus { $0.value(atPath: "sensor.health") == "lost" }
        let start = try #require(status.value(atPath: "activity.start")?.doubleValue, "\(status.jsonText)")
        #expect(status.value(atPath: "activity.type") == "unknown")
        #expect(start >= before - 1 && start <= (status["time"]?.doubleValue ?? 0), "unknown since \(before - start) s before the agent started")
        #expect(agent.terminate() == 0)
    }
}
