import Foundation
import StepJSON
import Testing

/// Socket permissions with real second uids: `setpriv` runs stepctl as `nobody` with chosen
/// groups against a real agent whose socket belongs to group `nogroup`. Skipped (with a note)
/// when the test cannot change uid, e.g. when not run as root.
@Suite(.serialized) struct PermissionTests {
    static let canSwitchUser = getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")

    /// Runs stepctl as uid 65534 with primary group `gid` and supplementary `groups`.
    func asNobody(gid: Int = 65534, groups: String, _ arguments: [String]) throws -> (status: Int32, output: String, error: String) {
        try runTool("/usr/bin/setpriv", ["--reuid=65534", "--regid=\(gid)", "--groups=\(groups)", "--",
                                         AgentProcess.stepctlPath] + arguments)
    }

    @Test(.enabled(if: canSwitchUser, "needs root and setpriv to act as a second uid"))
    func groupMembersReadButOnlyAdminsWrite() throws {
        let agent = try AgentProcess(arguments: ["--simulate", "builtin", "--replay-speed", "5", "--socket-group", "nogroup", "--admin-group", "users"])
        _ = try agent.connect()
        chmod(agent.directory, 0o755)
        let add = ["--socket", agent.socketPath, "samples", "add", "--source", "phone", "--start", "-10m", "--steps", "300"]

        // In the socket's group but not an admin: reads work, writes are refused.
        let read = try asNobody(groups: "65534", ["--socket", agent.socketPath, "status", "--json"])
        #expect(read.status == 0, "status as nobody: \(read.error)")
        let denied = try asNobody(groups: "65534", add)
        #expect(denied.status != 0)
        #expect(denied.error.contains("uid 65534"), "denial message: \(denied.error)")

        // A caller whose group is the admin group may write. (SO_PEERCRED carries the primary gid;
        // supplementary groups are looked up in the user database, where nobody has none.)
        let allowed = try asNobody(gid: 100, groups: "65534", add)
        #expect(allowed.status == 0, "samples add as admin: \(allowed.error)")

        #expect(agent.terminate() == 0)
        #expect(agent.stderrText().contains("denied samples.add"), "the denial is logged")
    }

    @Test(.enabled(if: canSwitchUser, "needs root and setpriv to act as a second uid"))
    func outsidersCannotConnectAndAreToldWhy() throws {
        let agent = try AgentProcess(arguments: ["--simulate", "builtin", "--replay-speed", "5", "--socket-group", "nogroup"])
        _ = try agent.connect()
        chmod(agent.directory, 0o755)
        // Primary group nogroup dropped: only `users`, which does not own the socket.
        let result = try runTool("/usr/bin/setpriv", ["--reuid=65534", "--regid=100", "--clear-groups", "--",
                                                      AgentProcess.stepctlPath, "--socket", agent.socketPath, "status"])
        #expect(result.status != 0)
        // The socket's own group: it said "add yourself to group stepd" whatever --socket-group was.
        #expect(result.error.contains("add yourself to its group nogroup (`sudo usermod -aG nogroup $USER`"),
                "message should say which group to join: \(result.error)")
        #expect(agent.terminate() == 0)
    }

    /// A state directory the agent's user cannot write (a wrong owner after a reflash, a read-only
    /// mount): the real agent, as `nobody`, keeps counting, says in `status` and the log what failed
    /// and with which errno, and once the directory is writable writes every step it kept.
    @Test(.enabled(if: canSwitchUser, "needs root and setpriv to act as a second uid"))
    func aStateDirectoryTheAgentCannotWriteDegradesThenCatchesUp() throws {
        let parent = try makeTemporaryDirectory("stepd-readonly")
        defer { try? FileManager.default.removeItem(atPath: parent) }
        chmod(parent, 0o755)
        let state = parent + "/state"
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: false)
        chmod(state, 0o755)  // root's; nobody may read it but not write it
        let agent = try AgentProcess(arguments: ["--simulate", "builtin", "--replay-speed", "10"], stateDirectory: state,
                                     launcher: ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"])
        let degraded = try agent.waitForStatus {
            $0.value(atPath: "ledger.health")?.stringValue == "degraded" && ($0.value(atPath: "steps.since_start")?.intValue ?? 0) > 0
        }
        let message = degraded.value(atPath: "ledger.message")?.stringValue ?? ""
        #expect(message.contains(state) && message.contains("EACCES"), "the message names the folder and errno: \(message)")

        chmod(state, 0o777)
        let recovered = try agent.waitForStatus(timeout: 60) {
            $0.value(atPath: "ledger.health")?.stringValue == "ok" && ($0.value(atPath: "ledger.records")?.intValue ?? 0) > 0
        }
        #expect(recovered.value(atPath: "ledger.message") == .null, "\(recovered.jsonText)")
        #expect(agent.terminate() == 0)
        let log = agent.stderrText()
        #expect(log.contains("Permission denied (EACCES)"), "\(log)")
        #expect(log.contains("ledger ok"), "the stop line says every counted step was written: \(log)")

        // What the agent counted is what the ledger on disk holds, each step once.
        let counted = log.split(separator: "\n").first { $0.contains("steps counted this run") }
        let verify = try runTool(AgentProcess.stepctlPath, ["ledger", "verify", "--state-dir", state, "--json"])
        #expect(verify.status == 0, "\(verify.error)")
        let report = try JSONParser.parse(verify.output)
        #expect(report.value(atPath: "corrupt")?.intValue == 0 && report.value(atPath: "duplicates")?.intValue == 0)
        let total = report.value(atPath: "steps")?.intValue
        #expect(counted?.contains(": \(total ?? -1) steps counted") == true, "ledger verify: \(verify.output); log: \(counted ?? "none")")
    }
}
