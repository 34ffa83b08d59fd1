import StepdModel

/// A real walk (Oxford Step Counter data set, CC BY 4.0; see Tests/Fixtures/ATTRIBUTION.md)
/// compiled into the binary so the simulated board has motion to replay without any file.
public enum EmbeddedRecording {
    /// The recording at 40 Hz, `t` from 0; decoded on first use (Swift statics are lazy).
    public static let samples: [AccelSample] = decode()

    /// Seconds covered; replaying in a loop continues at `duration + 1/sampleRate`.
    public static var duration: Double { Double(max(samples.count - 1, 0)) / sampleRate }

    static func decode() -> [AccelSample] {
        let bytes = Base64.decode(base64)
        var samples: [AccelSample] = []
        samples.reserveCapacity(bytes.count / 6)
        var index = 0
        var offset = 0
        while offset + 6 <= bytes.count {
            func int16(_ at: Int) -> Double {
                Double(Int16(bitPattern: UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8))
            }
            samples.append(AccelSample(
                t: Double(index) / sampleRate,
                x: int16(offset) * gPerLSB, y: int16(offset + 2) * gPerLSB, z: int16(offset + 4) * gPerLSB))
            index += 1
            offset += 6
        }
        return samples
    }
}

/// Minimal RFC 4648 base64 decoding (the embedded data is trusted and generated), skipping
/// whitespace and stopping at padding.
enum Base64 {
    static func decode(_ text: String) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for c in text.utf8 {
            let value: UInt32
            switch c {
            case 0x41...0x5A: value = UInt32(c - 0x41)
            case 0x61...0x7A: value = UInt32(c - 0x61 + 26)
            case 0x30...0x39: value = UInt32(c - 0x30 + 52)
            case 0x2B: value = 62
            case 0x2F: value = 63
            case 0x3D: return out
            default: continue
            }
            accumulator = accumulator << 6 | value
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8((accumulator >> UInt32(bits)) & 0xFF))
            }
        }
        return out
    }
}
