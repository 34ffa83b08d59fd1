import CivilTime
import Ledger
import Testing

/// stepctl prints and parses local times with `LocalTime`; the agent resolves "today" and
/// buckets with `LedgerQueries`. Both read the same `TimeZoneRule`, so they must agree on
/// every wall-clock reading, including across DST changes.
@Suite struct LocalTimeTests {
    @Test func berlinSpringForwardAsStepctlPrintsIt() throws {
        let berlin = try loadZone("Europe/Berlin")
        let change = utc(2026, 3, 29, 1)
        #expect(LocalTime(utc: change - 1, zone: berlin)?.text(.dateSecond) == "2026-03-29 01:59:59")
        #expect(LocalTime(utc: change, zone: berlin)?.text(.dateSecond) == "2026-03-29 03:00:00")
        #expect(LocalTime(utc: change, zone: berlin)?.utcOffset == 7200)
        // 02:30 does not exist that night: stepctl reads it with the winter offset, as mktime does (03:30).
        #expect(LocalTime.parseISO8601("2026-03-29T02:30", zone: berlin) == utc(2026, 3, 29, 1, 30))
        #expect(LocalTime.parseISO8601("2026-03-29T01:30", zone: berlin) == utc(2026, 3, 29, 0, 30))
        #expect(LocalTime.parseISO8601("2026-03-29T03:30", zone: berlin) == utc(2026, 3, 29, 1, 30))
    }

    @Test func berlinFallBackAsStepctlPrintsIt() throws {
        let berlin = try loadZone("Europe/Berlin")
        let change = utc(2026, 10, 25, 1)
        #expect(LocalTime(utc: change - 1, zone: berlin)?.text(.dateSecond) == "2026-10-25 02:59:59")
        #expect(LocalTime(utc: change, zone: berlin)?.text(.dateSecond) == "2026-10-25 02:00:00")
        // 02:30 happens twice: the earlier one, as mktime does.
        #expect(LocalTime.parseISO8601("2026-10-25T02:30", zone: berlin) == utc(2026, 10, 25, 0, 30))
        #expect(LocalTime.parseISO8601("2026-10-25T02:30+01:00", zone: berlin) == utc(2026, 10, 25, 1, 30))
    }

    /// The agent's "today" on a 23- and a 25-hour day, printed by stepctl's code path, is local
    /// midnight to local midnight, and each instant inside prints with that day's date.
    @Test func agentTodayAgreesWithStepctlAcrossDSTChanges() throws {
        let berlin = try loadZone("Europe/Berlin")
        let days = [("2026-03-29", utc(2026, 3, 28, 23), utc(2026, 3, 29, 22)), ("2026-10-25", utc(2026, 10, 24, 22), utc(2026, 10, 25, 23))]
        for (date, midnight, nextMidnight) in days {
            #expect(nextMidnight - midnight == (date.hasPrefix("2026-03") ? 23 : 25) * 3600)
            var instant = midnight
            while instant < nextMidnight {
                let today = LedgerQueries.todayRange(now: instant, timeZone: berlin)
                #expect(today.start == midnight && today.end == nextMidnight)
                #expect(LocalTime(utc: today.start, zone: berlin)?.text(.dateMinute) == date + " 00:00")
                #expect(LocalTime(utc: today.end - 1, zone: berlin)?.text(.dateSecond) == date + " 23:59:59")
                #expect(LocalTime(utc: instant, zone: berlin)?.text(.dateMinute).hasPrefix(date) == true)
                // stepctl parsing the local midnight it printed lands on the agent's boundary.
                #expect(LocalTime.parseISO8601(date, zone: berlin) == today.start)
                instant += 1799
            }
        }
    }

    /// Hourly buckets from the agent over the fall-back night, as `stepctl history` labels them:
    /// 02:00 twice, once in summer time and once in winter time.
    @Test func agentHourBucketsLabelledByStepctl() throws {
        let berlin = try loadZone("Europe/Berlin")
        let start = utc(2026, 10, 24, 22)
        let boundaries = try LedgerQueries.bucketBoundaries(from: start, to: start + 5 * 3600, anchor: start,
                                                            interval: .hours(1), timeZone: berlin)
        let labels = boundaries.dropLast().compactMap { LocalTime(utc: $0, zone: berlin)?.text(.dateMinute) }
        #expect(labels == ["2026-10-25 00:00", "2026-10-25 01:00", "2026-10-25 02:00", "2026-10-25 02:00", "2026-10-25 03:00"])
        let days = try LedgerQueries.bucketBoundaries(from: utc(2026, 3, 28), to: utc(2026, 3, 31), anchor: utc(2026, 3, 27, 23),
                                                      interval: .days(1), timeZone: berlin)
        #expect(days.compactMap { LocalTime(utc: $0, zone: berlin)?.text(.dateWeekday) }
            == ["2026-03-28 Sat", "2026-03-29 Sun", "2026-03-30 Mon", "2026-03-31 Tue", "2026-04-01 Wed"])
        #expect(zip(days, days.dropFirst()).map { ($1 - $0) / 3600 } == [24, 23, 24, 24])
    }

    /// `stepctl --tz +02:00` loads the same rule the agent does for "time_zone": "+02:00".
    @Test func fixedOffsetZones() throws {
        let plusTwo = try loadZone("+02:00")
        #expect(plusTwo == .fixed(seconds: 7200))
        #expect(LocalTime(utc: utc(2026, 5, 1, 6, 30), zone: plusTwo)?.text(.dateMinute) == "2026-05-01 08:30")
        #expect(LocalTime.parseISO8601("2026-05-01T08:30", zone: plusTwo) == utc(2026, 5, 1, 6, 30))
        #expect(LedgerQueries.todayRange(now: utc(2026, 5, 1, 23), timeZone: plusTwo).start == utc(2026, 5, 1, 22))
        let india = try loadZone("-0530")
        #expect(LocalTime(utc: utc(2026, 1, 1), zone: india)?.text(.monthDaySecond) == "12-31 18:30:00")
        #expect(try loadZone("UTC") == .utc)
    }

    /// The agent's recording names and timestamps.
    @Test func iso8601Text() throws {
        let instant = utc(2026, 11, 22, 14, 42)
        #expect(LocalTime(utc: instant, zone: .utc)?.text(.iso8601Basic) == "20261122T144200Z")
        #expect(LocalTime(utc: instant, zone: .utc)?.text(.iso8601) == "2026-11-22T14:42:00Z")
        #expect(LocalTime(utc: instant, zone: .fixed(seconds: -19800))?.text(.iso8601) == "2026-11-22T09:12:00-05:30")
        let berlin = try loadZone("Europe/Berlin")
        #expect(LocalTime(utc: utc(2026, 7, 1), zone: berlin)?.text(.iso8601) == "2026-07-01T02:00:00+02:00")
    }

    @Test func textAndParsingEdges() throws {
        #expect(LocalTime(utc: .nan, zone: .utc) == nil)
        #expect(LocalTime(utc: 1e300, zone: .utc) == nil)
        #expect(LocalTime(utc: -0.5, zone: .utc)?.text(.dateSecond) == "1969-12-31 23:59:59")
        #expect(LocalTime(utc: utc(2026, 5, 1, 8, 30) + 15.9, zone: .utc)?.text(.timeSecond) == "08:30:15")
        #expect(LocalTime.parseISO8601("2026-05-01 08:30:15Z", zone: .utc) == utc(2026, 5, 1, 8, 30) + 15)
        #expect(LocalTime.parseISO8601("2026-05-01T08:30-0400", zone: .utc) == utc(2026, 5, 1, 12, 30))
        #expect(LocalTime.parseISO8601("2026-05-01T08:30+02", zone: .utc) == utc(2026, 5, 1, 6, 30))
        for bad in ["2026-02-30", "2026-13-01", "2026-05-01T24:00", "2026-05-01T08:30+2", "2026-05-01T08:30 UTC", "yesterday"] {
            #expect(LocalTime.parseISO8601(bad, zone: .utc) == nil, "\(bad)")
        }
    }

    /// The loader's rules without the file system: what a missing or unreadable file means.
    @Test func aPOSIXRuleInTZIsAZone() throws {
        // TZ=CET-1CEST,M3.5.0,M10.5.0/3 (no zone file of that name): Berlin's rule, +01:00 in
        // winter and +02:00 in summer, the change on the last Sunday of March at 01:00 UTC.
        let rule = try TimeZoneLoader.load("CET-1CEST,M3.5.0,M10.5.0/3") { _ throws(TimeZoneLoader.ReadFailure) in throw .missing }
        #expect(rule.offset(at: 1_767_225_600) == 3600)          // 2026-01-01T00:00Z
        #expect(rule.offset(at: 1_782_864_000) == 7200)          // 2026-07-01T00:00Z
        #expect(rule.offset(at: 1_774_746_000 - 1) == 3600)      // 2026-03-29T00:59:59Z
        #expect(rule.offset(at: 1_774_746_000) == 7200)          // 2026-03-29T01:00Z
        // A zone file of the name still wins, and text that is neither stays an unknown name.
        #expect(throws: TimeZoneLoader.LoadError.unknownName("Mars/Olympus")) {
            try TimeZoneLoader.load("Mars/Olympus") { _ throws(TimeZoneLoader.ReadFailure) in throw .missing }
        }
    }

    @Test func loaderMapsReadFailures() throws {
        #expect(throws: TimeZoneLoader.LoadError.unknownName("Mars/Olympus")) {
            try TimeZoneLoader.load("Mars/Olympus") { _ throws(TimeZoneLoader.ReadFailure) in throw .missing }
        }
        #expect(throws: TimeZoneLoader.LoadError.unreadable(path: "/usr/share/zoneinfo/Europe/Berlin", reason: "EACCES")) {
            try TimeZoneLoader.load("Europe/Berlin") { _ throws(TimeZoneLoader.ReadFailure) in throw .failed("EACCES") }
        }
        var asked: [String] = []
        _ = try? TimeZoneLoader.load(nil) { path throws(TimeZoneLoader.ReadFailure) in asked.append(path); throw .missing }
        #expect(asked == ["/etc/localtime"])
        #expect(TimeZoneLoader.environmentZoneName(["TZ": ":Europe/Berlin"]) == "Europe/Berlin")
        #expect(TimeZoneLoader.environmentZoneName([:]) == nil)
    }
}
