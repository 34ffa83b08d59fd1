/// MPU-6050 register facts (InvenSense/TDK datasheet and register map). The driver and the
/// emulator both read from here; what the rest of stepd needs is in `descriptor`.
public enum MPU6050 {
    public static let descriptor = ChipDescriptor(
        model: .mpu6050, displayName: "MPU-6050",
        addresses: [0x68, 0x69],  // AD0 low, AD0 high
        whoAmIRegister: Register.whoAmI, whoAmIValue: whoAmIValue,
        fullScales: (0...3).map { ChipDescriptor.FullScale(rangeG: 2 << $0, select: UInt8($0), gPerCount: 1 / lsbPerG(rangeSelect: UInt8($0))) },
        sampleRate: outputRate(config: dlpfConfiguration, divider: sampleRateDividerValue),
        fifoCapacityBytes: 1024, bytesPerSample: 6,
        // A burst every second leaves the 4.2 s FIFO mostly empty.
        defaultBurstInterval: 1.0, maxBurstInterval: 3.5,
        dataReadySignal: .everySample)

    public static let whoAmIValue: UInt8 = 0x68

    public enum Register {
        public static let sampleRateDivider: UInt8 = 0x19   // SMPLRT_DIV
        public static let config: UInt8 = 0x1A              // CONFIG (DLPF_CFG 2:0)
        public static let gyroConfig: UInt8 = 0x1B
        public static let accelConfig: UInt8 = 0x1C         // AFS_SEL 4:3
        public static let fifoEnable: UInt8 = 0x23          // FIFO_EN
        public static let interruptPinConfig: UInt8 = 0x37  // INT_PIN_CFG
        public static let interruptEnable: UInt8 = 0x38     // INT_ENABLE
        public static let interruptStatus: UInt8 = 0x3A     // INT_STATUS, cleared on read
        public static let accelXHigh: UInt8 = 0x3B          // ACCEL_XOUT_H .. ACCEL_ZOUT_L (0x40)
        public static let userControl: UInt8 = 0x6A         // USER_CTRL
        public static let powerManagement1: UInt8 = 0x6B    // PWR_MGMT_1
        public static let powerManagement2: UInt8 = 0x6C    // PWR_MGMT_2
        public static let fifoCountHigh: UInt8 = 0x72       // FIFO_COUNTH, FIFO_COUNTL at 0x73
        public static let fifoData: UInt8 = 0x74            // FIFO_R_W
        public static let whoAmI: UInt8 = 0x75
    }

    public enum Bits {
        public static let accelFIFOEnable: UInt8 = 1 << 3      // FIFO_EN.ACCEL_FIFO_EN
        public static let dataReadyInterrupt: UInt8 = 1 << 0   // INT_ENABLE / INT_STATUS
        public static let fifoOverflowInterrupt: UInt8 = 1 << 4
        public static let userFIFOEnable: UInt8 = 1 << 6       // USER_CTRL.FIFO_EN
        public static let userFIFOReset: UInt8 = 1 << 2        // USER_CTRL.FIFO_RESET, self-clearing
        public static let deviceReset: UInt8 = 1 << 7          // PWR_MGMT_1
        public static let sleep: UInt8 = 1 << 6
        public static let gyroStandby: UInt8 = 0b111           // PWR_MGMT_2 STBY_XG/YG/ZG
        public static let dlpfMask: UInt8 = 0b111
    }

    /// Register values after power-up or DEVICE_RESET: all zero except these.
    public static let resetValues: [UInt8: UInt8] = [Register.powerManagement1: Bits.sleep, Register.whoAmI: whoAmIValue]

    /// DLPF_CFG 3 (accel ~44 Hz bandwidth) makes the gyro output rate 1 kHz; 1000 / (1 + 24) = 40 Hz.
    public static let dlpfConfiguration: UInt8 = 3
    public static let sampleRateDividerValue: UInt8 = 24
    /// The datasheet asks for 100 ms after DEVICE_RESET before further writes.
    public static let resetSettleTime = 0.1

    /// Sample rate the chip produces for CONFIG and SMPLRT_DIV values.
    public static func outputRate(config: UInt8, divider: UInt8) -> Double {
        let dlpf = config & Bits.dlpfMask
        let gyroRate = (dlpf == 0 || dlpf == 7) ? 8000.0 : 1000.0
        return gyroRate / (1 + Double(divider))
    }

    /// LSB per g for AFS_SEL 0...3: 16384, 8192, 4096, 2048.
    public static func lsbPerG(rangeSelect: UInt8) -> Double { 16384.0 / Double(1 << Int(rangeSelect & 3)) }
}
