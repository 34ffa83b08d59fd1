import ArgumentParser
import StepJSON
import StepProtocol

struct SamplesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "samples", abstract: "Add, list or delete step samples from other sources or entered by hand.",
        subcommands: [Add.self, List.self, Delete.self])

    @ParentCommand var root: StepCtl

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add a sample: steps between two times from a named source (admin).")

        @ParentCommand var root: StepCtl
        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var output: OutputOptions
        @Option(help: "Source name kind:id (kind device, app or manual), e.g. app:phone; a bare name is app:<name>.") var source: String
        @Option(parsing: .unconditional, help: ArgumentHelp("Start time (ISO-8601, local in the --tz zone, else the agent's; -2h; UTC seconds).", valueName: "time")) var start: String
        @Option(parsing: .unconditional, help: ArgumentHelp("End time.", valueName: "time")) var end: String = "now"
        @OptionGroup var zone: ZoneOptions
        @Option(help: "Number of steps.") var steps: Int
        @Option(help: ArgumentHelp("Distance in metres.", valueName: "metres")) var distance: Double?
        @Flag(help: "Mark the sample as entered by the user.") var userEntered = false
        @Option(help: ArgumentHelp("Your own id for the sample: resending it changes nothing unless --sync-version is higher.", valueName: "id"))
        var syncIdentifier: String?
        @Option(help: ArgumentHelp("Version of --sync-identifier (a higher one replaces the held sample).", valueName: "n"))
        var syncVersion: Int64?

        func validate() throws {
            // JSON has no nan or inf: the request dropped such a distance and the sample was
            // added without one.
            if let distance, !(distance.isFinite && distance >= 0) {
                throw ValidationError("--distance takes metres, 0 or more, got \(distance)")
            }
            // The agent refuses this too (exit 1, after connecting); it is a bad command line.
            if syncVersion != nil && syncIdentifier == nil {
                throw ValidationError("--sync-version needs --sync-identifier: it versions that id")
            }
        }

        /// The protocol's own rules for a sample, naming the flags: the agent's answer names its
        /// fields ("end" must be after "start"), which are not what the user typed.
        @discardableResult
        func checkSpan(_ times: LocalTimes, now: Double) throws -> (start: Double, end: Double) {
            let from = try times.instant(start, option: "--start", now: now)
            let to = try times.instant(end, option: "--end", now: now)
            if let problem = SampleInput.spanProblem(start: from, end: to, steps: steps, startName: "--start", endName: "--end") {
                throw UsageFailure(problem)
            }
            return (from, to)
        }

        func run() throws {
            // Bad times are reported whether or not the agent runs; read in its zone, and relative
            // ones from its clock, below.
            try checkSpan(LocalTimes(tz: zone.tz), now: TimeText.now())
            let client = try connect(connection, root.connection)
            let (times, now) = try zone.agentClock(asking: client)
            let (from, to) = try checkSpan(times, now: now)
            let params = SamplesAddParams(SampleInput(source: source, start: from, end: to, steps: steps, distanceMeters: distance,
                                                      userEntered: userEntered, syncIdentifier: syncIdentifier,
                                                      syncVersion: syncVersion))
            let (r, raw) = try call(client, .samplesAdd, params.json, as: SamplesAddResult.init(json:))
            if output.json { return printJSON(raw) }
            for sample in r.samples { print("sample \(sample.id) \(sample.status.rawValue): \(counted(steps, "step")) from \(source)") }
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the samples that start in a period (samples.list), every page.")

        @ParentCommand var root: StepCtl
        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var output: OutputOptions
        @Option(help: ArgumentHelp("How far back: 7d, 12h, 90m.", valueName: "duration")) var last: String = "1d"
        @OptionGroup var zone: ZoneOptions
        @OptionGroup var select: SelectionOptions

        func run() throws {
            // A bad --last is reported as that, whether or not the agent runs; it counts back from the agent's clock.
            _ = try TimeText.recent(last, examples: "7d, 12h or 90m")
            let client = try connect(connection, root.connection)
            let (times, now) = try zone.agentClock(asking: client)
            var params = SamplesListParams(range: try TimeText.recent(last, examples: "7d, 12h or 90m", now: now), selection: select.selection,
                                           limit: SamplesListParams.maximumLimit)
            var table = Table(["id", "source", "start", "end", "steps", "distance_m", "utc_offset", "flags"], numeric: [4, 5, 6])
            var pages: [JSONValue] = []
            while true {
                let (page, raw) = try call(client, .samplesList, params.json, as: SamplesListResult.init(json:))
                pages.append(raw)
                for s in page.samples {
                    var flags: [String] = []
                    if s.userEntered { flags.append("user") }
                    if let id = s.syncIdentifier { flags.append("sync=\(id)@\(s.syncVersion ?? 0)") }
                    table.add([s.id, s.source, times.text(s.start, .monthDaySecond),
                               times.text(s.end, .monthDaySecond), String(s.steps),
                               formatNumber(s.distanceMeters), String(s.utcOffset), flags.joined(separator: ",")])
                }
                guard page.more, let next = page.nextStart, case .between(_, let end) = params.range else { break }
                params.range = .between(start: next, end: end)
            }
            if output.json { return printJSON(joinedPages(pages, arrayKey: "samples")) }
            print(table.render())
        }
    }

    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete samples by the ids `samples add` printed, all or none (admin).")

        @ParentCommand var root: StepCtl
        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var output: OutputOptions
        @Option(help: "The source the samples were added under (kind:id, as samples list and sync export show it).") var source: String
        @Argument(help: "Sample ids.") var ids: [String]

        func run() throws {
            guard !ids.isEmpty else { throw CtlFailure("give at least one sample id") }
            let client = try connect(connection, root.connection)
            let (r, raw) = try call(client, .samplesDelete, SamplesDeleteParams(source: source, ids: ids).json,
                                    as: SamplesDeleteResult.init(json:))
            if output.json { return printJSON(raw) }
            print("deleted \(r.deleted) sample(s)")
            if !r.notFound.isEmpty { print("not found: \(r.notFound.joined(separator: " "))") }
            if !r.alreadyDeleted.isEmpty { print("already deleted: \(r.alreadyDeleted.joined(separator: " "))") }
        }
    }
}

struct SourcesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sources", abstract: "List the sources the ledger knows, winner first; set their priority.",
        subcommands: [List.self, Priority.self], defaultSubcommand: List.self)

    @ParentCommand var root: StepCtl

    static func show(_ r: SourcesResult) {
        print("priority order set: " + (r.order.isEmpty ? "none (by kind, then first seen)" : r.order.joined(separator: ",")))
        for (rank, source) in r.ranked.enumerated() { print("\(rank + 1). \(source)") }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Every known source from the winner down (sources.list).")
        @ParentCommand var root: StepCtl
        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var output: OutputOptions

        func run() throws {
            let client = try connect(connection, root.connection)
            let (r, raw) = try call(client, .sourcesList, as: SourcesResult.init(json:))
            if output.json { return printJSON(raw) }
            SourcesCommand.show(r)
        }
    }

    struct Priority: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set which sources win where samples overlap, e.g. `device:watch-1,app:phone` (admin).")
        @ParentCommand var root: StepCtl
        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "Source names kind:id the ledger knows (`stepctl sources`), comma-separated, the winner first; \"\" clears the order.")
        var order: String

        /// The entries of `order`; "" (and only "") is the empty order that clears it.
        var names: [String] {
            order.trimmingSpaces.isEmpty ? [] : order.split(separator: ",", omittingEmptySubsequences: false).map { String($0).trimmingSpaces }
        }

        func validate() throws {
            // "a,,b" was sent as "a,b": a name lost to a doubled comma went unnoticed.
            if let empty = names.firstIndex(of: "") {
                throw ValidationError("entry \(empty + 1) of '\(order)' is empty; give source names separated by single commas, or \"\" to clear the order")
            }
        }

        func run() throws {
            let client = try connect(connection, root.connection)
            // The agent keeps any well-formed name (the protocol took them, so it still does); a
            // mistyped one set an order that never applied. Only sources the ledger has seen count.
            let (known, _) = try call(client, .sourcesList, as: SourcesResult.init(json:))
            let unknown = names.filter { name in !known.ranked.contains(SourceName(name)?.text ?? name) }
            if !unknown.isEmpty {
                let listed = known.ranked.isEmpty ? "none yet (add samples first)" : known.ranked.joined(separator: ", ")
                throw UsageFailure("unknown source\(unknown.count == 1 ? "" : "s") \(unknown.joined(separator: ", ")); the ledger knows: \(listed)")
            }
            let (r, raw) = try call(client, .sourcesPriority, SourcesPriorityParams(order: names).json, as: SourcesResult.init(json:))
            if output.json { return printJSON(raw) }
            SourcesCommand.show(r)
        }
    }
}

extension String {
    var trimmingSpaces: String { String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed()) }
}

struct SyncCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync", abstract: "Anchored export of ledger records and acknowledgement (ledger.export, ledger.ack).",
        subcommands: [Export.self, Ack.self])

    @ParentCommand var root: StepCtl

    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print records after an anchor; pass next_anchor to the next export and to ack.",
            discussion: "An answer holds at most 1 MiB: a page may end before --limit, with more records to export from next_anchor. --all follows the pages.")

        @ParentCommand var root: StepCtl
        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var output: OutputOptions
        @Option(help: "Export records after this anchor (0: from the beginning).") var anchor: Int64 = 0
        @Option(help: "Most records per page (1-10000).") var limit: Int = 1000
        @Flag(help: "Follow every page until nothing more is pending.") var all = false
        @OptionGroup var zone: ZoneOptions

        /// The agent refuses these too, but after connecting and with exit 1: a bad command line.
        func validate() throws {
            let range = LedgerExportParams.limitRange
            guard range.contains(limit) else {
                throw ValidationError("--limit must be between \(range.lowerBound) and \(range.upperBound), got \(limit)")
            }
            guard anchor >= 0 else { throw ValidationError("--anchor must be 0 or more (a next_anchor), got \(anchor)") }
        }

        func run() throws {
            let client = try connect(connection, root.connection)
            var params = LedgerExportParams(anchor: anchor, limit: limit)
            let times = try zone.times(asking: client, json: output.json)
            var table = Table(["anchor", "id", "source", "start", "end", "utc_offset", "steps", "distance_m", "flags"],
                              numeric: [0, 5, 6, 7])
            var last: LedgerExportResult?
            var pages: [JSONValue] = []
            repeat {
                let (page, raw) = try call(client, .ledgerExport, params.json, as: LedgerExportResult.init(json:))
                pages.append(raw)
                for record in page.records {
                    var flags: [String] = []
                    if record.userEntered { flags.append("user") }
                    if record.deleted { flags.append("deleted") }
                    table.add([String(record.anchor), record.id, record.source,
                               times.text(record.start, .monthDaySecond),
                               times.text(record.end, .monthDaySecond), String(record.utcOffset),
                               String(record.steps), formatNumber(record.distanceMeters), flags.joined(separator: ",")])
                }
                params.anchor = page.nextAnchor
                last = page
            } while all && last?.more == true
            if output.json { return printJSON(joinedPages(pages, arrayKey: "records")) }
            print(table.render())
            if let last { print("next_anchor \(last.nextAnchor)\(last.more ? " (more records: export again from it)" : "")") }
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
            let (r, raw) = try call(client, .ledgerAck, LedgerAckParams(anchor: anchor).json, as: LedgerAckResult.init(json:))
            if output.json { return printJSON(raw) }
            print("acknowledged up to \(r.acknowledged); \(r.pendingRecords) record(s) not yet acknowledged")
        }
    }
}
