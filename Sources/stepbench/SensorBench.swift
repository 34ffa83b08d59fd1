import ArgumentParser
import ChipEmulation
import Glibc
import MotionCore
import Recordings
import SensorChips
import StepdModel
import ToolSupport

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

    @Option(help: "Clock run: the emulated chip, mpu6050 or lis3dh.")
    var chip: String?

    @Option(parsing: .unconditional, help: "Clock run: the chip's oscillator error in percent (e.g. 5 = 5 % fast), within ±15.")
    var clockError: Double?

    @Option(parsing: .unconditional, help: "Clock run: oscillator drift in percent per minute (the error is held at ±15 %).")
    var drift: Double = 0

    @Option(help: "Clock run or table: a t,x,y,z recording to replay (repeat for the table).")
    var recording: [String] = []

    @Flag(help: "Clock run: print one JSON object.")
    var json = false

    @Flag(help: "Table over both chips and clock errors -5, -2, +2, +5 % and ±0.5 %/min drift for each --recording.")
    var clockTable = false

    @Flag(help: "With a clock run or --clock-table: exit 1 when a target is missed.")
    var check = false

    @Option(help: "Seed of the read-time jitter.")
    var seed: UInt64 = 11

    @Option(help: "Clock run: write what firmware stamping bursts at the nominal rate records (CSV) here.")
    var nominalStampsOut: String?

    @Option(help: "Clock run: write the same samples at their true times (CSV) here.")
    var trueStampsOut: String?

    var chipModel: ChipModel? { chip.flatMap { ChipModel(rawValue: $0) } }

    func validate() throws {
        guard minutes > 0, minutes <= 24 * 60 else { throw ValidationError("--minutes must be more than 0 and at most 1440") }
        guard faultAt >= 1, faultAt <= 600 else { throw ValidationError("--fault-at must be from 1 to 600 seconds") }
        if let chip, ChipModel(rawValue: chip) == nil { throw ValidationError("--chip takes \(ChipModel.allCases.map(\.rawValue).joined(separator: " or ")), got '\(chip)'") }
        if let clockError, !Oscillator.accepts(clockError) {
            throw ValidationError("--clock-error is a percentage within ±\(Int(Oscillator.limitPercent)), got \(clockError)")
        }
        guard drift.isFinite, abs(drift) <= 5 else { throw ValidationError("--drift is in percent per minute, within ±5, got \(drift)") }
        if clockError != nil && clockTable { throw ValidationError("--clock-error runs one chip; --clock-table runs them all: give one") }
        if clockError != nil {
            guard chip != nil else { throw ValidationError("--clock-error needs --chip mpu6050|lis3dh") }
            guard recording.count == 1 else { throw ValidationError("--clock-error needs exactly one --recording FILE") }
        } else if clockTable {
            guard !recording.isEmpty else { throw ValidationError("--clock-table needs at least one --recording FILE") }
            guard chip == nil, drift == 0, !json, nominalStampsOut == nil, trueStampsOut == nil else {
                throw ValidationError("--clock-table runs both chips at its own clock errors and prints a table: --chip, --drift, --json and the stamp files go with --clock-error")
            }
        } else if chip != nil || !recording.isEmpty || json || check || drift != 0 || nominalStampsOut != nil || trueStampsOut != nil {
            throw ValidationError("--chip, --drift, --recording, --json, --check and the stamp files go with --clock-error (or --recording with --clock-table)")
        }
    }

    func run() throws {
        if clockError != nil || clockTable {
            try runClock()
            return
        }
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

    // MARK: - Clock runs

    func runClock() throws {
        var missed = false
        if let clockError, let model = chipModel, let path = recording.first {
            let samples = try RecordingReader.read(path: path)
            let nominal = SensorClockBench.run(model: model, errorPercent: 0, driftPercentPerMinute: 0, recording: samples, seed: seed)
            let result = SensorClockBench.run(model: model, errorPercent: clockError, driftPercentPerMinute: drift,
                                              recording: samples, seed: seed)
            let stamped = try SensorClockBench.stampedRecordings(model: model, errorPercent: clockError,
                                                                 driftPercentPerMinute: drift, recording: samples, seed: seed)
            if let path = nominalStampsOut { try write(stamped.nominal, to: path) }
            if let path = trueStampsOut { try write(stamped.truth, to: path) }
            let analysis = (RecordingAnalysis.run(stamped.nominal).steps, RecordingAnalysis.run(stamped.truth).steps)
            let object = SensorClockBench.json(result, nominalSteps: nominal.steps, recording: path, analysis: analysis)
            missed = object.value(atPath: "targets_met")?.boolValue != true
            if json {
                print(object.jsonText)
            } else {
                printTable(clockRows([(path, result, nominal.steps)]))
                print("")
                printTable([["analysis of", "nominal-stamped steps", "true-clock steps", "off %"],
                            [path, "\(analysis.0)", "\(analysis.1)",
                             fixedDecimal(SensorClockBench.percentOff(analysis.0, from: analysis.1), 2)]])
            }
        } else {
            let settings: [(Double, Double)] = [(-5, 0), (-2, 0), (2, 0), (5, 0), (0, 0.5), (0, -0.5)]
            var runs: [(String, ClockRunResult, Int)] = []
            var analyses = [["recording", "chip", "clock error %", "nominal-stamped steps", "true-clock steps", "off %"]]
            print("Sensor clocks: each recording through each emulated chip with its oscillator off, read-time jitter seed \(seed)")
            print("targets: 0 gaps, 0 re-anchors, rate estimate within \(SensorClockBench.rateTolerancePercent) % after 30 s, steps within \(SensorClockBench.stepTolerancePercent) % of the nominal clock")
            for path in recording {
                let samples = try RecordingReader.read(path: path)
                let name = baseName(path)
                for model in ChipModel.allCases {
                    let nominal = SensorClockBench.run(model: model, errorPercent: 0, driftPercentPerMinute: 0, recording: samples, seed: seed)
                    for (error, drift) in settings {
                        let run = SensorClockBench.run(model: model, errorPercent: error, driftPercentPerMinute: drift,
                                                       recording: samples, seed: seed)
                        if !SensorClockBench.meetsTargets(run, nominalSteps: nominal.steps) { missed = true }
                        runs.append((name, run, nominal.steps))
                    }
                    for error in [-5.0, 5.0] {
                        let stamped = try SensorClockBench.stampedRecordings(model: model, errorPercent: error, driftPercentPerMinute: 0,
                                                                             recording: samples, seed: seed)
                        let n = RecordingAnalysis.run(stamped.nominal).steps
                        let t = RecordingAnalysis.run(stamped.truth).steps
                        let off = SensorClockBench.percentOff(n, from: t)
                        if abs(off) > SensorClockBench.analysisTolerancePercent { missed = true }
                        analyses.append([name, model.displayName, fixedDecimal(error, 1), "\(n)", "\(t)", fixedDecimal(off, 2)])
                    }
                }
            }
            printTable(clockRows(runs))
            print("")
            print("Analysis of recordings a firmware stamped at the nominal rate (bursts step back at each read) against true-clock stamps (target within \(SensorClockBench.analysisTolerancePercent) %)")
            printTable(analyses)
            print("")
            print(missed ? "targets: MISSED" : "targets: all met")
        }
        if check && missed { throw ExitCode(1) }
    }

    func clockRows(_ runs: [(String, ClockRunResult, Int)]) -> [[String]] {
        var rows = [["recording", "chip", "error %", "drift %/min", "samples", "gaps", "re-anchors", "est. rate Hz", "true rate Hz",
                     "worst rate err % (>30 s)", "steps", "steps @0 %", "off %"]]
        for (name, r, nominal) in runs {
            rows.append([name, r.chip.displayName, fixedDecimal(r.clockErrorPercent, 1), fixedDecimal(r.driftPercentPerMinute, 2),
                         "\(r.samples)", "\(r.gaps)", "\(r.reanchors)", r.estimatedRate.map { fixedDecimal($0, 3) } ?? "-",
                         fixedDecimal(r.trueRate, 3), r.worstRateErrorPercent.map { fixedDecimal($0, 3) } ?? "-",
                         "\(r.steps)", "\(nominal)", fixedDecimal(SensorClockBench.percentOff(r.steps, from: nominal), 2)])
        }
        return rows
    }

    func baseName(_ path: String) -> String {
        let last = path.split(separator: "/").last.map(String.init) ?? path
        return last.hasSuffix(".csv.gz") ? String(last.dropLast(7)) : last
    }

    func write(_ samples: [AccelSample], to path: String) throws {
        let writer = try GzipCSVWriter(path: path)
        try writer.append(contentsOf: samples)
        try writer.finish()
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
