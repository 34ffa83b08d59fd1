/// The release of stepd and stepctl, reported by `--version`, `status` and recording sidecars.
public enum StepdVersion {
    public static let current = "0.1.0"
}
