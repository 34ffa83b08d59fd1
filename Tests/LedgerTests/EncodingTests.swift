import Ledger
import POSIXLayer
import StepdModel
import Testing

@Suite struct EncodingTests {
    let samples: [StepRecord] = [
        record(1, 1_718_000_000.123, 1_718_000_050.9, steps: 100, distance: 78.125),
        StepRecord(sequence: 2, start: 1_718_000_100, end: 1_718_000_200, utcOffset: -18000, steps: 0, distance: 0,
                   activity: .automotive, source: detector),
        record(3, -5, 10, steps: 7, source: SampleSource(id: "app:fit@x_1.2", kind: .manual), flags: .userEntered),
        StepRecord(sequence: 9, start: 1, end: 2, utcOffset: 19800, steps: 0, distance: 0, activity: .walking,
                   source: phone, flags: [.tombstone, .userEntered], deletes: 3),
    ]

    @Test func roundTrip() throws {
        for sample in samples {
            let line = RecordCodec.encode(sample)
            #expect(line.last == 0x0A)
            #expect(line.count <= RecordCodec.maximumLineLength)
            let decoded = try RecordCodec.decode(line.dropLast()).get()
            #expect(decoded == sample)
        }
    }

    @Test func formatIsGreppable() {
        let text = String(decoding: RecordCodec.encode(samples[0]), as: UTF8.self)
        #expect(text.hasPrefix("S1 1 1718000000123 1718000050900 0 100 78.125 walking detector this-device - 0 "))
    }

    @Test func everySingleByteFlipIsCaught() {
        for sample in samples {
            let line = Array(RecordCodec.encode(sample).dropLast())
            for index in line.indices {
                for bit in 0..<8 {
                    var damaged = line
                    damaged[index] ^= UInt8(1 << bit)
                    if case .success = RecordCodec.decode(damaged) {
                        Issue.record("flip of bit \(bit) at \(index) accepted")
                    }
                }
                for value in [UInt8(0x20), 0x30, 0x0A, 0x00, 0xFF] where value != line[index] {
                    var damaged = line
                    damaged[index] = value
                    if case .success = RecordCodec.decode(damaged) { Issue.record("byte \(value) at \(index) accepted") }
                }
            }
        }
    }

    /// "A documented example is a test": the record lines docs/ledger.md shows decode (checksum
    /// included) and are the canonical spelling of what they decode to.
    @Test func documentedRecordsDecode() throws {
        let repository = #filePath.split(separator: "/").dropLast(3).joined(separator: "/")
        let text = String(decoding: try FileSystem.readFile("/" + repository + "/docs/ledger.md"), as: UTF8.self)
        let examples = text.split(separator: "\n").filter { $0.hasPrefix("S1 ") && $0.dropFirst(3).first?.isNumber == true }
        #expect(examples.count >= 3)
        for example in examples {
            switch RecordCodec.decode(Array(example.utf8)) {
            case .success(let record):
                #expect(String(decoding: RecordCodec.encode(record).dropLast(), as: UTF8.self) == example)
            case .failure(let error):
                let fields = example.split(separator: " ")
                let crc = CRC32C.checksum(Array(example.utf8.dropLast(fields.last?.utf8.count ?? 0).dropLast()))
                Issue.record("docs/ledger.md: '\(example)': \(error) (the checksum of the rest is \(String(crc, radix: 16)))")
            }
        }
    }

    @Test func crcKnownVector() {
        #expect(CRC32C.checksum(Array("123456789".utf8)) == 0xE306_9283)
    }

    @Test func rejectsInconsistentRecords() {
        #expect(throws: RecordDecodeError.self) { try RecordCodec.decode(Array("S2 1 2 3".utf8)).get() }
        let backwards = StepRecord(sequence: 1, startMs: 10, endMs: 5, utcOffset: 0, steps: 1, distanceMm: 0,
                                   activity: .walking, source: detector)
        #expect(throws: RecordDecodeError.self) { try RecordCodec.decode(RecordCodec.encode(backwards).dropLast()).get() }
    }
}

@Suite struct ScanAndIntegrityTests {
    func fileBytes(_ records: [StepRecord]) -> [UInt8] { records.flatMap(RecordCodec.encode) }

    @Test func tornTailAtEveryOffsetOfTheLastRecord() {
        let records = (1...5).map { record(UInt64($0), Double($0) * 100, Double($0) * 100 + 50, steps: 100) }
        let bytes = fileBytes(records)
        let lastStart = bytes.count - RecordCodec.encode(records[4]).count
        for cut in lastStart..<bytes.count {
            let scan = LedgerFileScan(bytes: Array(bytes[0..<cut]))
            #expect(scan.records.map(\.record) == Array(records[0..<4]), "cut at \(cut)")
            #expect(scan.validLength == lastStart)
            #expect(scan.hasTornTail == (cut > lastStart))
            #expect(!scan.isDamaged)
        }
        #expect(LedgerFileScan(bytes: bytes).records.count == 5)
    }

    @Test func corruptLineInsideMarksDamage() {
        let records = (1...3).map { record(UInt64($0), Double($0) * 100, Double($0) * 100 + 50, steps: 10) }
        var bytes = fileBytes(records)
        bytes[RecordCodec.encode(records[0]).count + 5] ^= 0x01
        let scan = LedgerFileScan(bytes: bytes)
        #expect(scan.isDamaged)
        #expect(scan.records.map(\.record.sequence) == [1, 3])
    }

    @Test func duplicatesAndOverlapsRefused() {
        let a = record(1, 0, 100, steps: 100)
        let b = record(2, 100, 200, steps: 100)  // touching is fine
        let dupSeq = record(2, 500, 600, steps: 3, source: phone)
        let overlap = record(3, 150, 250, steps: 100)
        let externalOverlap = record(4, 0, 300, steps: 400, source: phone)
        let outcome = LedgerIntegrity.check([a, b, dupSeq, overlap, externalOverlap])
        #expect(outcome.accepted.map(\.sequence) == [1, 2, 4])
        #expect(outcome.duplicates.count == 2)
        #expect(LedgerIntegrity.check([a, a]).duplicates.count == 1)
    }
}

@Suite struct CheckpointPolicyTests {
    let policy = CheckpointPolicy()

    @Test func cases() {
        #expect(policy.checkpointReason(pendingSteps: 0, unsavedSince: nil, now: 100, shuttingDown: true) == nil)
        #expect(policy.checkpointReason(pendingSteps: 99, unsavedSince: 0, now: 59.9) == nil)
        #expect(policy.checkpointReason(pendingSteps: 100, unsavedSince: 0, now: 1) == .stepLimit)
        #expect(policy.checkpointReason(pendingSteps: 1, unsavedSince: 0, now: 60) == .unsavedAge)
        #expect(policy.checkpointReason(pendingSteps: 1, unsavedSince: 0, now: 2, activityChanged: true) == .activityChange)
        #expect(policy.checkpointReason(pendingSteps: 5, unsavedSince: 0, now: 2, shuttingDown: true) == .shutdown)
        #expect(policy.dueTime(pendingSteps: 3, unsavedSince: 10) == 70)
        #expect(policy.dueTime(pendingSteps: 0, unsavedSince: 10) == nil)
    }

    @Test func hostileNumbersBecomeRecordsWithoutTrapping() {
        // Int64(Double) traps on these; the ledger caps or zeroes them instead.
        #expect(LedgerTime.milliseconds(1e300) == LedgerTime.maximumMilliseconds)
        #expect(LedgerTime.milliseconds(-1e300) == -LedgerTime.maximumMilliseconds)
        #expect(LedgerTime.milliseconds(.nan) == 0 && LedgerTime.milliseconds(.infinity) == 0)
        #expect(LedgerTime.milliseconds(1_718_000_000.1234) == 1_718_000_000_123)
        let huge = record(1, 0, 1, steps: 1, distance: .greatestFiniteMagnitude)
        #expect(huge.distanceMm == LedgerTime.maximumMilliseconds)
        #expect(record(1, 0, 1, steps: 1, distance: .nan).distanceMm == 0)
    }

    @Test func refusesTimesBeyondTheLedgerRange() {
        // A checksum-valid line with times whose difference overflows Int64 must be refused,
        // not trap later when the store measures the record's length.
        let line = RecordCodec.encode(StepRecord(sequence: 1, startMs: -Int64.max, endMs: Int64.max, utcOffset: 0,
                                                 steps: 1, distanceMm: 0, activity: .walking, source: detector))
        #expect(RecordCodec.decode(line.dropLast()) == .failure(.badField(name: "start", value: "\(-Int64.max)")))
        let edge = StepRecord(sequence: 2, startMs: -LedgerTime.maximumMilliseconds, endMs: LedgerTime.maximumMilliseconds,
                              utcOffset: 0, steps: 1, distanceMm: 0, activity: .walking, source: detector)
        #expect(RecordCodec.decode(RecordCodec.encode(edge).dropLast()) == .success(edge))
        _ = SampleStore([edge])
    }
}

