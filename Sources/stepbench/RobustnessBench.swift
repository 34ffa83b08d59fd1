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
        abstract: "Step and activity figures under sensor noise, resampling, clock drift, quantisation, offsets, gains, rotation and |a|-only logging.")

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

    @Option(help: "The \"|a| watch\" row's norm, l1 or l2, for every file instead of a draw per file (its rate and gain are still drawn).")
    var watchNorm: String?

    @Option(help: "The \"|a| watch\" row's gain for every file (1: the plain norm in g) instead of a draw of 1.2-1.4.")
    var watchGain: Double?

    @Flag(help: "Also list, per transformation, the files whose count or activity moved most against \"none\".")
    var files = false

    /// Every transformation the bench applies, in table order. Resampling carries the stamp
    /// jitter of real firmware: the development set's 12.5-200 Hz recordings show interval CVs of
    /// 0.08-0.28, about what stamps off by 0.1 period (standard deviation) give (CV 0.14).
    static func transformations(jitter: Double = 0.1, watchNorm: MagnitudeNorm? = nil, watchGain: Double? = nil) -> [SensorImperfection] { [
        .none,
        .whiteNoise(sigma: 0.01), .whiteNoise(sigma: 0.03),
        .resample(rate: 12.5, jitter: jitter), .resample(rate: 25, jitter: jitter), .resample(rate: 50, jitter: jitter),
        .clockDrift(percent: -3), .clockDrift(percent: -1), .clockDrift(percent: 1), .clockDrift(percent: 3),
        .quantise(bits: 8, range: 4), .quantise(bits: 10, range: 4), .quantise(bits: 12, range: 16),
        .zeroGOffset(minimum: 0.05, maximum: 0.15), .gainError(fraction: 0.03),
        .rotation, .magnitudeWatch(norm: watchNorm, gain: watchGain),
        // The agent's own rate (`stepd` polls at 40 Hz), last so that every row above keeps its draws.
        .resample(rate: 40, jitter: jitter),
        // Round 17: a +-2 g converter (both chips' power-on range, and many watches'): a jog's,
        // a pocket's or a swinging arm's peaks above 2 g clip. Last again, for the same reason.
        .quantise(bits: 12, range: 2),
    ] }

    func run() throws {
        let tool = "stepbench robustness"
        guard !directories.isEmpty else {
            AccuracyBenchCommand.printError("\(tool): name at least one directory with a manifest.json")
            throw ExitCode(1)
        }
        let norm = try watchNorm.map { text in
            guard let norm = MagnitudeNorm(rawValue: text) else {
                AccuracyBenchCommand.printError("\(tool): --watch-norm takes l1 or l2, got '\(text)'")
                throw ExitCode(1)
            }
            return norm
        }
        if let watchGain, !(watchGain > 0 && watchGain.isFinite) {
            AccuracyBenchCommand.printError("\(tool): --watch-gain takes a positive number, got \(watchGain)")
            throw ExitCode(1)
        }
        let chosen = Self.transformations(jitter: jitter, watchNorm: norm, watchGain: watchGain).enumerated().filter { _, t in
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
                    let transformed = transformation.apply(to: samples, seed: SensorImperfection.seed(for: entry.name, salt: salt(index)))
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
        if let row = chosen.firstIndex(where: { if case .magnitudeWatch = $0.element { true } else { false } }), let baseline = results.first {
            printMagnitudeWatchStill(baseline: baseline, watch: results[row], salt: salt(chosen[row].offset), norm: norm, gain: watchGain)
        }
        if files, let baseline = results.first {
            for (row, (_, transformation)) in chosen.enumerated().dropFirst() {
                Self.printMoves(transformation.label, baseline: baseline, transformed: results[row])
            }
        }
        print("")
        print("\(chosen.count) transformations x \(totalFiles) files, \(totalSamples) samples through the engine in \(fixedDecimal(seconds, 1)) s (one core)")
    }

    /// The salt of the draws of the transformation at `index` of the full list (not of --only's
    /// choice), so --only repeats the same draws.
    func salt(_ index: Int) -> UInt64 { seed &* 0x9E37_79B9_7F4A_7C15 &+ UInt64(index) }

    /// The drives and still files (no |a| recording is either) three-axis and as the |a| watch
    /// logs them: false steps per hour and the automotive and stationary shares, per file and per
    /// label. A clip without a step count counts every step as false (a drive or still clip).
    func printMagnitudeWatchStill(baseline: [AccuracyBenchCommand.FileResult], watch: [AccuracyBenchCommand.FileResult], salt: UInt64,
                                  norm: MagnitudeNorm?, gain: Double?) {
        let automotive = ActivityKind.allCases.firstIndex(of: .automotive) ?? 0
        let stationary = ActivityKind.allCases.firstIndex(of: .stationary) ?? 0
        struct Figures {
            var hours = 0.0, falseSteps = 0, called = [Double](repeating: 0, count: ActivityKind.allCases.count)
            mutating func add(_ r: AccuracyBenchCommand.FileResult) {
                hours += r.duration / 3600
                falseSteps += max(0, r.steps - (r.entry.truth ?? 0))
                for k in called.indices { called[k] += r.secondsCalled[k] }
            }
        }
        func cells(_ f: Figures) -> String {
            let total = max(f.called.reduce(0, +), 1e-9)
            // The kind called longest, which says what a drive is taken for when it is not automotive.
            let most = f.called.indices.max { f.called[$0] < f.called[$1] } ?? 0
            return column("\(f.falseSteps)", 7) + column(fixedDecimal(f.hours > 0 ? Double(f.falseSteps) / f.hours : 0, 1), 9)
                + column(fixedDecimal(100 * f.called[automotive] / total, 1), 8) + column(fixedDecimal(100 * f.called[stationary] / total, 1), 8)
                + column(String(ActivityKind.allCases[most].rawValue.prefix(10)) + " " + fixedDecimal(100 * f.called[most] / total, 0), 16)
        }
        let header = column("false", 7) + column("false/h", 9) + column("auto %", 8) + column("stat %", 8) + column("mostly %", 16)
        print("")
        print("drives and still files, three-axis and as a magnitude-only watch logs them (\"|a| watch\": x = |a|, y = z = 0, the way")
        print("daily-life --magnitude-only renders; each file its own watch, whose rate a slower file keeps); false steps: counted minus the")
        print("manifest's (all, in a clip without a count); \"mostly\": the kind called longest")
        print(column("file", 40) + column("label", 11) + column("hours", 7) + column("watch", 20) + "three-axis: " + header + "|a| watch: " + header)
        for label in ["automotive", "stationary"] {
            var before = Figures(), after = Figures()
            var files = 0
            for (b, a) in zip(baseline, watch) where b.entry.activity == label {
                var one = Figures(), oneAfter = Figures()
                one.add(b)
                oneAfter.add(a)
                before.add(b)
                after.add(a)
                files += 1
                let drawn = SensorImperfection.drawnMagnitudeWatch(seed: SensorImperfection.seed(for: b.entry.name, salt: salt), norm: norm, gain: gain)
                print(column(String(b.entry.name.prefix(39)), 40) + column(label, 11) + column(fixedDecimal(one.hours, 2), 7)
                    + column(drawn.label, 20) + column("", 12) + cells(one) + column("", 11) + cells(oneAfter))
            }
            guard files > 0 else { continue }
            print(column("  all \(files) " + (label == "automotive" ? "vehicle" : "still") + " files", 51) + column(fixedDecimal(before.hours, 2), 7)
                + column("", 20) + column("", 12) + cells(before) + column("", 11) + cells(after))
        }
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
