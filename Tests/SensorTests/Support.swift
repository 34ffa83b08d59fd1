import ChipEmulation
import Glibc
import SensorBus
import SensorChips
import StepdModel
import Synchronization

/// A clock the test moves by hand: no sleeping, no wall time.
final class FakeClock: SensorClock {
    var time: Double
    init(_ start: Double = 100) { time = start }
    func now() -> Double { time }
}

/// Collects log lines from an EventLogger.
final class LogCollector: Sendable {
    private let lines = Mutex<[String]>([])
    var logger: EventLogger { EventLogger { level, text in self.lines.withLock { $0.append("\(level.name): \(text)") } } }
    var all: [String] { lines.withLock { $0 } }
}

/// Drives a supervisor on a fake clock the way the agent's poll loop does.
struct Harness {
    let clock: FakeClock
    let sim: SimulatedSensor
    let supervisor: SensorSupervisor
    let log = LogCollector()
    var batches: [(time: Double, batch: SensorBatch)] = []
    var healthTrace: [SensorHealth] = []

    init(model: ChipModel, samples: [AccelSample] = walkingLike(), settings: SensorSettings? = nil,
         faults: String? = nil, smbusOnly: Bool = false, clockErrorPercent: Double = 0, clockDrift: Double = 0) throws {
        clock = FakeClock()
        let schedule = try faults.map { spec throws in try FaultSchedule(parsing: spec) }
        sim = SimulatedSensor(model: model, samples: samples, faults: schedule, smbusOnly: smbusOnly, clock: clock,
                              clockErrorPercent: clockErrorPercent, clockDriftPercentPerMinute: clockDrift)
        supervisor = SensorSupervisor(bus: sim.bus, settings: settings ?? SensorSettings(chip: model), clock: clock,
                                      dataReady: nil, logger: log.logger)
    }

    /// Runs until `seconds` of sensor time have passed from now.
    mutating func run(for seconds: Double) {
        let end = clock.time + seconds
        while true {
            let next = supervisor.nextServiceTime
            guard next <= end else {
                clock.time = end
                break
            }
            clock.time = max(clock.time, next)
            let batch = supervisor.service()
            if !batch.samples.isEmpty || batch.gapBeforeSamples { batches.append((clock.time, batch)) }
            let health = supervisor.status.health
            if healthTrace.last != health { healthTrace.append(health) }
        }
    }

    var samples: [AccelSample] { batches.flatMap(\.batch.samples) }
    var gapCount: Int { batches.filter(\.batch.gapBeforeSamples).count }
}

/// A 1.8 Hz arm swing around 1 g, sampled at 100 Hz for 10 s.
func walkingLike() -> [AccelSample] {
    (0..<1000).map { i in
        let t = Double(i) / 100
        return AccelSample(t: t, x: 0.3 * sin(2 * .pi * 1.8 * t), y: 0.1 * cos(2 * .pi * 0.9 * t), z: 1 + 0.2 * sin(2 * .pi * 1.8 * t))
    }
}

func constant(x: Double, y: Double, z: Double) -> [AccelSample] {
    (0..<100).map { AccelSample(t: Double($0) / 50, x: x, y: y, z: z) }
}

