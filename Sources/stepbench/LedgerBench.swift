import ArgumentParser
import CivilTime
import Glibc
import Ledger
import LedgerStore
import StepdModel
import ToolSupport

/// `stepbench ledger ...`: durability and query-latency measurements of the step ledger.
struct LedgerBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ledger",
        abstract: "Ledger harnesses: torn-write recovery and query latency on a year of data.",
        subcommands: [TornWrites.self, Queries.self, Generate.self, SyncBench.self]
    )

    struct TornWrites: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "torn-writes",
            abstract: "Truncate or corrupt the last bytes of a ledger file at random, recover, and check that every intact record and nothing else survives. Exits 1 on any failure."
        )

        @Option(help: "Number of random damages.") var iterations = 1000
        @Option(help: "Records in the damaged file.") var records = 40
        @Option(help: "Random seed (reproducible runs).") var seed: UInt64 = 1
        @Option(help: "Scratch directory (default: a new one under /tmp, removed afterwards).") var scratch: String?

        func run() throws {
            var random = SplitMix64(seed: seed)
            let base = scratch ?? makeScratchDirectory("stepbench-torn")
            let t0 = 1_718_000_000.0
            let source = SampleSource(id: "this-device", kind: .detector)
            let originals = (0..<records).map { index in
                StepRecord(sequence: UInt64(index + 1), start: t0 + Double(index) * 60, end: t0 + Double(index) * 60 + 55,
                           utcOffset: 7200, steps: 100, distance: 71.5, activity: .walking, source: source)
            }
            let lines = originals.map(RecordCodec.encode)
            let original = lines.flatMap { $0 }
            let fileName = LedgerFiles.fileName(day: LedgerFiles.day(of: originals[0]))
            let tailWindow = lines.suffix(2).reduce(0) { $0 + $1.count }
            var stats = (truncations: 0, corruptions: 0, both: 0, kept: 0, lostIntact: 0, acceptedDamaged: 0, failures: 0,
                         movedAside: 0, cut: 0)
            let fs = PosixFileSystem()
            for iteration in 0..<iterations {
                var bytes = original
                var firstChange = bytes.count
                let mode = Int(random.next() % 3)
                if mode != 1 {  // truncate somewhere in the last two records
                    let cut = bytes.count - 1 - Int(random.next() % UInt64(tailWindow))
                    bytes.removeLast(bytes.count - cut)
                    firstChange = cut
                }
                if mode != 0 {  // overwrite 1-4 bytes among the last ones
                    for _ in 0..<(1 + Int(random.next() % 4)) where !bytes.isEmpty {
                        let index = bytes.count - 1 - Int(random.next() % UInt64(min(tailWindow, bytes.count)))
                        let value = UInt8(truncatingIfNeeded: random.next())
                        if bytes[index] != value {
                            bytes[index] = value
                            firstChange = min(firstChange, index)
                        }
                    }
                }
                switch mode {
                case 0: stats.truncations += 1
                case 1: stats.corruptions += 1
                default: stats.both += 1
                }
                // Intact: whole line present and not a byte changed.
                var expected: [UInt64] = []
                var offset = 0
                for (index, line) in lines.enumerated() {
                    let range = offset..<(offset + line.count)
                    offset += line.count
                    if range.upperBound <= bytes.count && Array(bytes[range]) == line { expected.append(originals[index].sequence) }
                }
                let state = base + "/run-\(iteration)"
                _ = try? fs.makeDirectory(state)
                _ = try? fs.makeDirectory(state + "/ledger")
                try fs.writeFileDurably(state + "/ledger/" + fileName, bytes)
                let service = try LedgerService(stateDirectory: state, options: LedgerOptions(), logger: .silent)
                let recovered = LedgerFileScan(bytes: try fs.readFile(state + "/ledger/" + fileName))
                let got = recovered.records.map(\.record.sequence)
                let verify = try LedgerVerifier.verify(stateDirectory: state)
                let expectedSet = Set(expected)
                let missing = expected.filter { !got.contains($0) }.count
                let extra = got.filter { !expectedSet.contains($0) }.count
                let ok = missing == 0 && extra == 0 && verify.isClean && recovered.records.count == service.recordCount
                    && recovered.records.map(\.record) == originals.filter { expectedSet.contains($0.sequence) }
                stats.kept += got.count
                stats.lostIntact += missing
                stats.acceptedDamaged += extra
                if verify.damagedFilesAside > 0 { stats.movedAside += 1 } else if bytes.count != recovered.validLength { stats.cut += 1 }
                if !ok {
                    stats.failures += 1
                    print("FAIL iteration \(iteration): expected \(expected.count) records, recovered \(got.count), missing \(missing), extra \(extra), verify clean \(verify.isClean)")
                }
                _ = system("rm -rf '\(state)'")
            }
            if scratch == nil { _ = system("rm -rf '\(base)'") }
            let rows: [(String, String)] = [
                ("damages", "\(iterations) (\(stats.truncations) truncations, \(stats.corruptions) corruptions, \(stats.both) both)"),
                ("records per file", "\(records)"),
                ("intact records kept", "\(stats.kept)"),
                ("intact records lost", "\(stats.lostIntact)"),
                ("damaged records accepted", "\(stats.acceptedDamaged)"),
                ("files moved aside (damage before an intact record)", "\(stats.movedAside)"),
                ("failures", "\(stats.failures)"),
            ]
            printTable(title: "stepbench ledger torn-writes (seed \(seed))", rows)
            if stats.failures > 0 { throw ExitCode(1) }
        }
    }

    struct Queries: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Query latency, start-up time and memory on a year of synthetic ledger files."
        )

        @Option(help: "Days of synthetic data.") var days = 365
        @Option(help: "Repetitions per query.") var repetitions = 200
        @Option(help: "Time zone for local-day queries.") var timeZone = "Europe/Berlin"
        @Option(help: "Random seed.") var seed: UInt64 = 7
        @Flag(help: "Exit 1 when a p99 target is missed (use with -c release).") var checkTargets = false

        func run() throws {
            let zone: TimeZoneRule
            do { zone = try TimeZoneLoader.load(timeZone) } catch { throw ValidationError("\(error)") }
            let state = makeScratchDirectory("stepbench-ledger-year")
            defer { _ = system("rm -rf '\(state)'") }
            let end = Double(CivilCalendar.days(year: 2025, month: 6, day: 1) * 86400)
            let generated = LedgerBench.generateYear(into: state, days: days, end: end, zone: zone, seed: seed)

            let rssBefore = residentKilobytes()
            let startBegin = monotonicNow()
            let service = try LedgerService(stateDirectory: state, options: LedgerOptions(), logger: .silent)
            let startup = monotonicNow() - startBegin
            let rssAfter = residentKilobytes()

            let now = end - 3600 * 5
            func measure(_ body: () throws -> Double) rethrows -> (p50: Double, p99: Double, value: Double) {
                var times: [Double] = []
                var value = 0.0
                for _ in 0..<repetitions {
                    let begin = monotonicNow()
                    value = try body()
                    times.append(monotonicNow() - begin)
                }
                times.sort()
                return (times[times.count / 2], times[min(times.count - 1, Int(Double(times.count) * 0.99))], value)
            }
            let today = try measure { try service.today(now: now, timeZone: zone).steps }
            let week = try measure {
                let from = LedgerQueries.todayRange(now: now, timeZone: zone).start - 6 * 86400
                return try service.statisticsCollection(from: from, to: now, anchor: from, interval: .hours(1), timeZone: zone)
                    .reduce(0) { $0 + $1.steps }
            }
            let year = try measure {
                let from = LedgerQueries.todayRange(now: now, timeZone: zone).start - Double(days - 1) * 86400
                return try service.statisticsCollection(from: from, to: now, anchor: from, interval: .days(1), timeZone: zone)
                    .reduce(0) { $0 + $1.steps }
            }
            func ms(_ seconds: Double) -> String { fixedDecimal(seconds * 1000, 3) + " ms" }
            print("stepbench ledger queries: \(days) day files, \(generated.records) records (\(generated.watchRecords) watch), \(generated.bytes) bytes, zone \(timeZone)")
            print("")
            print(column("query", 26) + column("p50", 12) + column("p99", 12) + column("target p99", 12) + column("ok", 4) + "steps")
            let rows: [(String, (p50: Double, p99: Double, value: Double), Double?)] = [
                ("today", today, 0.001), ("last 7 days by hour", week, nil), ("last year by day", year, 0.010),
            ]
            var missed = false
            for (name, result, target) in rows {
                let ok = target.map { result.p99 <= $0 } ?? true
                missed = missed || !ok
                print(column(name, 26) + column(ms(result.p50), 12) + column(ms(result.p99), 12)
                      + column(target.map { ms($0) } ?? "-", 12) + column(ok ? "yes" : "NO", 4) + fixedDecimal(result.value, 0))
            }
            print("")
            printTable(title: "start-up with a year of files", [
                ("verify + load", ms(startup)),
                ("RSS before load", "\(rssBefore) kB"),
                ("RSS after load", "\(rssAfter) kB (+\(rssAfter - rssBefore) kB)"),
                ("records loaded", "\(service.recordCount)"),
            ])
            if checkTargets && missed { throw ExitCode(1) }
        }

    }

    struct Generate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write synthetic day files (the `queries` pattern) into a state directory, e.g. to measure stepd's start-up and memory with a year of ledger."
        )

        @Option(help: "State directory (its ledger/ subdirectory must not hold day files yet).") var stateDir: String
        @Option(help: "Days of synthetic data, ending yesterday.") var days = 365
        @Option(help: "Time zone of the day pattern.") var timeZone = "Europe/Berlin"
        @Option(help: "Random seed.") var seed: UInt64 = 7

        func run() throws {
            let zone: TimeZoneRule
            do { zone = try TimeZoneLoader.load(timeZone) } catch { throw ValidationError("\(error)") }
            guard days >= 1 && days <= 3660 else { throw ValidationError("--days must be 1...3660") }
            let fs = PosixFileSystem()
            _ = try? fs.makeDirectory(stateDir)
            if let existing = try fs.listDirectory(stateDir + "/" + LedgerFiles.directoryName),
               existing.contains(where: { LedgerFiles.day(ofFileName: $0) != nil }) {
                throw ValidationError("\(stateDir)/\(LedgerFiles.directoryName) already holds day files; use an empty state directory")
            }
            let end = Double(CivilCalendar.dayNumber(utcSeconds: Int64(wallNow())) * 86400)
            let generated = LedgerBench.generateYear(into: stateDir, days: days, end: end, zone: zone, seed: seed)
            print("wrote \(days) day files, \(generated.records) records (\(generated.watchRecords) watch), \(generated.bytes) bytes to \(stateDir)/\(LedgerFiles.directoryName)")
        }
    }
}

extension LedgerBench {
        /// ~8-10k steps a day in walking bouts between 07:00 and 22:00 local, a record per 100
        /// steps like the agent writes; a watch records about a quarter of the bouts as well.
    static func generateYear(into state: String, days: Int, end: Double, zone: TimeZoneRule, seed: UInt64)
        -> (records: Int, watchRecords: Int, bytes: Int) {
            var random = SplitMix64(seed: seed)
            let fs = PosixFileSystem()
            _ = try? fs.makeDirectory(state + "/ledger")
            let detector = SampleSource(id: "this-device", kind: .detector)
            let watch = SampleSource(id: "watch-1", kind: .device)
            var sequence: UInt64 = 0
            var byDay: [Int: [UInt8]] = [:]
            var count = 0, watchCount = 0, bytes = 0
            let firstDay = CivilCalendar.dayNumber(utcSeconds: Int64(end)) - days
            for day in firstDay..<(firstDay + days) {
                let midnight = zone.utc(fromLocal: Double(day * 86400))
                var target = 8000 + Int(random.next() % 2000)
                var clock = midnight + 7 * 3600 + Double(random.next() % 1800)
                while target > 0 && clock < midnight + 22 * 3600 {
                    let bout = min(target, 300 + Int(random.next() % 1700))
                    let cadence = 1.7 + Double(random.next() % 30) / 100
                    let boutStart = clock
                    var left = bout
                    while left > 0 {
                        let steps = min(100, left)
                        let duration = Double(steps - 1) / cadence
                        sequence += 1
                        let record = StepRecord(sequence: sequence, start: clock, end: clock + duration,
                                                utcOffset: Int32(zone.offset(at: clock)), steps: steps,
                                                distance: Double(steps) * 0.72, activity: .walking, source: detector)
                        byDay[LedgerFiles.day(of: record), default: []] += RecordCodec.encode(record)
                        count += 1
                        clock += duration + 1 / cadence
                        left -= steps
                    }
                    if random.next() % 4 == 0 {
                        sequence += 1
                        let record = StepRecord(sequence: sequence, start: boutStart - 30, end: clock + 30,
                                                utcOffset: Int32(zone.offset(at: boutStart)), steps: bout * 97 / 100,
                                                distance: Double(bout) * 0.7, activity: .walking, source: watch)
                        byDay[LedgerFiles.day(of: record), default: []] += RecordCodec.encode(record)
                        count += 1
                        watchCount += 1
                    }
                    target -= bout
                    clock += 600 + Double(random.next() % 5400)
                }
            }
            for (day, data) in byDay {
                try? fs.writeFileDurably(state + "/ledger/" + LedgerFiles.fileName(day: day), data)
                bytes += data.count
            }
            return (count, watchCount, bytes)
        }
}

private func makeScratchDirectory(_ prefix: String) -> String {
    var template = Array("/tmp/\(prefix)-XXXXXX".utf8CString)
    return template.withUnsafeMutableBufferPointer { buffer in
        buffer.baseAddress.flatMap { mkdtemp($0) }.map { String(cString: $0) } ?? "/tmp/\(prefix)-\(getpid())"
    }
}

/// VmRSS from /proc/self/status, kB.
private func residentKilobytes() -> Int {
    guard let bytes = try? PosixFileSystem().readFile("/proc/self/status") else { return 0 }
    for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") where line.hasPrefix("VmRSS:") {
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }
    return 0
}

private func printTable(title: String, _ rows: [(String, String)]) {
    print(title)
    let width = (rows.map(\.0.count).max() ?? 0) + 2
    for (key, value) in rows { print(column(key, width) + value) }
}
