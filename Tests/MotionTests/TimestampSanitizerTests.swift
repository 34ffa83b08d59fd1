import MotionCore
import Recordings
import StepdModel
import Testing

@Suite struct TimestampSanitizerTests {
    @Test("monotonic input passes through bit for bit")
    func passThrough() {
        var input = TimestampSanitizer()
        let times = (0..<500).map { 12.5 + Double($0) * 0.0237 }
        #expect(times.map { input.admit($0) } == times)
    }

    @Test("steps back of a period or two at burst boundaries are absorbed and paid back")
    func absorbsBurstBoundaries() {
        var input = TimestampSanitizer()
        // Firmware stamping bursts of 42 samples back from each 1 s read at 25 ms: every burst
        // starts 25 ms before the previous one ended.
        var stamped: [Double] = []
        for k in 1...60 {
            let read = Double(k)
            for i in 0..<42 { stamped.append(read - Double(41 - i) * 0.025) }
        }
        let out = stamped.map { input.admit($0) }
        #expect(zip(out.dropFirst(), out).allSatisfy { $0 >= $1 })
        // Within a burst the offset is paid back: the last sample of each burst is on its stamp.
        for k in 1...60 { #expect(abs(out[k * 42 - 1] - stamped[k * 42 - 1]) < 1e-9) }
    }

    @Test("a jump back of more than a second is a discontinuity, and reset starts afresh")
    func discontinuity() {
        var input = TimestampSanitizer()
        _ = input.admit(100)
        _ = input.admit(100.025)
        #expect(input.admit(98.5) == 98.5)
        #expect(input.admit(98.525) == 98.525)
        _ = input.admit(98.55)
        input.reset()
        #expect(input.admit(98.54) == 98.54)
    }

    @Test("the engine counts a walk stamped with backward steps at burst boundaries like the true-clock walk")
    func engineAbsorbsBurstStamps() throws {
        let path = #filePath.split(separator: "/").dropLast(2).joined(separator: "/")
        let truth = try RecordingReader.read(path: "/" + path + "/Fixtures/oxford-samsung_carmelo_hard_armband_2.csv.gz")
        // The same samples stamped by firmware that thinks the chip runs 5 % slower than it
        // does: each one-second burst is stretched, then the next steps back to its read time.
        var stamped: [AccelSample] = []
        var burst: [AccelSample] = []
        var nextRead = (truth.first?.t ?? 0) + 1
        func flush() {
            let period = burst.count > 1 ? (burst[burst.count - 1].t - burst[0].t) / Double(burst.count - 1) * 1.05 : 0
            let end = burst.last?.t ?? 0
            for (i, s) in burst.enumerated() {
                stamped.append(AccelSample(t: end - Double(burst.count - 1 - i) * period, x: s.x, y: s.y, z: s.z))
            }
            burst.removeAll()
        }
        for sample in truth {
            if sample.t > nextRead {
                flush()
                nextRead += 1
            }
            burst.append(sample)
        }
        flush()
        #expect(zip(stamped.dropFirst(), stamped).contains { $0.t < $1.t }, "the stamps must step back somewhere")
        let expected = RecordingAnalysis.run(truth).steps
        let counted = RecordingAnalysis.run(stamped).steps
        #expect(expected > 100)
        #expect(abs(Double(counted - expected)) <= Double(expected) * 0.02, "\(counted) steps, \(expected) on the true clock")
    }
}
