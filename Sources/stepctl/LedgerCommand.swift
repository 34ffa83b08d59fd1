import ArgumentParser
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

        func run() throws {
            let report: LedgerVerifyReport
            do {
                report = try LedgerVerifier.verify(stateDirectory: stateDirectory)
            } catch {
                throw ValidationError("cannot read the ledger in \(stateDirectory): \(error)")
            }
            print(json ? Self.json(report) : Self.text(report))
            if !report.isClean { throw ExitCode(1) }
        }

        static func json(_ r: LedgerVerifyReport) -> String {
            let anchor = r.syncedAnchor.map(String.init) ?? "null"
            let problems = r.problems.map(quoted).joined(separator: ",")
            return "{\"records\":\(r.records),\"corrupt\":\(r.corrupt),\"duplicates\":\(r.duplicates),\"steps\":\(r.steps),"
                + "\"files\":\(r.files),\"torn_tails\":\(r.tornTails),\"tombstones\":\(r.tombstones),"
                + "\"deleted\":\(r.deletedRecords),\"bytes\":\(r.bytes),\"damaged_files_aside\":\(r.damagedFilesAside),"
                + "\"first_sequence\":\(r.firstSequence),\"last_sequence\":\(r.lastSequence),\"synced_anchor\":\(anchor),"
                + "\"directory\":\(quoted(r.directory)),\"ok\":\(r.isClean),\"problems\":[\(problems)]}"
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

        static func quoted(_ text: String) -> String {
            var out = "\""
            for scalar in text.unicodeScalars {
                switch scalar {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case "\n": out += "\\n"
                default:
                    if scalar.value < 0x20 {
                        let hex = String(scalar.value, radix: 16)
                        out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                    } else {
                        out.unicodeScalars.append(scalar)
                    }
                }
            }
            return out + "\""
        }
    }
}
