import ArgumentParser
import Glibc
import LedgerStore
import StepJSON
import StepProtocol
import StepSocket
import ToolSupport

/// `stepbench ledger sync`: an initial sync through a running agent's socket, as a client does
/// it: `ledger.export` pages from an anchor until `more` is false. Prints what it took and checks
/// that no record is repeated or skipped; `--save`/`--compare` check the same across a restart.
struct SyncBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Export a running agent's ledger page by page (ledger.export) and check nothing is lost or repeated.")

    @Option(help: "The agent's socket.") var socket: String
    @Option(help: "Records per page asked for (1-10000).") var limit = 10_000
    @Option(help: "Export after this anchor.") var anchor: Int64 = 0
    @Option(help: "Write the exported records (one line each) to this file.") var save: String?
    @Option(help: "Compare with a file written by --save: its records must come back identical, in order, followed only by newer ones.")
    var compare: String?
    @Option(help: "Fail unless at least this many records are exported.") var expectAtLeast = 0

    func run() throws {
        let client: UnixSocketClient
        do { client = try UnixSocketClient(path: socket, timeout: 60) } catch { throw ValidationError("\(error)") }
        var params = LedgerExportParams(anchor: anchor, limit: limit)
        var lines: [String] = []
        var pageTimes: [Double] = []
        var pageBytes: [Int] = []
        var pageRecords: [Int] = []
        var previous = anchor
        var problems: [String] = []
        let started = monotonicNow()
        while true {
            let t0 = monotonicNow()
            let raw: JSONValue
            do { raw = try client.call(.ledgerExport, params.json) } catch { throw ValidationError("ledger.export failed: \(error)") }
            pageTimes.append(monotonicNow() - t0)
            let page: LedgerExportResult
            do { page = try LedgerExportResult(json: raw) } catch { throw ValidationError("\(error)") }
            pageBytes.append(raw.serialized().count)
            pageRecords.append(page.records.count)
            for record in page.records {
                if record.anchor <= previous { problems.append("anchor \(record.anchor) after \(previous): repeated or out of order") }
                previous = record.anchor
                lines.append(record.json.jsonText)
            }
            if page.nextAnchor != (page.records.last?.anchor ?? params.anchor) { problems.append("next_anchor \(page.nextAnchor) is not the last record's") }
            params.anchor = page.nextAnchor
            if !page.more { break }
            if page.records.isEmpty { problems.append("an empty page with more: true"); break }
        }
        let total = monotonicNow() - started
        var compared = "-"
        if let compare {
            let saved = String(decoding: (try? PosixFileSystem().readFile(compare)) ?? [], as: UTF8.self).split(separator: "\n").map(String.init)
            if Array(lines.prefix(saved.count)) != saved {
                let firstDifference = zip(saved, lines).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(saved.count, lines.count)
                problems.append("differs from \(compare) at record \(firstDifference + 1) of \(saved.count)")
            }
            compared = "\(saved.count) saved, identical prefix: \(Array(lines.prefix(saved.count)) == saved), \(max(0, lines.count - saved.count)) newer"
        }
        if let save {
            do {
                try PosixFileSystem().writeFileDurably(save, Array((lines.joined(separator: "\n") + (lines.isEmpty ? "" : "\n")).utf8))
            } catch {
                throw ValidationError("cannot write \(save): \(error)")
            }
        }
        if lines.count < expectAtLeast { problems.append("exported \(lines.count) records, expected at least \(expectAtLeast)") }
        let sorted = pageTimes.sorted()
        print("stepbench ledger sync: \(socket), limit \(limit), from anchor \(anchor)")
        print("")
        let rows: [(String, String)] = [
            ("records exported", "\(lines.count)"),
            ("pages", "\(pageRecords.count) (records per page: \(pageRecords.map(String.init).joined(separator: ", ")))"),
            ("largest answer", "\(pageBytes.max() ?? 0) bytes (limit \(maxResponseBytes))"),
            ("page time p50 / max", "\(fixedDecimal((sorted[sorted.count / 2]) * 1000, 1)) ms / \(fixedDecimal((sorted.last ?? 0) * 1000, 1)) ms"),
            ("total", "\(fixedDecimal(total, 2)) s, \(fixedDecimal(Double(lines.count) / max(total, 1e-9), 0)) records/s"),
            ("last anchor", "\(previous)"),
            ("repeated or skipped", problems.isEmpty ? "none" : "\(problems.count)"),
            ("after restart", compared),
        ]
        for (key, value) in rows { print(column(key, 24) + value) }
        for problem in problems.prefix(10) { print("  FAIL \(problem)") }
        print(problems.isEmpty ? "PASS" : "FAIL")
        if !problems.isEmpty { throw ExitCode(1) }
    }
}
