import Glibc
import Ledger
import LedgerStore
import StepdModel
import Testing

/// Issue 12: the answers a syncing client gets must mean what HealthKit's would.
@Suite(.serialized) struct TrustTests {
    let t0 = utc(2024, 6, 1, 8)

    /// Defect 3: a source's distance in `by_source` was the total split by step share, so a
    /// source that gave no distance got some. Each source now carries its own merged distance.
    @Test func perSourceDistanceIsTheSourcesOwn() throws {
        let samples = [
            record(1, t0, t0 + 600, steps: 800, distance: 600),                 // detector
            record(2, t0 + 600, t0 + 1200, steps: 400, source: phone),          // phone, no distance
            record(3, t0 + 300, t0 + 900, steps: 600, source: watch, distance: 450),  // half covered by the detector
        ]
        let merged = try LedgerQueries.pedometer(samples, from: t0, to: t0 + 3600, priority: SourcePriority(order: [detector, watch, phone]),
                                                 splitBySource: true)
        #expect(merged.bySource[phone]?.distance == 0)
        #expect(merged.bySource[detector]?.distance == 600)
        #expect(abs((merged.bySource[watch]?.distance ?? 0) - 225) < 1e-9)
        #expect(abs(merged.distance - 825) < 1e-9)
        let total = merged.bySource.values.reduce(0) { $0 + $1.distance }
        #expect(abs(total - merged.distance) < 1e-9)
    }

    /// Defect 5: among sources of one kind the alphabetically first won ("phone" beat "watch").
    /// Without a set order the source seen first wins; a set order wins over that.
    @Test func priorityIsFirstSeenThenTheUsersOrder() throws {
        let w = SampleSource(id: "watch", kind: .app), p = SampleSource(id: "phone", kind: .app)
        let samples = [
            record(1, t0, t0 + 600, steps: 600, source: w),
            record(2, t0, t0 + 600, steps: 900, source: p),
        ]
        let byDefault = try LedgerQueries.pedometer(samples, from: t0, to: t0 + 3600)
        #expect(byDefault.steps == 600)
        let phoneFirst = try LedgerQueries.pedometer(samples, from: t0, to: t0 + 3600, priority: SourcePriority(order: [p]))
        #expect(phoneFirst.steps == 900)
        #expect(SourcePriority(order: [p]).ranked([detector, w, p]) == [p, detector, w])
    }

    @Test func priorityOrderIsKeptAcrossRestarts() throws {
        let dir = makeTemporaryDirectory()
        defer { removeTree(dir) }
        let service = try LedgerService(stateDirectory: dir, options: LedgerOptions(), logger: .silent)
        try service.addSample(ExternalSample(start: t0, end: t0 + 600, steps: 600, source: watch), now: t0 + 700)
        try service.addSample(ExternalSample(start: t0, end: t0 + 600, steps: 900, source: phone), now: t0 + 700)
        #expect(try service.pedometerData(from: t0, to: t0 + 3600).steps == 600)
        try service.setSourcePriority([phone, watch])
        #expect(try service.pedometerData(from: t0, to: t0 + 3600).steps == 900)
        let again = try LedgerService(stateDirectory: dir, options: LedgerOptions(), logger: .silent)
        #expect(again.sourcePriority.order == [phone, watch])
        #expect(try again.pedometerData(from: t0, to: t0 + 3600).steps == 900)
        #expect(again.rankedSources == [phone, watch])
    }

    /// Defect 6: statistics day buckets ran from the range start (noon to noon), so the
    /// buckets depended on the time of day asked. They follow local midnight now.
    @Test func statisticsDaysAreCalendarDays() throws {
        let samples = [
            record(1, utc(2024, 6, 1, 2), utc(2024, 6, 1, 2, 10), steps: 1000),
            record(2, utc(2024, 6, 1, 20), utc(2024, 6, 1, 20, 10), steps: 2000),
            record(3, utc(2024, 6, 2, 6), utc(2024, 6, 2, 6, 10), steps: 500),
        ]
        let noonToNoon = try LedgerQueries.statistics(samples, from: utc(2024, 6, 1, 12), to: utc(2024, 6, 2, 12), interval: .days(1),
                                                      timeZone: .utc)
        #expect(noonToNoon.bucketCount == 2)
        #expect(noonToNoon.maximumSteps == 2000 && noonToNoon.minimumSteps == 500)
        let collection = try LedgerQueries.collection(samples, from: utc(2024, 6, 1, 12), to: utc(2024, 6, 2, 12),
                                                      anchor: utc(2024, 6, 1), interval: .days(1), timeZone: .utc)
        #expect(collection.map(\.steps) == [2000, 500])
    }

    /// Defect 4: deleting one live and one already-deleted id deleted the live one and then
    /// answered an error, so a retry failed on the first. Deletes are all or none now.
    @Test func deletesAreAllOrNone() throws {
        let dir = makeTemporaryDirectory()
        defer { removeTree(dir) }
        let service = try LedgerService(stateDirectory: dir, options: LedgerOptions(), logger: .silent)
        let a = try service.addSample(ExternalSample(start: t0, end: t0 + 60, steps: 60, source: phone), now: t0 + 700)
        let b = try service.addSample(ExternalSample(start: t0 + 100, end: t0 + 160, steps: 60, source: phone), now: t0 + 700)
        let w = try service.addSample(ExternalSample(start: t0 + 200, end: t0 + 260, steps: 60, source: watch), now: t0 + 700)
        try service.deleteSample(sequence: a.sequence, source: phone, now: t0 + 800)
        let first = try service.deleteSamples(sequences: [b.sequence, a.sequence], source: phone, now: t0 + 800)
        #expect(first.tombstones.map(\.deletes) == [b.sequence] && first.alreadyDeleted == [a.sequence])
        let retry = try service.deleteSamples(sequences: [b.sequence, a.sequence], source: phone, now: t0 + 800)
        #expect(retry.tombstones.isEmpty && retry.alreadyDeleted == [b.sequence, a.sequence])
        // Another source's sample in the list: nothing is deleted.
        let c = try service.addSample(ExternalSample(start: t0 + 300, end: t0 + 360, steps: 60, source: phone), now: t0 + 700)
        #expect(throws: LedgerError.self) {
            try service.deleteSamples(sequences: [c.sequence, w.sequence], source: phone, now: t0 + 800)
        }
        #expect(try service.pedometerData(from: t0, to: t0 + 3600).steps == 120)
    }

    @Test func severalSamplesAreAddedAllOrNone() throws {
        let dir = makeTemporaryDirectory()
        defer { removeTree(dir) }
        let service = try LedgerService(stateDirectory: dir, options: LedgerOptions(), logger: .silent)
        let good = ExternalSample(start: t0, end: t0 + 60, steps: 60, source: phone)
        let bad = ExternalSample(start: t0 + 100, end: t0 + 160, steps: 10_000, source: phone)
        #expect(throws: LedgerError.self) { try service.addSamples([good, bad], now: t0 + 700) }
        #expect(service.recordCount == 0)
        let added = try service.addSamples([good, ExternalSample(start: t0 + 100, end: t0 + 160, steps: 50, source: phone)], now: t0 + 700)
        #expect(added.map(\.status) == [.added, .added] && service.recordCount == 2)
    }

    /// HKMetadataKeySyncIdentifier: same identifier, higher version replaces; equal or lower
    /// changes nothing; the identifiers survive a restart.
    @Test func syncIdentifiersMakeWritesIdempotent() throws {
        let dir = makeTemporaryDirectory()
        defer { removeTree(dir) }
        var changes: [LedgerChange] = []
        let service = try LedgerService(stateDirectory: dir, options: LedgerOptions(), logger: .silent)
        service.onChange = { changes.append($0) }
        func sample(_ steps: Int, version: Int64) -> ExternalSample {
            ExternalSample(start: t0, end: t0 + 600, steps: steps, source: phone, sync: SampleSync(identifier: "walk-7", version: version))
        }
        let first = try service.addSamples([sample(500, version: 1)], now: t0 + 700)[0]
        #expect(first.status == .added)
        #expect(try service.addSamples([sample(500, version: 1)], now: t0 + 700)[0].status == .unchanged)
        let replaced = try service.addSamples([sample(700, version: 2)], now: t0 + 700)[0]
        #expect(replaced.status == .replaced)
        #expect(try service.pedometerData(from: t0, to: t0 + 3600).steps == 700)
        #expect(changes.contains { $0.reasons.contains(.add) } && changes.contains { $0.reasons.contains(.delete) })
        let again = try LedgerService(stateDirectory: dir, options: LedgerOptions(), logger: .silent)
        let stale = try again.addSamples([sample(900, version: 1)], now: t0 + 700)[0]
        #expect(stale.status == .unchanged && stale.record.sequence == replaced.record.sequence)
        #expect(again.syncMetadata(sequence: replaced.record.sequence) == SampleSync(identifier: "walk-7", version: 2))
        #expect(try again.pedometerData(from: t0, to: t0 + 3600).steps == 700)
    }

    @Test func sampleListingByStart() throws {
        let samples = (0..<10).map { record(UInt64($0 + 1), t0 + Double($0) * 100, t0 + Double($0) * 100 + 50, steps: 10, source: phone) }
            + [record(11, t0 + 20, t0 + 30, steps: 5, source: watch, flags: .userEntered)]
        let store = SampleStore(samples)
        #expect(store.liveRecords(startingFrom: t0, to: t0 + 500, filter: SampleFilter(), limit: 100).count == 6)
        #expect(store.liveRecords(startingFrom: t0, to: t0 + 500, filter: SampleFilter(includeUserEntered: false), limit: 100).count == 5)
        #expect(store.liveRecords(startingFrom: t0, to: t0 + 500, filter: SampleFilter(sources: [watch]), limit: 100).map(\.sequence) == [11])
        #expect(store.liveRecords(startingFrom: t0 + 150, to: t0 + 2000, filter: SampleFilter(), limit: 3).map(\.sequence) == [3, 4, 5])
    }
}
