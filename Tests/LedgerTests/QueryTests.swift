import CivilTime
import Ledger
import LedgerStore
import StepdModel
import Testing

func utc(_ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0, _ minute: Int = 0) -> Double {
    Double(CivilCalendar.days(year: year, month: month, day: day) * 86400 + hour * 3600 + minute * 60)
}

@Suite struct TimeZoneTests {
    @Test func berlinDST() throws {
        let berlin = try loadZone("Europe/Berlin")
        #expect(berlin.offset(at: utc(2024, 1, 15)) == 3600)
        #expect(berlin.offset(at: utc(2024, 7, 1)) == 7200)
        #expect(berlin.offset(at: utc(2024, 3, 31, 0, 59)) == 3600)
        #expect(berlin.offset(at: utc(2024, 3, 31, 1, 0)) == 7200)
        #expect(berlin.offset(at: utc(2024, 10, 27, 0, 59)) == 7200)
        #expect(berlin.offset(at: utc(2024, 10, 27, 1, 0)) == 3600)
        // Far future comes from the footer rule.
        #expect(berlin.offset(at: utc(2100, 7, 1)) == 7200)
        #expect(berlin.offset(at: utc(2100, 12, 1)) == 3600)
    }

    @Test func newYorkDST() throws {
        let newYork = try loadZone("America/New_York")
        #expect(newYork.offset(at: utc(2024, 3, 10, 6, 59)) == -18000)
        #expect(newYork.offset(at: utc(2024, 3, 10, 7, 0)) == -14400)
        #expect(newYork.offset(at: utc(2024, 11, 3, 5, 59)) == -14400)
        #expect(newYork.offset(at: utc(2024, 11, 3, 6, 0)) == -18000)
    }

    @Test func posixRuleAlone() throws {
        let rule = try POSIXTimeZone("CET-1CEST,M3.5.0,M10.5.0/3")
        #expect(rule.offset(at: Int64(utc(2050, 7, 1))) == 7200)
        #expect(rule.offset(at: Int64(utc(2050, 1, 1))) == 3600)
        let south = try POSIXTimeZone("AEST-10AEDT,M10.1.0,M4.1.0/3")
        #expect(south.offset(at: Int64(utc(2050, 1, 1))) == 39600)
        #expect(south.offset(at: Int64(utc(2050, 7, 1))) == 36000)
        #expect(throws: TimeZoneError.self) { try POSIXTimeZone("CET-1CEST,M13.5.0,M10.5.0") }
    }

    @Test func fixedOffsetsAndErrors() throws {
        #expect(try TimeZoneRule.parseFixedOffset("+02:00") == .fixed(seconds: 7200))
        #expect(try TimeZoneRule.parseFixedOffset("-0530") == .fixed(seconds: -19800))
        #expect(try TimeZoneRule.parseFixedOffset("UTC") == .utc)
        #expect(throws: TimeZoneError.self) { try TimeZoneRule.parseFixedOffset("2 hours") }
        #expect(throws: TimeZoneLoader.LoadError.self) { try TimeZoneLoader.load("Mars/Olympus") }
        #expect(throws: TimeZoneLoader.LoadError.self) { try TimeZoneLoader.load("../etc/passwd") }
        #expect(throws: TimeZoneError.self) { try TZifZone(bytes: Array("TZif2".utf8)) }
        #expect(throws: TimeZoneError.self) { try TZifZone(bytes: [1, 2, 3]) }
    }

    @Test func truncatedTZifNeverCrashes() throws {
        let bytes = readFile("/usr/share/zoneinfo/Europe/Berlin")
        #expect(bytes.count > 100)
        for length in stride(from: 0, to: bytes.count, by: 7) {
            _ = try? TZifZone(bytes: Array(bytes[0..<length]))
        }
    }

    @Test func nonFiniteTimesDoNotTrap() throws {
        let berlin = try loadZone("Europe/Berlin")
        #expect(berlin.offset(at: .nan) == berlin.offset(at: 0))
        #expect(berlin.offset(at: .infinity) == berlin.offset(at: 1e300))
        _ = berlin.offset(at: -.infinity)
        #expect(throws: LedgerQueryError.badBucket("anchor nan must be a finite time")) {
            try LedgerQueries.bucketBoundaries(from: 0, to: 3600, anchor: .nan, interval: .hours(1), timeZone: berlin)
        }
        #expect(throws: LedgerQueryError.tooManyBuckets(Int.max)) {
            try LedgerQueries.bucketBoundaries(from: -.infinity, to: 3600, anchor: 0, interval: .hours(1), timeZone: berlin)
        }
        #expect(throws: LedgerQueryError.self) {
            try LedgerQueries.bucketBoundaries(from: -1e300, to: 1e300, anchor: 0, interval: .minutes(1), timeZone: .utc)
        }
    }
}

@Suite struct QueryTests {
    @Test func prorateAcrossBucketBoundary() throws {
        // 120 steps over 10:50-11:10: 60 in each hour.
        let samples = [record(1, utc(2024, 6, 1, 10, 50), utc(2024, 6, 1, 11, 10), steps: 120, distance: 100)]
        let buckets = try LedgerQueries.collection(samples, from: utc(2024, 6, 1), to: utc(2024, 6, 2), anchor: utc(2024, 6, 1),
                                                   interval: .hours(1), timeZone: .utc)
        #expect(buckets.count == 24)
        #expect(abs(buckets[10].steps - 60) < 1e-9)
        #expect(abs(buckets[11].steps - 60) < 1e-9)
        #expect(abs(buckets[10].distance - 50) < 1e-9)
        let partial = try LedgerQueries.pedometer(samples, from: utc(2024, 6, 1, 11), to: utc(2024, 6, 1, 11, 5))
        #expect(abs(partial.steps - 30) < 1e-9)
    }

    /// The last bucket ran to its grid boundary past the range: a collection to 10:30 by hour
    /// ended with 10:00-11:00 (and a day by day ended at the next midnight).
    @Test func theLastBucketEndsAtTheRangeEnd() throws {
        let samples = [record(1, utc(2024, 6, 1, 10, 10), utc(2024, 6, 1, 10, 50), steps: 80)]
        let hourly = try LedgerQueries.collection(samples, from: utc(2024, 6, 1, 8), to: utc(2024, 6, 1, 10, 30),
                                                  anchor: utc(2024, 6, 1), interval: .hours(1), timeZone: .utc)
        #expect(hourly.map(\.start) == [utc(2024, 6, 1, 8), utc(2024, 6, 1, 9), utc(2024, 6, 1, 10)])
        #expect(hourly.last?.end == utc(2024, 6, 1, 10, 30))
        #expect(abs((hourly.last?.steps ?? 0) - 40) < 1e-9)
        let daily = try LedgerQueries.collection(samples, from: utc(2024, 5, 30), to: utc(2024, 6, 1, 12),
                                                 anchor: utc(2024, 5, 30), interval: .days(1), timeZone: .utc)
        #expect(daily.map(\.end) == [utc(2024, 5, 31), utc(2024, 6, 1), utc(2024, 6, 1, 12)])
        // A range that ends on a boundary is unchanged.
        let whole = try LedgerQueries.collection(samples, from: utc(2024, 6, 1, 8), to: utc(2024, 6, 1, 11),
                                                 anchor: utc(2024, 6, 1), interval: .hours(1), timeZone: .utc)
        #expect(whole.last?.end == utc(2024, 6, 1, 11))
    }

    @Test func dayBucketsFollowDST() throws {
        let berlin = try loadZone("Europe/Berlin")
        let from = utc(2024, 3, 29, 23)  // local midnight 30 March
        let to = utc(2024, 4, 1, 22)
        let samples = [
            record(1, utc(2024, 3, 30, 22, 30), utc(2024, 3, 30, 23, 30), steps: 100),  // 23:30-00:30 local: split 50/50
            record(2, utc(2024, 3, 31, 21, 50), utc(2024, 3, 31, 21, 59), steps: 10),  // 23:50 local on the short day
        ]
        let buckets = try LedgerQueries.collection(samples, from: from, to: to, anchor: from, interval: .days(1), timeZone: berlin)
        #expect(buckets.count == 3)
        #expect(buckets[1].end - buckets[1].start == 23 * 3600)
        #expect(buckets[1].start == utc(2024, 3, 30, 23))
        #expect(abs(buckets[0].steps - 50) < 1e-9)
        #expect(abs(buckets[1].steps - 60) < 1e-9)
        let autumn = try LedgerQueries.bucketBoundaries(from: utc(2024, 10, 26, 22), to: utc(2024, 10, 27, 23), anchor: utc(2023, 12, 31, 23),
                                                        interval: .days(1), timeZone: berlin)
        #expect(autumn == [utc(2024, 10, 26, 22), utc(2024, 10, 27, 23)])
        let today = LedgerQueries.todayRange(now: utc(2024, 3, 31, 12), timeZone: berlin)
        #expect(today.start == utc(2024, 3, 30, 23) && today.end == utc(2024, 3, 31, 22))
        let newYork = try loadZone("America/New_York")
        let nyToday = LedgerQueries.todayRange(now: utc(2024, 11, 3, 12), timeZone: newYork)
        #expect(nyToday.end - nyToday.start == 25 * 3600)
    }

    @Test func phoneAndWatchCountedOnce() throws {
        // Both carried 10:00-10:10; the watch also 10:10-10:20 alone.
        let samples = [
            record(1, utc(2024, 6, 1, 10), utc(2024, 6, 1, 10, 10), steps: 1000, source: phone),
            record(2, utc(2024, 6, 1, 10), utc(2024, 6, 1, 10, 20), steps: 1800, source: watch),
        ]
        let from = utc(2024, 6, 1), to = utc(2024, 6, 2)
        let byPriority = SourcePriority(order: [phone])
        let merged = try LedgerQueries.pedometer(samples, from: from, to: to, priority: byPriority, splitBySource: true)
        #expect(abs(merged.steps - 1900) < 1e-9)
        #expect(abs((merged.bySource[watch]?.steps ?? 0) - 900) < 1e-9)
        let watchFirst = try LedgerQueries.pedometer(samples, from: from, to: to, priority: SourcePriority(order: [watch]))
        #expect(abs(watchFirst.steps - 1800) < 1e-9)
        let phoneOnly = try LedgerQueries.pedometer(samples, from: from, to: to, filter: SampleFilter(sources: [phone]))
        #expect(abs(phoneOnly.steps - 1000) < 1e-9)
    }

    @Test func detectorWinsByDefaultAndUserEnteredExcluded() throws {
        let samples = [
            record(1, 1000, 1100, steps: 100),
            record(2, 1000, 1200, steps: 400, source: phone),
            record(3, 5000, 6000, steps: 700, source: SampleSource(id: "me", kind: .manual), flags: .userEntered),
            record(4, 1050, 1050, steps: 1, source: watch),  // an instant inside the detector's time
        ]
        let plain = try LedgerQueries.pedometer(samples, from: 0, to: 10000, filter: SampleFilter(includeUserEntered: false))
        #expect(abs(plain.steps - 300) < 1e-9)
        // Like HealthKit statistics, user-entered samples count unless left out.
        let withManual = try LedgerQueries.pedometer(samples, from: 0, to: 10000)
        #expect(abs(withManual.steps - 1000) < 1e-9)
        #expect(throws: LedgerQueryError.self) { try LedgerQueries.pedometer(samples, from: 10, to: 10) }
    }

    @Test func statisticsAndHistory() throws {
        let samples = [
            record(1, utc(2024, 6, 1, 8), utc(2024, 6, 1, 8, 10), steps: 1000),
            record(2, utc(2024, 6, 1, 8, 11), utc(2024, 6, 1, 8, 20), steps: 900),
            record(3, utc(2024, 6, 1, 9), utc(2024, 6, 1, 9, 30), steps: 0, activity: .automotive),
            record(4, utc(2024, 6, 3, 8), utc(2024, 6, 3, 8, 10), steps: 3000, activity: .running),
        ]
        let stats = try LedgerQueries.statistics(samples, from: utc(2024, 6, 1), to: utc(2024, 6, 4), interval: .days(1), timeZone: .utc)
        #expect(stats.bucketCount == 3)
        #expect(abs(stats.steps - 4900) < 1e-9)
        #expect(stats.minimumSteps == 0 && stats.maximumSteps == 3000)
        #expect(abs(stats.averageSteps - 4900.0 / 3) < 1e-9)
        let history = try LedgerQueries.activityHistory(samples, from: utc(2024, 6, 1), to: utc(2024, 6, 4))
        #expect(history.map(\.kind) == [.walking, .automotive, .running])
        #expect(history[0].start == utc(2024, 6, 1, 8) && history[0].end == utc(2024, 6, 1, 8, 20))
        #expect(history.allSatisfy { $0.confidence == LedgerQueries.storedConfidence })
    }

    @Test func syncPaging() {
        let log = (1...25).map { record(UInt64($0), Double($0), Double($0) + 1, steps: 1, source: phone) }
        var anchor: UInt64 = 0
        var seen: [UInt64] = []
        var pages = 0
        while true {
            let page = LedgerSync.page(log, after: anchor, limit: 10)
            seen += page.records.map(\.sequence)
            anchor = page.newAnchor
            pages += 1
            if !page.more { break }
        }
        #expect(seen == Array(1...25))
        #expect(pages == 3)
        let last = LedgerSync.page(log, after: 25, limit: 10)
        #expect(last.records.isEmpty && last.newAnchor == 25 && !last.more)
    }

    @Test func externalValidation() {
        let now = 10_000.0
        func check(_ sample: ExternalSample) -> SampleValidationError? {
            do { try ExternalSampleRules.validate(sample, now: now); return nil } catch { return error }
        }
        #expect(check(ExternalSample(start: 100, end: 200, steps: 150, source: phone)) == nil)
        #expect(check(ExternalSample(start: 200, end: 200, steps: 1, source: phone)) == .endNotAfterStart(start: 200, end: 200))
        #expect(check(ExternalSample(start: 100, end: 10_001, steps: 1, source: phone)) == .endInFuture(end: 10_001, now: now))
        #expect(check(ExternalSample(start: 100, end: 200, steps: -1, source: phone)) == .negativeSteps(-1))
        #expect(check(ExternalSample(start: 100, end: 200, steps: 501, source: phone)) == .implausibleSteps(steps: 501, limit: 500))
        #expect(check(ExternalSample(start: 100, end: 200, steps: 1, distance: -1, source: phone)) == .negativeDistance(-1))
        #expect(check(ExternalSample(start: 100, end: 200, steps: 1, distance: 5000, source: phone)) != nil)
        #expect(check(ExternalSample(start: 100, end: 200, steps: 1, source: detector)) == .detectorSourceReserved)
        #expect(check(ExternalSample(start: 100, end: 200, steps: 1, source: SampleSource(id: "a b", kind: .app))) == .invalidSourceId("a b"))
    }
}
