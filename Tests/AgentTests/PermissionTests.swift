import Foundation
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
        #expect(result.error.contains("group"), "message should say which group to join: \(result.error)")
        #expect(agent.terminate() == 0)
    }
}
