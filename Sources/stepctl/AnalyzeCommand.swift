import ArgumentParser
import Glibc
import MotionCore
import Recordings
import StepdModel

/// `stepctl analyze [--json] [--embedded] FILE...`: the agent's motion engine over recordings.
struct AnalyzeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "analyze",
        abstract: "Count steps and classify activity in recordings (t,x,y,z CSV in seconds and g, plain or gzip).")

    @Flag(help: "One JSON object per file and line: file, steps, distance_m, activities.")
    var json = false

    @Option(help: "User height in metres for the stride model (default 1.70).")
    var height: Double?

    @Flag(help: "Also analyze the walk built into stepd (what `stepd --simulate builtin` replays), reported as file \"embedded\".")
    var embedded = false

    @Argument(help: "Recording files.")
    var files: [String] = []

    func validate() throws {
        if let height, !WearerHeight.metres.contains(height) {
            let range = WearerHeight.metres
            throw ValidationError("--height is in metres and must be between \(DecimalText.shortest(range.lowerBound)) and \(DecimalText.shortest(range.upperBound)), got \(height)")
        }
        if files.isEmpty && !embedded { throw ValidationError("give at least one recording file (or --embedded)") }
    }

    func run() throws {
        let configuration = MotionConfiguration(userHeight: height)
        var failures = 0
        // The table's header comes with its first row: a run whose every file was refused
        // printed a header over nothing on standard output.
        var headerDue = !json
        // The embedded walk first: it is what the agent replays when no recording is given.
        let sources: [String?] = (embedded ? [nil] : []) + files.map(Optional.some)
        for source in sources {
            let file = source ?? "embedded"
            let samples: [AccelSample]
            if let source {
                do {
                    samples = try RecordingReader.readReplayable(path: source)
                } catch {
                    failures += 1
                    emitError("stepctl analyze: \(error)")
                    continue
                }
            } else {
                samples = EmbeddedRecording.samples
            }
            let analysis = RecordingAnalysis.run(samples, configuration: configuration)
            if json {
                emit(analysis.jsonLine(file: file))
            } else {
                if headerDue {
                    emit(pad("file", 40) + pad("steps", 8) + pad("distance m", 12) + "activities")
                    headerDue = false
                }
                let summary = analysis.activities.map {
                    "\($0.kind.rawValue)(\($0.confidence.rawValue)) \(seconds($0.start))-\(seconds($0.end))s"
                }.joined(separator: ", ")
                emit(pad(file, 40) + pad("\(analysis.steps)", 8) + pad(seconds(analysis.distance), 12) + summary)
            }
        }
        if failures > 0 { throw ExitCode(1) }
    }

    private func seconds(_ value: Double) -> String { DecimalText.fixed(value, decimals: 1) ?? "-" }

    private func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }

    private func emit(_ line: String) { writeAll(1, line + "\n") }
    private func emitError(_ line: String) { writeAll(2, line + "\n") }
}
