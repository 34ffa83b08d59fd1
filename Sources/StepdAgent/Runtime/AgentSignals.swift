import Glibc

/// What the agent does on each signal it takes through its signalfd: one table read by the
/// launcher (which signals to block), the loop (what to do) and the stepd(8) manual (what to
/// expect). Every signal whose default action ends the process belongs here: a tester's
/// `kill -USR1` used to kill the agent on the spot and lose its unsaved steps.
enum AgentSignals {
    enum Response: Equatable {
        /// Save the steps, close the socket and exit 0, as systemd's stop does.
        case stop
        /// Log the signal and go on counting.
        case ignore(reason: String)
    }

    struct Entry {
        let number: Int32
        let name: String
        let response: Response
    }

    static let table: [Entry] = [
        Entry(number: SIGTERM, name: "SIGTERM", response: .stop),
        Entry(number: SIGINT, name: "SIGINT", response: .stop),
        // The UPS daemon's "power is failing": the same clean stop, so the steps reach the disk first.
        Entry(number: SIGPWR, name: "SIGPWR", response: .stop),
        Entry(number: SIGHUP, name: "SIGHUP", response: .ignore(reason: "nothing to reload (restart the service to change the board)")),
        // No action is bound to these; ignoring them keeps a stray or mistyped kill from
        // ending the counting (stopping is what SIGTERM is for).
        Entry(number: SIGUSR1, name: "SIGUSR1", response: .ignore(reason: "no action is bound to it (stop the agent with SIGTERM)")),
        Entry(number: SIGUSR2, name: "SIGUSR2", response: .ignore(reason: "no action is bound to it (stop the agent with SIGTERM)")),
        Entry(number: SIGALRM, name: "SIGALRM", response: .ignore(reason: "the agent sets no alarms")),
    ]

    static var numbers: [Int32] { table.map(\.number) }

    static func entry(for number: Int32) -> Entry? { table.first { $0.number == number } }
}
