import ArgumentParser
import Glibc
import StepJSON
import Ledger
import LedgerStore

/// Works on the ledger files directly, without the agent.
struct LedgerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ledger",
        abstract: "Check the step ledger files (works without the agent running).",
        subcommands: [Verify.self]
    )

    struct Verify: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Read every ledger file and report records, corruption and duplicates; never modifies anything.",
            discussion: """
                Exit status 0 when the ledger is clean, 1 when any record is corrupt or duplicated \
                (a torn tail counts as corrupt until the agent's start-up recovery cuts it), 2 when \
                the files cannot be read.
                """
        )

        @Option(name: .customLong("state-dir"), help: "The agent's state directory (holding ledger/).")
        var stateDirectory: String

        @Flag(help: "Print one JSON object.")
        var json = false

        func validate() throws {
            // "" (an unset shell variable) would read /ledger.
            guard !stateDirectory.isEmpty else { throw ValidationError("--state-dir needs a directory, got an empty one") }
        }

        func run() throws {
            let report: LedgerVerifyReport
            do {
                report = try LedgerVerifier.verify(stateDirectory: stateDirectory)
            } catch {
                // Exit status 2 as documented above (a ValidationError would exit 64 with usage).
                writeAll(STDERR_FILENO, "Error: cannot read the ledger in \(stateDirectory): \(error)\n")
                throw ExitCode(2)
            }
            print(json ? Self.json(report) : Self.text(report))
            if !report.isClean { throw ExitCode(1) }
        }

        static func json(_ r: LedgerVerifyReport) -> String {
            let report: JSONValue = [
                "records": .int(r.records), "corrupt": .int(r.corrupt), "duplicates": .int(r.duplicates),
                "steps": .int(r.steps), "files": .int(r.files), "torn_tails": .int(r.tornTails),
                "tombstones": .int(r.tombstones), "deleted_count": .int(r.deletedRecords),
                // "deleted": the deprecated name of deleted_count, kept for scripts written before it.
                "deleted": .int(r.deletedRecords), "bytes": .int(r.bytes),
                "damaged_files_aside": .int(r.damagedFilesAside),
                "first_sequence": .int64(Int64(clamping: r.firstSequence)),
                "last_sequence": .int64(Int64(clamping: r.lastSequence)),
                "synced_anchor": r.syncedAnchor.map { .int64(Int64(clamping: $0)) } ?? .null,
                "directory": .string(r.directory), "ok": .bool(r.isClean),
                "problems": .array(r.problems.map { .string($0) }),
            ]
            return report.jsonText
        }

        static func text(_ r: LedgerVerifyReport) -> String {
            var lines = [
                "ledger      \(r.directory)",
                "files       \(r.files) (\(r.bytes) bytes)",
                "records     \(r.records) (\(r.tombstones) tombstones, \(r.deletedRecords) deleted)",
                "sequences   \(r.firstSequence)...\(r.lastSequence), synced up to \(r.syncedAnchor.map(String.init) ?? "nothing")",
                "steps       \(r.steps) (all sources, unmerged)",
                "corrupt     \(r.corrupt) (\(r.tornTails) torn tails)",
                "duplicates  \(r.duplicates)",
            ]
            if r.damagedFilesAside > 0 { lines.append("set aside   \(r.damagedFilesAside) damaged file(s) from earlier repairs") }
            lines += r.problems.map { "  problem: \($0)" }
            lines.append(r.isClean ? "OK" : "NOT OK: start the agent to cut torn tails and set damaged files aside")
            return lines.joined(separator: "\n")
        }
    }
}
