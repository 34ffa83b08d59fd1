import ArgumentParser
import MotionCore
import Recordings
import StepdModel
import ToolSupport

/// `stepbench robustness DIR...`: the motion core's figures under the imperfections of real
/// hardware (`SensorImperfection`, in ToolSupport): every recording of the labelled directories
/// is transformed, seeded by its name, and run through the engine again, scored as `stepbench
/// accuracy` scores it. One table: one row per transformation.
struct RobustnessBenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "robustness",
        abstract: "Step and activity figures under sensor noise, resampling, clock drift, quantisation, offsets, gains and rotation.")

    @Argument(help: "Directories with *.csv[.gz] recordings and manifest.json (e.g. ../shared/data/recordings ../shared/data/activity); scored together.")
    var directories: [String]

    @OptionGroup var classifier: ModelChoice

    @Option(help: "Seed of the random draws (noise, jitter, offsets, gains, rotations); each file's draw also depends on its name.")
    var seed: UInt64 = 1

    @Option(help: "Only the transformations whose label contains this text (repeatable), besides \"none\".")
    var only: [String] = []

    @Option(help: "Stamp jitter of the resampling rows, in periods (standard deviation).")
    var jitter = 0.1

    @Option(help: "Also write every transformed recording to this directory as LABEL--NAME.csv.gz (for stepctl analyze / features).")
    var write: String?

    @Flag(help: "Also list, per transformation, the files whose count or activity moved most against \"none\".")
    var files = false

    /// Every transformation the bench applies, in table order. Resampling carries the stamp
    /// jitter of real firmware: the development set's 12.5-200 Hz recordings show interval CVs of
    /// 0.08-0.28, about what stamps off by 0.1 period (standard deviation) give (CV 0.14).
    static func transformations(jitter: Double = 0.1) -> [SensorImperfection] { [
        .none,
        .whiteNoise(sigma: 0.01), .whiteNoise(sigma: 0.03),
        .resample(rate: 12.5, jitter: jitter), .resample(rate: 25, jitter: jitter), .resample(rate: 50, jitter: jitter),
        .clockDrift(percent: -3), .clockDrift(percent: -1), .clockDrift(percent: 1), .clockDrift(percent: 3),
        .quantise(bits: 8, range: 4), .quantise(bits: 10, range: 4), .quantise(bits: 12, range: 16),
        .zeroGOffset(minimum: 0.05, maximum: 0.15), .gainError(fraction: 0.03),
        .rotation,
    ] }

    func run() throws {
        let tool = "stepbench robustness"
        guard !directories.isEmpty else {
            AccuracyBenchCommand.printError("\(tool): name at least one directory with a manifest.json")
            throw ExitCode(1)
        }
        let chosen = Self.transformations(jitter: jitter).enumerated().filter { _, t in
            t == .none || only.isEmpty || only.contains { t.label.contains($0) }
        }
        // The directory is made, so a first run does not fail on every file.
        if let write { try AccuracyBenchCommand.makeOutputDirectory(write, tool: tool) }
        var configuration = MotionConfiguration()
        let models = try classifier.load(tool: tool)
        let start = monotonicNow()
        var results = [[AccuracyBenchCommand.FileResult]](repeating: [], count: chosen.count)
        var totalFiles = 0, totalSamples = 0
        for directory in directories {
            for entry in try AccuracyBenchCommand.loadManifest(directory, tool: tool) {
                guard let model = models.model(for: entry.name) else { continue }
                configuration.model = model
                let samples: [AccelSample]
                do {
                    samples = try RecordingReader.read(path: directory + "/" + entry.name)
                } catch {
                    AccuracyBenchCommand.printError("\(tool): \(error)")
                    throw ExitCode(1)
                }
                totalFiles += 1
                for (row, (index, transformation)) in chosen.enumerated() {
                    // Salted by the transformation's place in the full list, so --only repeats the same draws.
                    let salt = seed &* 0x9E37_79B9_7F4A_7C15 &+ UInt64(index)
                    let transformed = transformation.apply(to: samples, seed: SensorImperfection.seed(for: entry.name, salt: salt))
                    totalSamples += transformed.count
                    if let write, transformation != .none {
                        let slug = String(transformation.label.map { $0.isLetter || $0.isNumber || ".+-".contains($0) ? $0 : "_" })
                        let path = write + "/" + slug + "--" + (entry.name.hasSuffix(".gz") ? entry.name : entry.name + ".gz")
                        do {
                            let writer = try GzipCSVWriter(path: path)
                            try writer.append(contentsOf: transformed)
                            try writer.finish()
                        } catch {
                            AccuracyBenchCommand.printError("\(tool): cannot write \(path): \(error)")
                            throw ExitCode(1)
                        }
                    }
                    let analysis = RecordingAnalysis.run(transformed, configuration: configuration)
                    results[row].append(AccuracyBenchCommand.FileResult(entry: entry, samples: transformed, analysis: analysis, classic: 0))
                }
            }
        }
        let seconds = monotonicNow() - start

        if let folds = classifier.folds { print("cross-validated: each file counted with the fold model that held it out (\(folds))") }
        print("\(totalFiles) files of \(directories.joined(separator: ", ")), seed \(seed); false steps per hour of the files' (transformed) time;")
        print("activity as % of each label's time (still = stationary clips and recordings, vehicles = automotive); walking windows: 10 s windows")
        print("")
        print(column("transformation", 22) + column("MAPE %", 8) + column("worst %", 8) + column("summed %", 9)
            + column("false/still h", 14) + column("false/daily h", 14) + column("still stat %", 13)
            + column("vehicle auto %", 15) + column("non-veh auto %", 15) + column("walk win %", 11) + "worst file")
        for (row, (_, transformation)) in chosen.enumerated() {
            let score = AccuracyBenchCommand.Score(results[row], estimate: \.steps)
            let activity = AccuracyBenchCommand.ActivityScore(results[row])
            let still = AccuracyBenchCommand.secondsCalled(results[row]) { $0 == "stationary" }
            let vehicles = AccuracyBenchCommand.secondsCalled(results[row]) { $0 == "automotive" }
            let nonVehicle = AccuracyBenchCommand.secondsCalled(results[row]) { $0 != "automotive" }
            func percent(_ value: Double?, _ decimals: Int) -> String { value.map { fixedDecimal($0, decimals) } ?? "-" }
            print(column(transformation.label, 22) + column(fixedDecimal(score.mape, 2), 8) + column(fixedDecimal(score.worst, 1), 8)
                + column(fixedDecimal(score.totalError, 2), 9) + column(fixedDecimal(score.falsePerStillHour, 1), 14)
                + column(fixedDecimal(score.falsePerDailyHour, 1), 14) + column(percent(AccuracyBenchCommand.share(still, .stationary), 1), 13)
                + column(percent(AccuracyBenchCommand.share(vehicles, .automotive), 1), 15)
                + column(percent(AccuracyBenchCommand.share(nonVehicle, .automotive), 2), 15)
                + column(fixedDecimal(activity.walkingRight, 1), 11) + (Self.worstWalk(results[row]) ?? "-"))
        }
        if files, let baseline = results.first {
            for (row, (_, transformation)) in chosen.enumerated().dropFirst() {
                Self.printMoves(transformation.label, baseline: baseline, transformed: results[row])
            }
        }
        print("")
        print("\(chosen.count) transformations x \(totalFiles) files, \(totalSamples) samples through the engine in \(fixedDecimal(seconds, 1)) s (one core)")
    }

    /// The worst walking file's name (as the Score's worst figure picks it).
    static func worstWalk(_ results: [AccuracyBenchCommand.FileResult]) -> String? {
        var worst: (error: Double, name: String)?
        for r in results where r.entry.activity == "walking" {
            guard let truth = r.entry.truth, truth > 0 else { continue }
            let error = Double(abs(r.steps - truth)) / Double(truth)
            if worst == nil || error > (worst?.error ?? 0) { worst = (error, r.entry.name) }
        }
        return worst?.name
    }

    /// The files a transformation moved most: step counts (relative to the truth, at least 20
    /// steps) and automotive time (share of the file), against the untransformed run.
    static func printMoves(_ label: String, baseline: [AccuracyBenchCommand.FileResult], transformed: [AccuracyBenchCommand.FileResult]) {
        let automotive = ActivityKind.allCases.firstIndex(of: .automotive) ?? 0
        var moves: [(score: Double, text: String)] = []
        for (before, after) in zip(baseline, transformed) {
            let scale = Double(max(before.entry.truth ?? 0, 20))
            let stepMove = Double(after.steps - before.steps) / scale
            func automotiveShare(_ r: AccuracyBenchCommand.FileResult) -> Double {
                100 * r.secondsCalled[automotive] / max(r.secondsCalled.reduce(0, +), 1)
            }
            let autoMove = (automotiveShare(after) - automotiveShare(before)) / 100
            guard abs(stepMove) >= 0.05 || abs(autoMove) >= 0.1 else { continue }
            moves.append((max(abs(stepMove), abs(autoMove)),
                          "  " + column(String(before.entry.name.prefix(45)), 46) + column(before.entry.activity, 11)
                            + "steps \(before.steps) -> \(after.steps) (true \(before.entry.truth.map { "\($0)" } ?? "-")), automotive "
                            + "\(fixedDecimal(automotiveShare(before), 0)) -> \(fixedDecimal(automotiveShare(after), 0)) %"))
        }
        print("")
        print("\(label): \(moves.count) files moved (steps by >= 5 % of the truth, or automotive by >= 10 % of the time)")
        for move in moves.sorted(by: { $0.score > $1.score }).prefix(12) { print(move.text) }
    }
}
