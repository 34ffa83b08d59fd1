/// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), the checksum ext4, iSCSI and
/// SCTP use. Chosen over CRC-32 because its Hamming distance is better for short messages
/// like a ledger line; any single-byte change in a line changes the checksum.
public enum CRC32C {
    static let table: [UInt32] = (0..<256).map { index -> UInt32 in
        var value = UInt32(index)
        for _ in 0..<8 {
            value = (value & 1) != 0 ? (value >> 1) ^ 0x82F6_3B78 : value >> 1
        }
        return value
    }

    /// The checksum of `bytes`; pass a previous result as `seed` to continue over more bytes.
    public static func checksum<C: Collection>(_ bytes: C, seed: UInt32 = 0) -> UInt32 where C.Element == UInt8 {
        var crc = ~seed
        for byte in bytes {
            crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
        }
        return ~crc
    }
}
