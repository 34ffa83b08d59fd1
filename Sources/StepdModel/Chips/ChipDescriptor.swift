/// Everything outside a chip's register sequences needs to know about it, in one table per part
/// (the kernel's st_accel keeps one settings table per part the same way). The drivers, the
/// supervisor, the emulators and board validation all read these; the per-chip register maps
/// (`MPU6050`, `LIS3DH`) hold the rest.
public struct ChipDescriptor: Sendable {
    /// One full-scale setting: the range a board names, the register code that selects it and
    /// the scale of one output count at the resolution the driver reads.
    public struct FullScale: Sendable, Equatable {
        public let rangeG: Int
        public let select: UInt8
        public let gPerCount: Double
        public init(rangeG: Int, select: UInt8, gPerCount: Double) {
            self.rangeG = rangeG
            self.select = select
            self.gPerCount = gPerCount
        }
    }

    /// What an edge on the chip's interrupt line means.
    public enum DataReadySignal: Sendable, Equatable {
        /// Every new sample (MPU-6050 DATA_RDY): the edge is the newest sample's time, and
        /// bursts stay paced by the burst interval.
        case everySample
        /// The FIFO reached its watermark (LIS3DH I1_WTM): each edge asks for a burst now.
        case fifoWatermark
    }

    public let model: ChipModel
    public let displayName: String
    /// The usual addresses, in probe order.
    public let addresses: [UInt8]
    public let whoAmIRegister: UInt8
    public let whoAmIValue: UInt8
    /// Selectable full scales, smallest first.
    public let fullScales: [FullScale]
    /// The output data rate the driver programs (the agent always receives 40 Hz).
    public let sampleRate: Double
    public let fifoCapacityBytes: Int
    public let bytesPerSample: Int
    public let defaultBurstInterval: Double
    /// The longest interval before the FIFO could overflow, with margin.
    public let maxBurstInterval: Double
    public let dataReadySignal: DataReadySignal

    /// Shorter intervals only burn CPU and bus time: a burst would hold one or two samples.
    public static let minBurstInterval = 0.05

    /// Whole samples the FIFO holds.
    public var fifoCapacitySamples: Int { fifoCapacityBytes / bytesPerSample }
    /// Seconds of samples the FIFO holds at `sampleRate`.
    public var fifoSpan: Double { Double(fifoCapacitySamples) / sampleRate }
    public var rangesG: [Int] { fullScales.map(\.rangeG) }

    public func fullScale(rangeG: Int) -> FullScale? { fullScales.first { $0.rangeG == rangeG } }

    /// The burst intervals a board may ask of this chip.
    public var burstIntervals: ClosedRange<Double> { Self.minBurstInterval...maxBurstInterval }

    /// "2, 4, 8 or 16": allowed values for an error message.
    public static func allowedList(_ values: [Int]) -> String {
        let words = values.map { "\($0)" }
        guard let last = words.last, words.count > 1 else { return words.first ?? "nothing" }
        return words.dropLast().joined(separator: ", ") + " or " + last
    }
}

extension ChipModel {
    /// The part's table.
    public var descriptor: ChipDescriptor {
        switch self {
        case .mpu6050: return MPU6050.descriptor
        case .lis3dh: return LIS3DH.descriptor
        }
    }

    public var displayName: String { descriptor.displayName }

    /// The part a simulated board emulates when it names none.
    public static let simulatedDefault = ChipModel.mpu6050

    /// The full scales a board may ask for with `chip` unset (a real bus probes every part):
    /// only those every part offers.
    public static var rangesGForAnyChip: [Int] {
        let tables = allCases.map(\.descriptor.rangesG)
        return tables.dropFirst().reduce(tables.first ?? []) { common, ranges in common.filter(ranges.contains) }
    }

    /// The burst intervals a board may ask for with `chip` unset: up to the longest any part
    /// allows; the supervisor shortens it to what the part it finds can hold.
    public static var burstIntervalsForAnyChip: ClosedRange<Double> {
        ChipDescriptor.minBurstInterval...(allCases.map(\.descriptor.maxBurstInterval).max() ?? ChipDescriptor.minBurstInterval)
    }

    /// The allowed burst intervals for `chip`, or for whichever part is found when nil.
    public static func burstIntervals(for chip: ChipModel?) -> ClosedRange<Double> {
        chip?.descriptor.burstIntervals ?? burstIntervalsForAnyChip
    }

    /// The allowed full scales for `chip`, or for whichever part is found when nil.
    public static func rangesG(for chip: ChipModel?) -> [Int] {
        chip?.descriptor.rangesG ?? rangesGForAnyChip
    }
}
