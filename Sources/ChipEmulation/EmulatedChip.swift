import SensorBus
import StepdModel

/// A register-level chip on an `EmulatedI2CBus`.
public protocol EmulatedChip: AnyObject {
    var model: ChipModel { get }
    var address: UInt8 { get }
    /// Write of the register pointer then read, as one transaction.
    func read(pointer: UInt8, count: Int) -> [UInt8]
    /// Register pointer followed by data bytes.
    func write(_ bytes: [UInt8])
    /// Produce every sample due up to `time` (the bus calls this before each transaction and
    /// before applying a scheduled fault).
    func advance(to time: Double)

    // Fault injection.
    /// Power glitch: registers go back to their reset values, the FIFO empties.
    func powerGlitch()
    /// Fill the FIFO past capacity now.
    func forceOverflow()
    /// WHO_AM_I reads this instead of the real value while set.
    var identityOverride: UInt8? { get set }
    /// A plausible wrong WHO_AM_I (a sibling part).
    var wrongIdentity: UInt8 { get }
    /// The raw register file, for tests that check what the driver wrote.
    func register(_ register: UInt8) -> UInt8
    /// Samples produced since creation (FIFO or not).
    var samplesProduced: Int { get }
    /// Sensor time at which the newest sample was taken, on the chip's true clock (what a
    /// perfect data-ready edge would say): measurements compare timestamps with it.
    var newestSampleTime: Double { get }
}

/// What both emulated parts share: their table, the address they answer at, a register file
/// with the part's reset values, the clock and the sample producer. The subclasses hold the
/// register behaviour that differs (FIFO, auto-increment, read-to-clear).
public class RegisterFileChip {
    public let descriptor: ChipDescriptor
    public let address: UInt8
    public var identityOverride: UInt8?
    let clock: any SensorClock
    var registers: [UInt8]
    var producer: SampleProducer
    private let resetValues: [UInt8: UInt8]

    init(descriptor: ChipDescriptor, address: UInt8, registerCount: Int, resetValues: [UInt8: UInt8],
         samples: [AccelSample], clock: any SensorClock, oscillator: Oscillator) {
        self.descriptor = descriptor
        self.address = address
        self.clock = clock
        self.resetValues = resetValues
        registers = [UInt8](repeating: 0, count: registerCount)
        producer = SampleProducer(samples: samples, now: clock.now(), oscillator: oscillator)
    }

    public var model: ChipModel { descriptor.model }
    public var samplesProduced: Int { producer.produced }
    public var newestSampleTime: Double { producer.lastSampleTime }
    /// The register address wraps at the end of the register file.
    public func register(_ register: UInt8) -> UInt8 { registers[Int(register) & (registers.count - 1)] }

    /// WHO_AM_I as read over the bus (a fault may override it).
    var identity: UInt8 { identityOverride ?? registers[Int(descriptor.whoAmIRegister)] }

    /// Registers back to their reset values and the sample grid restarted from now.
    func resetRegisterFile() {
        registers = [UInt8](repeating: 0, count: registers.count)
        for (reg, value) in resetValues { registers[Int(reg)] = value }
        producer.restart(at: clock.now())
    }
}

/// Produces samples on a grid at the chip's current rate as its own oscillator runs it (the
/// register-configured rate times the oscillator's error), from a looped recording.
struct SampleProducer {
    var player: RecordingPlayer
    let oscillator: Oscillator
    /// Time of the last sample produced (or of the last restart of the grid).
    var lastSampleTime: Double
    var produced = 0

    init(samples: [AccelSample], now: Double, oscillator: Oscillator) {
        player = RecordingPlayer(samples: samples)
        lastSampleTime = now
        self.oscillator = oscillator
    }

    /// Calls `emit` for each sample due up to `time` at the nominal `rate` (none when rate is 0)
    /// on the oscillator's true time base. The bus advances the chip before every transaction,
    /// so holding a drifting oscillator's rate constant between advances is exact enough. When more
    /// than `keep` are due, only the last `keep` are generated (older ones would be overwritten
    /// anyway); `skipped` tells how many were not.
    mutating func run(until time: Double, rate: Double, keep: Int,
                      emit: (_ value: (x: Double, y: Double, z: Double), _ skipped: Int) -> Void) {
        guard rate > 0 else {
            lastSampleTime = max(lastSampleTime, time)
            return
        }
        let period = 1 / (rate * oscillator.factor(at: lastSampleTime))
        var due = Int(((time - lastSampleTime) / period + 1e-9).rounded(.down))
        guard due > 0 else { return }
        var skipped = 0
        if due > keep + 1 {
            skipped = due - (keep + 1)
            lastSampleTime += Double(skipped) * period
            due = keep + 1
        }
        for i in 0..<due {
            lastSampleTime += period
            produced += 1
            emit(player.value(at: lastSampleTime), i == 0 ? skipped : 0)
        }
        produced += skipped
    }

    /// Restart the grid (rate change, wake-up).
    mutating func restart(at time: Double) { lastSampleTime = max(lastSampleTime, time) }
}

/// Rounds `g * countsPerG` into a signed integer of `bits` bits, saturating like the chip.
func saturatedCounts(_ g: Double, countsPerG: Double, bits: Int) -> Int {
    let limit = Double(1 << (bits - 1))
    let value = (g * countsPerG).rounded()
    return Int(max(-limit, min(limit - 1, value)))
}
