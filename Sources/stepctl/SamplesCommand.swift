import ArgumentParser
import StepJSON
import StepProtocol

struct SamplesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "samples", abstract: "Add or delete step samples from other sources or entered by hand (admin).",
        subcommands: [Add.self, Delete.self])

    @ParentCommand var root: StepCtl

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add a sample: steps between two times from a named source.")

        @ParentCommand var root: StepCtl
        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var output: OutputOptions
        @Option(help: "Source name (letters, digits, . _ -), e.g. phone or treadmill.") var source: String
        @Option(parsing: .unconditional, help: ArgumentHelp("Start time (ISO-8601, -2h, UTC seconds).", valueName: "time")) var start: String
        @Option(parsing: .unconditional, help: ArgumentHelp("End time (default now).", valueName: "time")) var end: String = "now"
        @Option(help: "Number of steps.") var steps: Int
        @Option(help: ArgumentHelp("Distance in metres.", valueName: "metres")) var distance: Double?
        @Flag(help: "Mark the sample as entered by the user.") var userEntered = false

        func run() throws {
            let now = TimeText.now()
            guard let from = TimeText.instant(start, now: now) else { throw CtlFailure("--start \(start): not a time") }
            guard let to = TimeText.instant(end, now: now) else { throw CtlFailure("--end \(end): not a time") }
            let params = SamplesAddParams(source: source, start: from, end: to, steps: steps, distanceMeters: distance, userEntered: userEntered)
            let client = try connect(connection, root.connection)
            let r = try call(client, .samplesAdd, params.json)
            if output.json { return printJSON(r) }
            print("added sample \(r["id"]?.stringValue ?? "?"): \(steps) steps from \(source)")
        }
    }

    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete samples by the ids `samples add` printed.")

        @ParentCommand var root: StepCtl
        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var output: OutputOptions
        @Option(help: "The source the samples were added under.") var source: String
        @Argument(help: "Sample ids.") var ids: [String]

        func run() throws {
            guard !ids.isEmpty else { throw CtlFailure("give at least one sample id") }
            let client = try connect(connection, root.connection)
            let r = try call(client, .samplesDelete, ["source": .string(source), "ids": .array(ids.map { .string($0) })])
            if output.json { return printJSON(r) }
            print("deleted \(formatInt(r["deleted"])) sample(s)")
            let missing = r["not_found"]?.arrayValue?.compactMap(\.stringValue) ?? []
            if !missing.isEmpty { print("not found: \(missing.joined(separator: " "))") }
        }
    }
}

struct SyncCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync", abstract: "Anchored export of ledger records and acknowledgement (ledger.export, ledger.ack).",
        subcommands: [Export.self, Ack.self])

    @ParentCommand var root: StepCtl

    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print records after an anchor; pass next_anchor to the next export and to ack.")

        @ParentCommand var root: StepCtl
        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var output: OutputOptions
        @Option(help: "Export records after this anchor (0: from the beginning).") var anchor: Int64 = 0
        @Option(help: "Most records to return (1-10000).") var limit: Int = 1000

        func run() throws {
            let client = try connect(connection, root.connection)
            let r = try call(client, .ledgerExport, ["anchor": .int64(anchor), "limit": .int(limit)])
            if output.json { return printJSON(r) }
            var table = Table(["anchor", "id", "source", "start", "end", "steps", "distance_m", "flags"], numeric: [0, 5, 6])
            for record in r["records"]?.arrayValue ?? [] {
                var flags: [String] = []
                if record["user_entered"] == true { flags.append("user") }
                if record["deleted"] == true { flags.append("deleted") }
                table.add([formatInt(record["anchor"]), record["id"]?.stringValue ?? "-", record["source"]?.stringValue ?? "-",
                           TimeText.local(record["start"]?.doubleValue, format: "%m-%d %H:%M:%S"),
                           TimeText.local(record["end"]?.doubleValue, format: "%m-%d %H:%M:%S"),
                           formatInt(record["steps"]), formatNumber(record["distance_m"]), flags.joined(separator: ",")])
            }
            print(table.render())
            print("next_anchor \(formatInt(r["next_anchor"]))\(r["more"] == true ? " (more records: export again from it)" : "")")
        }
    }

    struct Ack: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Acknowledge everything up to an anchor as stored by the client (admin).")

        @ParentCommand var root: StepCtl
        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "The next_anchor of the last export you stored.") var anchor: Int64

        func run() throws {
            let client = try connect(connection, root.connection)
            let r = try call(client, .ledgerAck, ["anchor": .int64(anchor)])
            if output.json { return printJSON(r) }
            print("acknowledged up to \(formatInt(r["acknowledged"])); \(formatInt(r["pending_records"])) record(s) not yet acknowledged")
        }
    }
}
