/// How the sensor path is doing, as shown by `status` and the metrics file.
public enum SensorHealth: String, Sendable, Equatable, CaseIterable {
    /// Samples arrive at the configured rate.
    case ok
    /// Samples arrive, but errors, overflows or re-inits happened recently.
    case degraded
    /// No samples: the chip does not answer; the driver re-probes with backoff.
    case lost
}
