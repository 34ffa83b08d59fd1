/// What one step sample from outside may claim: the agent's parameter check and the ledger's
/// rules read these, and docs/protocol.md states them (a documented example runs against them).
public enum SampleLimits {
    /// Sprinters peak near 5 steps/s; more over a whole interval is a unit mistake.
    public static let maximumStepsPerSecond = 5.0
    /// Faster than any runner; vehicles are an activity, not distance on foot.
    public static let maximumMetresPerSecond = 12.5
    /// One sample spans at most a day; longer periods are split by the client.
    public static let maximumDurationSeconds = 86_400.0
    /// Samples in one atomic `samples.add`: about what fits the 64 KiB request line.
    public static let maximumPerCall = 500
}

/// The bytes a source id (and a sync identifier) may hold: one ledger field, safe in file
/// names, logs and JSON without escaping.
public enum SourceIdentifier {
    /// A-Z a-z 0-9 . _ - : @
    public static func isValidByte(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
            || byte == 0x2D || byte == 0x2E || byte == 0x5F || byte == 0x3A || byte == 0x40
    }
}
