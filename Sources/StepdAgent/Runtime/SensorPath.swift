import ChipEmulation
import SensorBus
import SensorChips
import StepdModel

/// Where samples come from, decided once from the board file or `--simulate`.
struct SensorPlan {
    enum Source {
        /// A real i2c-dev adapter, e.g. `/dev/i2c-1`.
        case linux(devicePath: String, dataReady: (chip: String, line: Int)?)
        /// An emulated chip replaying `samples` in a loop, `speed` times faster than real time.
        case simulated(model: ChipModel, samples: [AccelSample], recordingName: String, speed: Double, faults: FaultSchedule?)
    }

    var boardName: String
    var boardFile: String?
    var source: Source
    var settings: SensorSettings
    /// The simulated chip's oscillator (`--sensor-clock-error`, `--sensor-clock-drift`).
    var clockErrorPercent = 0.0
    var clockDriftPercentPerMinute = 0.0

    /// ", chip clock +5.0 %, drifting 0.5 %/min" when the simulated chip's oscillator is off.
    var clockNote: String {
        var note = clockErrorPercent != 0 ? ", chip clock \(clockErrorPercent > 0 ? "+" : "")\(clockErrorPercent) %" : ""
        if clockDriftPercentPerMinute != 0 { note += ", chip clock drifting \(clockDriftPercentPerMinute) %/min" }
        return note
    }

    var isSimulated: Bool {
        if case .simulated = source { return true }
        return false
    }

    func describeSource() -> String {
        let chip = settings.chip?.rawValue ?? "mpu6050 or lis3dh (probed)"
        let address = settings.address.map { " at 0x" + String($0, radix: 16) } ?? ""
        switch source {
        case .linux(let devicePath, let dataReady):
            let line = dataReady.map { ", data-ready \($0.chip) line \($0.line)" } ?? ""
            return "\(chip)\(address) on \(devicePath), ±\(settings.rangeG) g\(line)"
        case .simulated(let model, let samples, let name, let speed, _):
            return "simulated \(model.rawValue) replaying \(name) (\(samples.count) samples) at \(speed)x\(clockNote)"
        }
    }
}

/// The supervisor plus the clock it runs on, and the conversions the loop needs between the
/// sensor clock and real time.
final class SensorPath {
    let supervisor: SensorSupervisor
    let clock: any SensorClock
    let speed: Double
    let boardName: String
    let boardFile: String?
    let description: String
    /// The longest real time the supervisor may legitimately wait between services (its
    /// longest backoff), so the watchdog does not fire while a lost sensor is re-probed.
    let maxServiceGap: Double
    private let linuxBus: ReopeningI2CBus?

    init(plan: SensorPlan, logger: EventLogger) {
        boardName = plan.boardName
        boardFile = plan.boardFile
        switch plan.source {
        case .linux(let devicePath, let dataReady):
            let clock = MonotonicClock()
            var line: GPIODataReadyLine?
            if let dataReady {
                do {
                    line = try GPIODataReadyLine(chip: dataReady.chip, offset: dataReady.line)
                } catch {
                    // The FIFO still works without the line: poll on the burst timer instead.
                    logger.warning("data-ready line unavailable, reading the FIFO on a timer instead: \(error)")
                }
            }
            let bus = ReopeningI2CBus(path: devicePath)
            supervisor = SensorSupervisor(bus: bus, settings: plan.settings,
                                          clock: clock, dataReady: line, logger: logger)
            linuxBus = bus
            self.clock = clock
            speed = 1
            description = devicePath
        case .simulated(let model, let samples, let recordingName, let speed, let faults):
            let simulation = SimulatedSensor(model: model, samples: samples, speed: speed, faults: faults,
                                             clockErrorPercent: plan.clockErrorPercent,
                                             clockDriftPercentPerMinute: plan.clockDriftPercentPerMinute)
            supervisor = simulation.makeSupervisor(settings: plan.settings, logger: logger)
            linuxBus = nil
            clock = simulation.clock
            self.speed = speed
            description = "simulated \(model.rawValue) replaying \(recordingName) at \(speed)x\(plan.clockNote)"
        }
        maxServiceGap = SensorSupervisor.maxBackoff / speed + 1
    }

    /// While the sensor is lost, the device node is closed between re-probes so the adapter's
    /// module can be unloaded or reloaded (the usual cure for a wedged bus); the next re-probe
    /// opens it again.
    func releaseBusWhileLost() {
        if let linuxBus, supervisor.status.health == .lost { linuxBus.release() }
    }

    func isDue() -> Bool { supervisor.nextServiceTime <= clock.now() }

    /// Real seconds until the supervisor wants service (0 when overdue).
    func realDelayUntilDue() -> Double {
        max(0, (supervisor.nextServiceTime - clock.now()) / speed)
    }

    /// `calendarRate`: the agent's calendar seconds per real second (1, or the replay speed under
    /// `--simulate-start`, whose calendar runs on the sensor clock).
    func timeMapping(wallNow: Double, calendarRate: Double = 1) -> SensorTimeMapping {
        SensorTimeMapping(sensorNow: clock.now(), wallNow: wallNow, speed: speed / calendarRate)
    }
}
