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
    public var model: ChipModel { chip.model }
    public var address: UInt8 { chip.address }

    /// `clock` defaults to `ScaledClock(speed:)`; tests pass a fake clock.
    public init(model: ChipModel, samples: [AccelSample], speed: Double = 1, address: UInt8? = nil,
                faults: FaultSchedule? = nil, smbusOnly: Bool = false, clock: (any SensorClock)? = nil) {
        let clock = clock ?? ScaledClock(speed: speed)
        self.clock = clock
        bus = EmulatedI2CBus(clock: clock, smbusOnly: smbusOnly)
        switch model {
        case .mpu6050:
            chip = MPU6050Emulator(address: address ?? MPU6050.addresses[0], samples: samples, clock: clock)
        case .lis3dh:
            chip = LIS3DHEmulator(address: address ?? LIS3DH.addresses[0], samples: samples, clock: clock)
        }
        bus.attach(chip)
        if let faults { bus.install(faults) }
    }

    /// A supervisor on this bus and clock. `settings.chip`/`address` nil are fine: it probes.
    public func makeSupervisor(settings: SensorSettings, logger: EventLogger) -> SensorSupervisor {
        SensorSupervisor(bus: bus, settings: settings, clock: clock, dataReady: nil, logger: logger)
    }
}
