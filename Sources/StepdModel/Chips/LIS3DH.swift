/// LIS3DH register facts (STMicroelectronics datasheet DocID17530). The driver and the emulator
/// both read from here; what the rest of stepd needs is in `descriptor`.
public enum LIS3DH {
    public static let descriptor = ChipDescriptor(
        model: .lis3dh, displayName: "LIS3DH",
        addresses: [0x18, 0x19],  // SA0 low, SA0 high
        whoAmIRegister: Register.whoAmI, whoAmIValue: whoAmIValue,
        // FS 0...3, read in high-resolution (12-bit) mode.
        fullScales: (0...3).map {
            ChipDescriptor.FullScale(rangeG: 2 << $0, select: UInt8($0),
                                     gPerCount: milliGPerDigit(rangeSelect: UInt8($0), resolutionBits: 12) / 1000)
        },
        // ODR code 4 = 50 Hz: the nearest rate above 40 Hz; the supervisor resamples to 40 Hz.
        sampleRate: outputRate(control1: dataRateCode << 4),
        fifoCapacityBytes: 32 * 6, bytesPerSample: 6,
        // 32 levels at 50 Hz hold 0.64 s.
        defaultBurstInterval: 0.5, maxBurstInterval: 0.6,
        dataReadySignal: .fifoWatermark)

    public static let whoAmIValue: UInt8 = 0x33

    public enum Register {
        public static let statusAux: UInt8 = 0x07
        public static let whoAmI: UInt8 = 0x0F
        public static let control1: UInt8 = 0x20   // ODR 7:4, LPen 3, Z/Y/X enable 2:0
        public static let control2: UInt8 = 0x21
        public static let control3: UInt8 = 0x22   // INT1 sources
        public static let control4: UInt8 = 0x23   // BDU 7, FS 5:4, HR 3
        public static let control5: UInt8 = 0x24   // BOOT 7, FIFO_EN 6
        public static let status: UInt8 = 0x27
        public static let outXLow: UInt8 = 0x28    // OUT_X_L .. OUT_Z_H (0x2D)
        public static let outZHigh: UInt8 = 0x2D
        public static let fifoControl: UInt8 = 0x2E  // FM 7:6, watermark 4:0
        public static let fifoSource: UInt8 = 0x2F   // WTM 7, OVRN 6, EMPTY 5, FSS 4:0
    }

    public enum Bits {
        /// Register address bit 7: multi-byte reads and writes auto-increment.
        public static let autoIncrement: UInt8 = 0x80
        public static let axesEnable: UInt8 = 0b111
        public static let lowPower: UInt8 = 1 << 3
        public static let blockDataUpdate: UInt8 = 1 << 7
        public static let highResolution: UInt8 = 1 << 3
        public static let boot: UInt8 = 1 << 7
        public static let fifoEnable: UInt8 = 1 << 6
        public static let interrupt1Watermark: UInt8 = 1 << 2
        public static let interrupt1Overrun: UInt8 = 1 << 1
        public static let fifoWatermark: UInt8 = 1 << 7
        public static let fifoOverrun: UInt8 = 1 << 6
        public static let fifoEmpty: UInt8 = 1 << 5
        public static let fifoLevelMask: UInt8 = 0x1F
        public static let overrunXYZ: UInt8 = 1 << 7
        public static let dataAvailableXYZ: UInt8 = 1 << 3
    }

    public enum FIFOMode: UInt8, Sendable {
        case bypass = 0, fifo = 1, stream = 2, streamToFIFO = 3
    }

    /// Register values after power-up or BOOT: all zero except these (CTRL_REG1 has the axes on, ODR 0 = power-down).
    public static let resetValues: [UInt8: UInt8] = [Register.whoAmI: whoAmIValue, Register.control1: 0x07]

    public static let dataRateCode: UInt8 = 4

    /// Output data rate for CTRL_REG1 bits 7:4 (0 = power-down).
    public static func outputRate(control1: UInt8) -> Double {
        switch control1 >> 4 {
        case 1: return 1
        case 2: return 10
        case 3: return 25
        case 4: return 50
        case 5: return 100
        case 6: return 200
        case 7: return 400
        case 8: return 1600
        case 9: return control1 & Bits.lowPower != 0 ? 5376 : 1344
        default: return 0
        }
    }

    /// Output resolution in bits: 12 in high-resolution mode, 8 in low-power mode, else 10.
    public static func resolutionBits(highResolution: Bool, lowPower: Bool) -> Int {
        highResolution ? 12 : (lowPower ? 8 : 10)
    }

    /// mg per digit of the right-justified value (datasheet table 4): HR 1/2/4/12, normal
    /// 4/8/16/48, low-power 16/32/64/192.
    public static func milliGPerDigit(rangeSelect: UInt8, resolutionBits: Int) -> Double {
        let highResolution: [Double] = [1, 2, 4, 12]
        let factor: Double = resolutionBits == 12 ? 1 : (resolutionBits == 10 ? 4 : 16)
        return highResolution[Int(rangeSelect & 3)] * factor
    }
}
