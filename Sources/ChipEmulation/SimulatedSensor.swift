import SensorBus
import SensorChips
import StepdModel

/// Clock + emulated bus + emulated chip for a simulated board, so `--simulate FILE
/// --replay-speed N` is a few lines in the agent:
///
///     let sim = SimulatedSensor(model: .mpu6050, samples: recording, speed: 10)
///     let supervisor = sim.makeSupervisor(settings: settings, logger: logger)
public final class SimulatedSensor {
    public let clock: any SensorClock
    public let bus: EmulatedI2CBus
    public let chip: any EmulatedChip
    /// The chip's clock error, for measurements that compare the estimate with the truth.
    public let oscillator: Oscillator
    public var model: ChipModel { chip.model }
    public var address: UInt8 { chip.address }

    /// `clock` defaults to `ScaledClock(speed:)`; tests pass a fake clock. `clockErrorPercent`
    /// and `clockDriftPercentPerMinute` set the chip's oscillator (the drift counts from now).
    public init(model: ChipModel, samples: [AccelSample], speed: Double = 1, address: UInt8? = nil,
                faults: FaultSchedule? = nil, smbusOnly: Bool = false, clock: (any SensorClock)? = nil,
                clockErrorPercent: Double = 0, clockDriftPercentPerMinute: Double = 0) {
        let clock = clock ?? ScaledClock(speed: speed)
        self.clock = clock
        bus = EmulatedI2CBus(clock: clock, smbusOnly: smbusOnly)
        let oscillator = Oscillator(errorPercent: clockErrorPercent, driftPercentPerMinute: clockDriftPercentPerMinute,
                                    origin: clock.now())
        self.oscillator = oscillator
        switch model {
        case .mpu6050:
            chip = MPU6050Emulator(address: address ?? MPU6050.descriptor.addresses[0], samples: samples, clock: clock,
                                   oscillator: oscillator)
        case .lis3dh:
            chip = LIS3DHEmulator(address: address ?? LIS3DH.descriptor.addresses[0], samples: samples, clock: clock,
                                  oscillator: oscillator)
        }
        bus.attach(chip)
        if let faults { bus.install(faults) }
    }

    /// A supervisor on this bus and clock. `settings.chip`/`address` nil are fine: it probes.
    public func makeSupervisor(settings: SensorSettings, logger: EventLogger) -> SensorSupervisor {
        SensorSupervisor(bus: bus, settings: settings, clock: clock, dataReady: nil, logger: logger)
    }
}
