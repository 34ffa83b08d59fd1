/// The accelerometers stepd drives.
public enum ChipModel: String, Sendable, CaseIterable, Equatable {
    case mpu6050
    case lis3dh
}
