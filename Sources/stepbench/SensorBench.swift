import ArgumentParser
import ChipEmulation
import Glibc
import SensorChips
import StepdModel

/// `stepbench sensor`: the sampling loop against each emulated chip on a manual clock, driven
/// the way the agent's poll loop drives it (sleep until `nextServiceTime`, call `service()`).
struct SensorBenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sensor",
        abstract: "Bus traffic, wakeups, CPU and fault recovery of the sensor path on the emulated chips.")

    @Option(help: "Simulated minutes per chip and bus mode.")
    var minutes: Double = 10

    @Option(help: "Seconds of sensor time into each recovery run at which the fault is injected.")
    var faultAt: Double = 20.3

    func validate() throws {
        guard minutes > 0, minutes <= 24 * 60 else { throw ValidationError("--minutes must be more than 0 and at most 1440") }
        guard faultAt >= 1, faultAt <= 600 else { throw ValidationError("--fault-at must be from 1 to 600 seconds") }
    }

    func run() throws {
        let recording = benchRecording()
        print("Sampling loop, \(fixedDecimal(minutes, 1)) simulated minutes per row (no faults)")
        var steady = [["chip", "bus", "samples/s", "wakeups/s", "transactions/s", "bytes/s", "CPU ms/sim-min", "gaps", "health"]]
        for model in ChipModel.allCases {
            for smbus in [false, true] {
                let r = steadyRun(model: model, smbusOnly: smbus, seconds: minutes * 60, recording: recording)
                steady.append([model.displayName, smbus ? "SMBus" : "I2C_RDWR", fixedDecimal(r.sampleRate, 2), fixedDecimal(r.wakeups, 2),
                           fixedDecimal(r.transactions, 2), fixedDecimal(r.bytes, 1), fixedDecimal(r.cpuPerMinute * 1000, 3),
                           "\(r.gaps)", r.health.rawValue])
            }
        }
        printTable(steady)
        print("")
        print("Recovery after an injected fault at t = \(fixedDecimal(faultAt, 1)) s (sensor seconds until samples flow again)")
        var recovery = [["chip", "fault", "detected after s", "recovered after s", "gaps", "errors", "overflows", "re-inits", "health at end"]]
        let faults = ["reset", "overflow", "nack x3", "nack x10", "eio x3", "vanish 5 s", "wrongid 3 s"]
        let specs = ["reset@T", "overflow@T", "nack@Tx3", "nack@Tx10", "eio@Tx3", "vanish@T+5", "wrongid@T+3"]
        for model in ChipModel.allCases {
            for (name, spec) in zip(faults, specs) {
                let schedule = try FaultSchedule(parsing: spec.replacingT(with: faultAt))
                let r = recoveryRun(model: model, schedule: schedule, recording: recording)
                recovery.append([model.displayName, name, r.detected.map { fixedDecimal($0, 2) } ?? "-",
                           r.recovered.map { fixedDecimal($0, 2) } ?? "never", "\(r.status.gaps)", "\(r.status.readErrors)",
                           "\(r.status.overflows)", "\(r.status.reinits)", r.status.health.rawValue])
            }
        }
        printTable(recovery)
    }

    struct SteadyResult {
        var sampleRate: Double
        var wakeups: Double
        var transactions: Double
        var bytes: Double
        var cpuPerMinute: Double
        var gaps: Int
        var health: SensorHealth
    }

    func steadyRun(model: ChipModel, smbusOnly: Bool, seconds: Double, recording: [AccelSample]) -> SteadyResult {
        let clock = ManualClock(start: 1000)
        let sim = SimulatedSensor(model: model, samples: recording, smbusOnly: smbusOnly, clock: clock)
        let supervisor = sim.makeSupervisor(settings: SensorSettings(chip: model), logger: .silent)
        // Let probe and configuration finish before measuring.
        var wakeups = 0
        var samples = 0
        var gaps = 0
        drive(supervisor, clock: clock, until: clock.time + 5, wakeups: &wakeups, samples: &samples, gaps: &gaps)
        wakeups = 0
        samples = 0
        gaps = 0
        let transactions0 = sim.bus.transactions
        let bytes0 = sim.bus.bytesTransferred
        let start = clock.time
        let cpu0 = cpuSeconds()
        drive(supervisor, clock: clock, until: start + seconds, wakeups: &wakeups, samples: &samples, gaps: &gaps)
        let cpu = cpuSeconds() - cpu0
        return SteadyResult(sampleRate: Double(samples) / seconds, wakeups: Double(wakeups) / seconds,
                            transactions: Double(sim.bus.transactions - transactions0) / seconds,
                            bytes: Double(sim.bus.bytesTransferred - bytes0) / seconds,
                            cpuPerMinute: cpu / (seconds / 60), gaps: gaps, health: supervisor.status.health)
    }

    struct RecoveryResult {
        var detected: Double?
        var recovered: Double?
        var status: SensorStatus
    }

    func recoveryRun(model: ChipModel, schedule: FaultSchedule, recording: [AccelSample]) -> RecoveryResult {
        let clock = ManualClock(start: 1000)
        let sim = SimulatedSensor(model: model, samples: recording, faults: schedule, clock: clock)
        let supervisor = sim.makeSupervisor(settings: SensorSettings(chip: model), logger: .silent)
        let faultTime = clock.time + faultAt
        var recovered: Double?
        var detected: Double?
        let end = faultTime + 120
        while clock.time < end {
            let next = min(supervisor.nextServiceTime, end)
            // Faults land on time even while the bus is idle, as they would on real hardware.
            if clock.time < faultTime && next >= faultTime {
                clock.advance(to: faultTime)
                sim.bus.applyDueFaults()
            }
            clock.advance(to: next)
            let errorsBefore = supervisor.status
            let batch = supervisor.service()
            let after = supervisor.status
            if clock.time >= faultTime && detected == nil
                && (after.readErrors != errorsBefore.readErrors || after.overflows != errorsBefore.overflows
                    || after.resetsDetected != errorsBefore.resetsDetected || after.health != errorsBefore.health) {
                detected = clock.time - faultTime
            }
            if clock.time >= faultTime && recovered == nil && !batch.samples.isEmpty && detected != nil {
                recovered = clock.time - faultTime
            }
        }
        return RecoveryResult(detected: detected, recovered: recovered, status: supervisor.status)
    }

    func drive(_ supervisor: SensorSupervisor, clock: ManualClock, until end: Double, wakeups: inout Int,
               samples: inout Int, gaps: inout Int) {
        while true {
            let next = supervisor.nextServiceTime
            guard next <= end else { break }
            clock.advance(to: next)
            wakeups += 1
            let batch = supervisor.service()
            samples += batch.samples.count
            if batch.gapBeforeSamples { gaps += 1 }
        }
        clock.advance(to: end)
    }

    /// A walking-like arm swing: the bench measures the path, not the signal.
    func benchRecording() -> [AccelSample] {
        (0..<2000).map { i in
            let t = Double(i) / 100
            return AccelSample(t: t, x: 0.4 * sin(2 * .pi * 1.8 * t), y: 0.15 * cos(2 * .pi * 0.9 * t),
                               z: 1 + 0.3 * sin(2 * .pi * 1.8 * t + 0.5))
        }
    }

    func cpuSeconds() -> Double {
        var usage = rusage()
        _ = getrusage(Int32(RUSAGE_SELF.rawValue), &usage)
        return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
            + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    }

    func printTable(_ rows: [[String]]) {
        var widths: [Int] = []
        for row in rows {
            for (i, cell) in row.enumerated() {
                if i >= widths.count { widths.append(0) }
                widths[i] = max(widths[i], cell.count)
            }
        }
        for row in rows {
            let line = row.enumerated().map { i, cell in cell + String(repeating: " ", count: widths[i] - cell.count) }
            print(line.joined(separator: "  "))
        }
    }
}

extension String {
    func replacingT(with time: Double) -> String {
        var out = ""
        for c in self { if c == "T" { out += "\(time)" } else { out.append(c) } }
        return out
    }
}
