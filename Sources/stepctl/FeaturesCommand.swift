import ArgumentParser
import Glibc
import MotionCore
import Recordings
import StepJSON
import StepdModel

/// `stepctl features --json FILE...`: the motion engine's window feature vectors, the input of
/// the classifier's trainer (scripts/train_motion_model.py), so the features have one implementation.
struct FeaturesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "features",
        abstract: "Print the activity classifier's feature vectors (one per 1 s, over the last 5 s) of recordings.",
        discussion: """
            With --json: one object per file and line, \
            {"file":F,"names":[...],"magnitude_count":M,"windows":[[end_s,magnitude_only,f1,f2,...],...]}; \
            the first M features use |a| alone (all that magnitude-only input has).
            """)

    @Flag(help: "One JSON object per file and line (the only format).")
    var json = false

    @Argument(help: "Recording files (t,x,y,z CSV in seconds and g, plain or gzip).")
    var files: [String]

    func validate() throws {
        if !json { throw ValidationError("give --json: the feature vectors are only written as JSON") }
        if files.isEmpty { throw ValidationError("give at least one recording file") }
    }

    func run() throws {
        var failures = 0
        let names = FeatureWindow.names.map { "\"\($0)\"" }.joined(separator: ",")
        for file in files {
            let samples: [AccelSample]
            do {
                samples = try RecordingReader.read(path: file)
            } catch {
                failures += 1
                writeAll(2, "stepctl features: \(error)\n")
                continue
            }
            var line = "{\"file\":\(JSONValue.string(file).jsonText),\"names\":[\(names)],\"magnitude_count\":\(FeatureWindow.magnitudeCount),\"windows\":["
            for (i, window) in RecordingAnalysis.featureWindows(samples).enumerated() {
                if i > 0 { line += "," }
                line += "[\(Self.number(window.end)),\(window.magnitudeOnly ? 1 : 0)"
                for value in window.values { line += "," + Self.number(value) }
                line += "]"
            }
            line += "]}\n"
            writeAll(1, line)
        }
        if failures > 0 { throw ExitCode(1) }
    }

    /// Six significant decimals are far below any feature's noise; NaN cannot occur but would not be JSON.
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        return DecimalText.shortest(DecimalText.rounded(value, decimals: 6))
    }
}
