/// Where the socket and the state live when no flag says otherwise. Pure: the caller passes
/// the environment and uid.
public enum DefaultPaths {
    /// The system-wide socket of the packaged service.
    public static let systemSocket = "/run/stepd/stepd.sock"
    public static let systemStateDirectory = "/var/lib/stepd"

    /// `socketPath`'s rule in words, for `stepd --help` and stepd(8), which named neither
    /// $STEPD_SOCKET nor the /tmp fallback, so a user could not tell where the socket went.
    public static let socketPathRule = """
        $STEPD_SOCKET, else $RUNTIME_DIRECTORY/stepd.sock, else /run/stepd/stepd.sock as root, else \
        $XDG_RUNTIME_DIR/stepd/stepd.sock, else (XDG_RUNTIME_DIR unset) /tmp/stepd-<uid>/stepd.sock
        """

    /// `$STEPD_SOCKET`; under systemd `$RUNTIME_DIRECTORY/stepd.sock`; root: `/run/stepd/stepd.sock`;
    /// otherwise `$XDG_RUNTIME_DIR/stepd/stepd.sock` or `/tmp/stepd-<uid>/stepd.sock`.
    public static func socketPath(environment: [String: String], uid: UInt32) -> String {
        if let explicit = nonEmpty(environment["STEPD_SOCKET"]) { return explicit }
        if let runtime = firstPath(environment["RUNTIME_DIRECTORY"]) { return runtime + "/stepd.sock" }
        if uid == 0 { return systemSocket }
        if let xdg = nonEmpty(environment["XDG_RUNTIME_DIR"]) { return xdg + "/stepd/stepd.sock" }
        return "/tmp/stepd-\(uid)/stepd.sock"
    }

    /// `stateDirectory`'s rule in words, for `stepd --help` and stepd(8) (see `socketPathRule`).
    public static let stateDirectoryRule = """
        $STEPD_STATE_DIR, else $STATE_DIRECTORY, else /var/lib/stepd as root, else $XDG_STATE_HOME/stepd, \
        else $HOME/.local/state/stepd, else (XDG_STATE_HOME unset and HOME unset or /) /tmp/stepd-<uid>/state
        """

    /// `$STEPD_STATE_DIR`; under systemd `$STATE_DIRECTORY`; root: `/var/lib/stepd`; otherwise
    /// `$XDG_STATE_HOME/stepd`, `$HOME/.local/state/stepd` or `/tmp/stepd-<uid>/state`.
    public static func stateDirectory(environment: [String: String], uid: UInt32) -> String {
        if let explicit = nonEmpty(environment["STEPD_STATE_DIR"]) { return explicit }
        if let state = firstPath(environment["STATE_DIRECTORY"]) { return state }
        if uid == 0 { return systemStateDirectory }
        if let xdg = nonEmpty(environment["XDG_STATE_HOME"]) { return xdg + "/stepd" }
        if let home = nonEmpty(environment["HOME"]), home != "/" { return home + "/.local/state/stepd" }
        return "/tmp/stepd-\(uid)/state"
    }

    /// Sockets a client tries in order: the user default, then the system one.
    public static func clientSocketCandidates(environment: [String: String], uid: UInt32) -> [String] {
        let primary = socketPath(environment: environment, uid: uid)
        return primary == systemSocket ? [primary] : [primary, systemSocket]
    }

    private static func nonEmpty(_ value: String?) -> String? {
        guard let value, !value.isEmpty else { return nil }
        return value
    }

    /// systemd passes a colon-separated list when several directories are configured.
    private static func firstPath(_ value: String?) -> String? {
        guard let value = nonEmpty(value) else { return nil }
        return value.split(separator: ":").first.map(String.init)
    }
}
