import ArgumentParser

/// `socketfuzz --socket PATH`: the socket robustness fuzzer. Random bytes, truncated JSON, wrong
/// types, unknown methods and fields, deep nesting, huge numbers, invalid UTF-8, batches,
/// oversized lines, subscription floods and abrupt disconnects against a running agent while a
/// well-behaved client checks its answers. Exits 1 on any wrong or missing answer, or when the
/// agent is gone at the end. (For a target without an agent: `stepbench socket serve`.)
@main
struct SocketFuzzCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "socketfuzz",
        abstract: "Send malformed and hostile messages to stepd's socket while a well-behaved client checks its answers; exit 1 on any failure.")

    @Option(help: ArgumentHelp("The agent's socket.", valueName: "path")) var socket: String
    @Option(help: "PID of the agent; the run fails if it is gone at the end.") var pid: Int32?
    @Option(help: "Hostile messages to send.") var messages: Int = 100_000
    @Option(help: "Random seed (runs are reproducible).") var seed: UInt64 = 1
    @Option(help: "Hostile connections used in rotation.") var connections: Int = 4

    func run() throws {
        let report = try SocketFuzzer(path: socket, seed: seed, connections: max(1, connections), pid: pid).run(messages: messages)
        print(report.table())
        if !report.passed { throw ExitCode(1) }
    }
}
