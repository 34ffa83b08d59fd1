import StepdModel

/// The stepd(8) manual page in roff, printed by `stepd --print-manpage` at package build time.
/// OPTIONS come from `AgentOptions.flags` and the first paragraph from `AgentOptions.summary`,
/// the same values `--help` prints; EXIT STATUS comes from `AgentExitStatus`.
public enum AgentManual {
    public static func roff(version: String = StepdVersion.current) -> String {
        var page: [String] = [
            #".TH STEPD 8 "" "stepd \#(version)" "System Administration""#,
            ".SH NAME",
            #"stepd \- on\-device step and motion agent for accelerometer wristbands"#,
            ".SH SYNOPSIS",
            ".B stepd",
            #"[\fIoptions\fR]"#,
            ".SH DESCRIPTION",
            text(AgentOptions.summary),
            ".PP",
            text("""
                Under systemd (stepd.service) it reports READY=1 once the sensor is configured, keeps \
                STATUS= current with the sensor state and today's steps, and pings the watchdog. Log \
                lines go to standard error with journald priority prefixes; read them with \
                journalctl -u stepd. Clients such as stepctl(1) talk newline-delimited JSON-RPC 2.0 \
                on the socket.
                """),
            ".SH OPTIONS",
        ]
        for flag in AgentOptions.flags where !flag.hidden {
            page.append(".TP")
            let names = flag.names.map { #"\fB"# + text($0) + #"\fR"# }.joined(separator: ", ")
            page.append(names + (flag.valueName.map { #" \fI"# + text($0) + #"\fR"# } ?? ""))
            page.append(text(flag.help))
        }
        page += [".SH FILES"]
        for (path, meaning) in files {
            page += [".TP", text(path), text(meaning)]
        }
        page += [".SH ENVIRONMENT"]
        for (name, meaning) in environment {
            page += [".TP", #"\fB"# + text(name) + #"\fR"#, text(meaning)]
        }
        page += [
            ".SH SIGNALS",
        ]
        for signal in AgentSignals.table {
            switch signal.response {
            case .stop:
                page += [".TP", signal.name, text("Write a ledger checkpoint, close the socket and exit with status 0.")]
            case .ignore(let reason):
                page += [".TP", signal.name, text("Logged and otherwise ignored: \(reason).")]
            }
        }
        page += [".SH EXIT STATUS"]
        for status in AgentExitStatus.allCases {
            page += [".TP", "\(status.rawValue)", text(status.meaning)]
        }
        page += [
            ".SH SEE ALSO",
            #".BR stepctl (1),"#,
            #".BR systemd.service (5),"#,
            #".BR systemd.exec (5),"#,
            #".BR sd_notify (3)"#,
            ".PP",
            text("Board files: /usr/share/stepd/boards; documentation: /usr/share/doc/stepd."),
        ]
        return page.joined(separator: "\n") + "\n"
    }

    static let files: [(String, String)] = [
        ("/etc/stepd/board.toml", "The board the packaged service runs with: copy one from /usr/share/stepd/boards and adjust bus, address, range and axis remap."),
        ("/var/lib/stepd", "The step ledger, raw recordings, metrics and stepd.owner, the running agent's pid (the service's StateDirectory); removed only when the package is purged."),
        ("/run/stepd/stepd.sock", "The socket of the service; members of group stepd may connect."),
    ]

    static let environment: [(String, String)] = [
        ("STEPD_STATE_DIR, STATE_DIRECTORY", "The state directory when --state-dir is not given (systemd sets STATE_DIRECTORY)."),
        ("STEPD_SOCKET, RUNTIME_DIRECTORY", "The socket, or the directory that holds stepd.sock, when --socket is not given."),
        ("XDG_STATE_HOME, XDG_RUNTIME_DIR, HOME", "Defaults for an agent run by an ordinary user."),
        ("NOTIFY_SOCKET, WATCHDOG_USEC, WATCHDOG_PID", "Set by systemd for readiness, status and watchdog notifications."),
        ("TZ", "The local time zone for \"today\" and calendar queries (default /etc/localtime)."),
    ]

    /// Escapes text for roff: backslashes, hyphens (so options copy as ASCII minus) and a
    /// control character at the start of a line.
    static func text(_ plain: String) -> String {
        var escaped = plain.replacingAll("\\", with: "\\e").replacingAll("-", with: "\\-")
        if escaped.hasPrefix(".") || escaped.hasPrefix("'") { escaped = "\\&" + escaped }
        return escaped
    }
}

extension String {
    fileprivate func replacingAll(_ target: Character, with replacement: String) -> String {
        var out = ""
        out.reserveCapacity(utf8.count)
        for character in self {
            if character == target { out += replacement } else { out.append(character) }
        }
        return out
    }
}
