import RPCDispatch
import StepProtocol
import StepSocket
import Testing

struct FakeGroups: GroupMembershipLookup {
    var table: [UInt32: [UInt32]]
    func groups(ofUser uid: UInt32) -> [UInt32]? { table[uid] }
}

@Suite struct PermissionTests {
    let policy = PermissionPolicy(agentUID: 990, adminGroupID: 500, lookup: FakeGroups(table: [1000: [1000, 500], 1001: [1001, 20]]))

    @Test func readMethodsForEveryone() {
        for method in RPCMethod.allCases where !method.changesState {
            #expect(policy.decide(method, peer: RPCPeer(pid: 1, uid: 1234, gid: 1234)) == .allowed)
        }
    }

    @Test func writeMethods() {
        let writes = RPCMethod.allCases.filter(\.changesState)
        #expect(Set(writes.map(\.rawValue)) == ["samples.add", "samples.delete", "sources.priority", "ledger.ack", "recording.start", "recording.stop"])
        for method in writes {
            #expect(policy.decide(method, peer: RPCPeer(pid: 1, uid: 0, gid: 0)) == .allowed, "root")
            #expect(policy.decide(method, peer: RPCPeer(pid: 1, uid: 990, gid: 990)) == .allowed, "agent user")
            #expect(policy.decide(method, peer: RPCPeer(pid: 1, uid: 1000, gid: 1000)) == .allowed, "supplementary admin group")
            #expect(policy.decide(method, peer: RPCPeer(pid: 1, uid: 2000, gid: 500)) == .allowed, "primary gid is admin")
            guard case .denied(let reason) = policy.decide(method, peer: RPCPeer(pid: 1, uid: 1001, gid: 1001)) else {
                Issue.record("uid 1001 allowed \(method)")
                continue
            }
            #expect(reason.contains("uid 1001"))
            #expect(policy.decide(method, peer: RPCPeer(pid: 1, uid: 4242, gid: 4242)) != .allowed, "unknown user")
        }
    }

    @Test func withoutAdminGroup() {
        let strict = PermissionPolicy(agentUID: 990, adminGroupID: nil, lookup: FakeGroups(table: [1000: [500]]))
        #expect(strict.decide(.samplesAdd, peer: RPCPeer(pid: 1, uid: 1000, gid: 500)) != .allowed)
        #expect(strict.decide(.samplesAdd, peer: RPCPeer(pid: 1, uid: 990, gid: 990)) == .allowed)
    }

    @Test func systemLookupFindsRoot() {
        #expect(SystemGroupLookup().groups(ofUser: 0)?.contains(0) == true)
        #expect(SystemGroupLookup.groupID(named: "root") == 0)
        #expect(SystemGroupLookup.groupID(named: "no-such-group-xyz") == nil)
    }
}
