/// Why the ledger changed, as the ledger reports it and `ledger.changed` tells subscribers.
public enum LedgerChangeReason: String, Sendable, CaseIterable, Hashable {
    case add, delete, checkpoint
}

/// What adding one external sample did, as the ledger reports it and `samples.add` answers.
public enum SampleAddStatus: String, Sendable, CaseIterable {
    case added, replaced, unchanged
}
