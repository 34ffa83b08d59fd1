import ChipEmulation
import MotionCore
import SensorChips
import StepJSON
import StepdModel
import ToolSupport

/// What one replay of a recording through an emulated chip with an off-nominal oscillator gave.
struct ClockRunResult {
    var chip: ChipModel
    var clockErrorPercent: Double
    var driftPercentPerMinute: Double
    var seconds: Double
    /// Samples delivered to the motion core.
    var samples: Int
    /// Batches delivered with a gap before them.
    var gaps: Int
    var reanchors: Int
    var estimatedRate: Double?
    /// The chip's true rate at the end of the run.
    var trueRate: Double
    /// The largest |estimate / truth - 1| (percent) seen at any burst from 30 s on.
    var worstRateErrorPercent: Double?
    var steps: Int
}

/// `stepbench sensor --clock-error`: the sensor path on a simulated clock with an emulated chip
/// whose oscillator is off by a given error (and drifting), driven like the agent's poll loop,
/// with scheduling jitter on every read, into the motion engine.
enum SensorClockBench {
    /// The estimate is judged from this many seconds after the first samples.
    static let settleSeconds = 30.0
    /// Targets (issue 11): rate estimate, steps against the nominal clock, analysis of
    /// nominal-stamped files against true-clock files.
    static let rateTolerancePercent = 0.2
    static let stepTolerancePercent = 1.0
    static let analysisTolerancePercent = 2.0

    /// Read-time jitter: most reads a few milliseconds after they were due, one in fifty
    /// 10 to 50 ms late (another process had the core).
    static func jitter(_ rng: inout SplitMix64) -> Double {
        let fraction = Double(rng.next() % 1_000_000) / 1_000_000
        if rng.below(50) == 0 { return 0.010 + 0.040 * fraction }
        return 0.004 * fraction
    }

    static func run(model: ChipModel, errorPercent: Double, driftPercentPerMinute: Double,
                    recording: [AccelSample], seed: UInt64) -> ClockRunResult {
        let clock = ManualClock(start: 0)
        let sim = SimulatedSensor(model: model, samples: recording, clock: clock, clockErrorPercent: errorPercent,
                                  clockDriftPercentPerMinute: driftPercentPerMinute)
        let supervisor = sim.makeSupervisor(settings: SensorSettings(chip: model), logger: .silent)
        var engine = MotionEngine()
        var rng = SplitMix64(seed: seed)
        let end = span(of: recording)
        var samples = 0
        var gaps = 0
        var firstSamples: Double?
        var worst: Double?
        while supervisor.nextServiceTime <= end {
            clock.advance(to: supervisor.nextServiceTime + jitter(&rng))
            let batch = supervisor.service()
            if batch.gapBeforeSamples {
                gaps += 1
                engine.markGap()
            }
            for sample in batch.samples { _ = engine.process(sample) }
            samples += batch.samples.count
            guard !batch.samples.isEmpty else { continue }
            guard let first = firstSamples else {
                firstSamples = clock.time
                continue
            }
            if clock.time - first >= settleSeconds {
                let truth = model.descriptor.sampleRate * sim.oscillator.factor(at: clock.time)
                let error = supervisor.status.estimatedRate.map { abs($0 / truth - 1) * 100 } ?? Double.infinity
                worst = max(worst ?? 0, error)
            }
        }
        _ = engine.finish()
        return ClockRunResult(chip: model, clockErrorPercent: errorPercent, driftPercentPerMinute: driftPercentPerMinute,
                              seconds: end, samples: samples, gaps: gaps, reanchors: supervisor.reanchors,
                              estimatedRate: supervisor.status.estimatedRate,
                              trueRate: model.descriptor.sampleRate * sim.oscillator.factor(at: clock.time),
                              worstRateErrorPercent: worst, steps: engine.totalSteps)
    }

    /// What a firmware that stamps each FIFO burst backwards from its read time at the nominal
    /// period records (`nominal`), beside the same samples at the times the chip really took
    /// them (`truth`). Bursts at the chip's default interval, with the same read jitter.
    static func stampedRecordings(model: ChipModel, errorPercent: Double, driftPercentPerMinute: Double,
                                  recording: [AccelSample], seed: UInt64) throws -> (nominal: [AccelSample], truth: [AccelSample]) {
        let clock = ManualClock(start: 0)
        let sim = SimulatedSensor(model: model, samples: recording, clock: clock, clockErrorPercent: errorPercent,
                                  clockDriftPercentPerMinute: driftPercentPerMinute)
        let driver = try makeDriver(model: model, bus: sim.bus, address: sim.address, rangeG: 4, interruptOnDataReady: false)
        clock.advance(to: try driver.startReset())
        try driver.configure()
        var rng = SplitMix64(seed: seed)
        let nominalPeriod = 1 / driver.sampleRate
        let end = span(of: recording)
        var nominal: [AccelSample] = []
        var truth: [AccelSample] = []
        var readTime = clock.time
        while readTime < end {
            readTime += model.descriptor.defaultBurstInterval + jitter(&rng)
            clock.advance(to: readTime)
            guard case .samples(let vectors, _) = try driver.readBurst() else { continue }
            let newest = sim.chip.newestSampleTime
            let truePeriod = 1 / (driver.sampleRate * sim.oscillator.factor(at: newest))
            for (i, v) in vectors.enumerated() {
                let back = Double(vectors.count - 1 - i)
                nominal.append(AccelSample(t: readTime - back * nominalPeriod, x: v.x, y: v.y, z: v.z))
                truth.append(AccelSample(t: newest - back * truePeriod, x: v.x, y: v.y, z: v.z))
            }
        }
        return (nominal, truth)
    }

    static func span(of recording: [AccelSample]) -> Double {
        guard let first = recording.first, let last = recording.last else { return 0 }
        return max(0, last.t - first.t)
    }

    /// Percent difference of `value` from `reference` (0 when both are 0).
    static func percentOff(_ value: Int, from reference: Int) -> Double {
        guard reference != 0 else { return value == 0 ? 0 : Double.infinity }
        return (Double(value) / Double(reference) - 1) * 100
    }

    static func meetsTargets(_ run: ClockRunResult, nominalSteps: Int) -> Bool {
        run.gaps == 0 && run.reanchors == 0
            && (run.worstRateErrorPercent ?? Double.infinity) <= rateTolerancePercent
            && abs(percentOff(run.steps, from: nominalSteps)) <= stepTolerancePercent
    }

    static func json(_ run: ClockRunResult, nominalSteps: Int, recording: String,
                     analysis: (nominalStamped: Int, trueClock: Int)?) -> JSONValue {
        var object: JSONObject = [
            "chip": .string(run.chip.rawValue),
            "recording": .string(recording),
            "clock_error_pct": .double(run.clockErrorPercent),
            "drift_pct_per_min": .double(run.driftPercentPerMinute),
            "seconds": .double(DecimalText.rounded(run.seconds, decimals: 3)),
            "samples": .int(run.samples),
            "gaps": .int(run.gaps),
            "reanchors": .int(run.reanchors),
            "estimated_rate_hz": .double(run.estimatedRate.map { DecimalText.rounded($0, decimals: 3) }),
            "true_rate_hz": .double(DecimalText.rounded(run.trueRate, decimals: 3)),
            "worst_rate_error_pct_after_30s": .double(run.worstRateErrorPercent.map { DecimalText.rounded($0, decimals: 3) }),
            "steps": .int(run.steps),
            "steps_at_nominal_clock": .int(nominalSteps),
            "steps_vs_nominal_pct": .double(DecimalText.rounded(percentOff(run.steps, from: nominalSteps), decimals: 2)),
        ]
        var met = meetsTargets(run, nominalSteps: nominalSteps)
        if let analysis {
            let off = percentOff(analysis.nominalStamped, from: analysis.trueClock)
            object["analyze_nominal_stamped_steps"] = .int(analysis.nominalStamped)
            object["analyze_true_clock_steps"] = .int(analysis.trueClock)
            object["analyze_nominal_vs_true_pct"] = .double(DecimalText.rounded(off, decimals: 2))
            met = met && abs(off) <= analysisTolerancePercent
        }
        object["targets_met"] = .bool(met)
        return .object(object)
    }
}
