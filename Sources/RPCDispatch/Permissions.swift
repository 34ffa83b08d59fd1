import Glibc
import StepProtocol

/// Looks up the groups a user belongs to; a seam so the permission logic is testable without
/// creating users.
public protocol GroupMembershipLookup: Sendable {
    /// Every group id of `uid` (primary and supplementary); nil when the user is unknown.
    func groups(ofUser uid: UInt32) -> [UInt32]?
}

/// The system user database: getpwuid_r for the name and primary group, getgrouplist for the rest.
public struct SystemGroupLookup: GroupMembershipLookup {
    public init() {}

    public func groups(ofUser uid: UInt32) -> [UInt32]? {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        let rc = getpwuid_r(uid, &entry, &buffer, buffer.count, &result)
        guard rc == 0, result != nil, let name = entry.pw_name else { return nil }
        var count: Int32 = 32
        for _ in 0..<4 {
            var groups = [gid_t](repeating: 0, count: Int(count))
            var n = count
            if getgrouplist(name, entry.pw_gid, &groups, &n) >= 0 {
                return Array(groups.prefix(Int(n)))
            }
            count = max(n, count * 2)
        }
        return nil
    }

    /// The gid of a group name (for `--admin-group` / the board's socket group); nil when unknown.
    public static func groupID(named name: String) -> UInt32? {
        var entry = group()
        var result: UnsafeMutablePointer<group>?
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getgrnam_r(name, &entry, &buffer, buffer.count, &result) == 0, result != nil else { return nil }
        return entry.gr_gid
    }
}

/// Who may call what: read methods for anyone who can open the socket (the file mode decides
/// that); state-changing methods for root, the agent's own user, or members of the admin group.
public struct PermissionPolicy: Sendable {
    public var agentUID: UInt32
    public var adminGroupID: UInt32?
    public var lookup: any GroupMembershipLookup

    public init(agentUID: UInt32, adminGroupID: UInt32?, lookup: any GroupMembershipLookup = SystemGroupLookup()) {
        self.agentUID = agentUID
        self.adminGroupID = adminGroupID
        self.lookup = lookup
    }

    public enum Decision: Sendable, Equatable {
        case allowed
        case denied(String)
    }

    public func decide(_ method: RPCMethod, peer: RPCCaller) -> Decision {
        guard method.changesState else { return .allowed }
        if peer.uid == 0 || peer.uid == agentUID { return .allowed }
        guard let adminGroupID else {
            return .denied("\(method.rawValue) changes data; only root or the agent's user (uid \(agentUID)) may call it")
        }
        if peer.gid == adminGroupID { return .allowed }
        if let groups = lookup.groups(ofUser: peer.uid), groups.contains(adminGroupID) { return .allowed }
        return .denied("\(method.rawValue) changes data; uid \(peer.uid) is not root, the agent's user or in admin group \(adminGroupID)")
    }
}
