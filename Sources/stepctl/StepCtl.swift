import ArgumentParser
import Glibc
import StepdModel

/// The stepd client. Each concern adds its subcommands here.
@main
struct StepCtl: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stepctl",
        abstract: "Ask the stepd agent about steps and activity, and work with its files.",
        discussion: """
            The agent is reached through its Unix socket: --socket PATH (before or after the \
            subcommand), else $STEPD_SOCKET, else the per-user default, else /run/stepd/stepd.sock.
            Every agent command prints a table, or one JSON object with --json. Local days and \
            times are the agent's (its time zone, as status names it) unless --tz names another. \
            Exit status: 0 done, 64 a bad command line (refused before connecting), 1 any other \
            failure: the agent unreachable or refusing the request, a file unreadable (ledger \
            verify: 1 not clean, 2 unreadable).
            """,
        version: StepdVersion.current,
        subcommands: [
            StatusCommand.self, TodayCommand.self, StepsCommand.self, HistoryCommand.self, StatsCommand.self,
            ActivityCommand.self, WatchCommand.self, SamplesCommand.self, SourcesCommand.self, SyncCommand.self,
            AnalyzeCommand.self, FeaturesCommand.self, LedgerCommand.self, RecordCommand.self, BundleCommand.self,
        ]
    )

    /// Accepted before the subcommand (`stepctl --socket PATH status`); subcommands read it
    /// through `@ParentCommand`.
    @OptionGroup var connection: ConnectionOptions

    /// ArgumentParser's own main, with `UsageFailure` exiting 64 (EX_USAGE).
    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch let failure as UsageFailure {
            writeAll(STDERR_FILENO, "Error: \(failure)\n")
            Glibc.exit(64)
        } catch {
            exit(withError: error)
        }
    }
}
