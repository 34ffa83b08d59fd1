import ArgumentParser
import Glibc
import POSIXLayer
import MotionCore
import Recordings
import StepJSON
import StepdModel
import ToolSupport

/// `stepbench accuracy DIR`: MotionEngine and the classic pedometer over a labelled directory,
/// scored like ../shared/tools/score_steps.py, plus activity agreement and throughput.
struct AccuracyBenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "accuracy",
        abstract: "Step accuracy, activity agreement and throughput over recordings with a manifest.json.")

    @Argument(help: "Directory with *.csv[.gz] recordings and manifest.json (steps, activity per file).")
    var directory: String

    @Option(help: "Also write name,true,estimate rows (MotionEngine) for tools/score_steps.py.")
    var csv: String?

    @Option(help: "User height in metres for the stride model.")
    var height: Double?

    @OptionGroup var classifier: ModelChoice

    @Flag(help: "Only print the totals, not one row per file.")
    var quiet = false

    @Flag(inversion: .prefixedNo, help: "Also measure bouts, tempo and holes on segments of the walking files.")
    var gait = true

    struct Entry {
        var name: String
        /// nil: the manifest has no step count (activity clips).
        var truth: Int?
        var activity: String
        /// The manifest's `placement` (`wrist`, or where a phone was carried); nil when absent.
        var placement: String? = nil
    }

    struct FileResult {
        var entry: Entry
        var duration: Double
        var samples: Int
        var steps: Int
        var classic: Int
        var windows: Int
        var windowsRight: Int
        var windowsAutomotive: Int
        /// Seconds called each `ActivityKind.allCases` kind.
        var secondsCalled: [Double]

        /// The scores of one recording's analysis (`classic`: the reference pedometer's count).
        init(entry: Entry, samples: [AccelSample], analysis: RecordingAnalysis, classic: Int) {
            let windows = ActivityWindows(analysis: analysis, samples: samples, label: entry.activity)
            self.entry = entry
            duration = (samples.last?.t ?? 0) - (samples.first?.t ?? 0)
            self.samples = samples.count
            steps = analysis.steps
            self.classic = classic
            self.windows = windows.windows
            windowsRight = windows.right
            windowsAutomotive = windows.automotive
            secondsCalled = AccuracyBenchCommand.secondsCalled(in: analysis)
        }
    }

    func run() throws {
        let entries = try Self.loadManifest(directory, tool: "stepbench accuracy")
        var results: [FileResult] = []
        var walks: [GaitBench.Walk] = []
        var delays: [CreditDelayBench.Walk] = []
        var daily: [String: [(name: String, samples: [AccelSample])]] = [:]
        var engineSeconds = 0.0, classicSeconds = 0.0, loadSeconds = 0.0
        var totalSamples = 0
        var configuration = MotionConfiguration(userHeight: height)
        let models = try classifier.load(tool: "stepbench accuracy")
        for entry in entries {
            guard let model = models.model(for: entry.name) else { continue }
            configuration.model = model
            let path = directory + "/" + entry.name
            let loadStart = monotonicNow()
            let samples: [AccelSample]
            do {
                samples = try RecordingReader.read(path: path)
            } catch {
                Self.printError("stepbench accuracy: \(error)")
                throw ExitCode(1)
            }
            loadSeconds += monotonicNow() - loadStart
            totalSamples += samples.count

            let engineStart = threadCPUNow()
            let analysis = RecordingAnalysis.run(samples, configuration: configuration)
            engineSeconds += threadCPUNow() - engineStart
            // The bouts/tempo segments run with the same model (under --folds: the walk's fold model).
            if gait, entry.activity == "walking", let truth = entry.truth, truth > 0 {
                walks.append(GaitBench.Walk(name: entry.name, samples: samples, truth: truth, configuration: configuration))
            }
            if gait, GaitBench.isPadding(entry.name, activity: entry.activity, truth: entry.truth) {
                daily[GaitBench.paddingKey(entry.name), default: []].append((entry.name, samples))
            }
            // Walking clips without a step count (../shared/data/activity) are measured too.
            if entry.activity == "walking", entry.truth != 0 {
                delays.append(CreditDelayBench.Walk(name: entry.name, placement: entry.placement, samples: samples, configuration: configuration))
            }

            let classicStart = threadCPUNow()
            var classic = ClassicPedometer()
            for sample in samples { classic.process(sample) }
            classicSeconds += threadCPUNow() - classicStart

            results.append(FileResult(entry: entry, samples: samples, analysis: analysis, classic: classic.totalSteps))
        }

        if !quiet {
            printFiles(results)
            printFalseSteps(results)
        }
        if let folds = classifier.folds {
            print("\ncross-validated: each file counted with the fold model that held it out (\(folds)); \(results.count) of \(entries.count) files in a fold")
        }
        let ours = Score(results, estimate: \.steps)
        let reference = Score(results, estimate: \.classic)
        let activity = ActivityScore(results)
        print("")
        print(column("figure", 36) + column("MotionEngine", 14) + column("Classic", 14))
        func row(_ name: String, _ a: String, _ b: String) { print(column(name, 36) + column(a, 14) + column(b, 14)) }
        row("walking files", "\(ours.walkFiles)", "\(reference.walkFiles)")
        row("walking MAPE %", fixedDecimal(ours.mape, 2), fixedDecimal(reference.mape, 2))
        row("worst walking file %", fixedDecimal(ours.worst, 1), fixedDecimal(reference.worst, 1))
        row("summed walking error %", fixedDecimal(ours.totalError, 2), fixedDecimal(reference.totalError, 2))
        row("other files abs error (steps)", "\(ours.otherAbsError)", "\(reference.otherAbsError)")
        row("quiet hours", fixedDecimal(ours.quietHours, 2), fixedDecimal(reference.quietHours, 2))
        row("false steps per quiet hour", fixedDecimal(ours.falsePerQuietHour, 1), fixedDecimal(reference.falsePerQuietHour, 1))
        row("  still/driving hours", fixedDecimal(ours.stillHours, 2), fixedDecimal(reference.stillHours, 2))
        row("  false steps per still/driving hour", fixedDecimal(ours.falsePerStillHour, 1), fixedDecimal(reference.falsePerStillHour, 1))
        row("  daily-life (mixed) hours", fixedDecimal(ours.dailyHours, 2), fixedDecimal(reference.dailyHours, 2))
        row("  false steps per daily-life hour", fixedDecimal(ours.falsePerDailyHour, 1), fixedDecimal(reference.falsePerDailyHour, 1))
        row("activity right, 10 s windows %", fixedDecimal(activity.agreement, 1), "-")
        row("  walking windows right %", fixedDecimal(activity.walkingRight, 1), "-")
        row("  automotive recall %", fixedDecimal(activity.automotiveRecall, 1), "-")
        row("  stationary windows right %", fixedDecimal(activity.stationaryRight, 1), "-")
        row("walking windows called automotive %", fixedDecimal(activity.walkingAsAutomotive, 2), "-")
        row("throughput M samples/s (1 core CPU)", fixedDecimal(Double(totalSamples) / engineSeconds / 1e6, 1),
            fixedDecimal(Double(totalSamples) / classicSeconds / 1e6, 1))
        printActivityTable(results)
        GaitBench.printTable(walks, daily: daily.mapValues { $0.sorted { $0.name < $1.name } }, details: !quiet)
        CreditDelayBench.printTable(delays, details: !quiet)
        print("")
        print("\(results.count) files, \(totalSamples) samples, loaded in \(fixedDecimal(loadSeconds, 2)) s; mixed files are excluded from activity agreement")

        if let csv {
            var text = "name,true,estimate\n"
            for r in results { text += "\(r.entry.name),\(r.entry.truth.map { "\($0)" } ?? ""),\(r.steps)\n" }
            do throws(FileSystemError) {
                try FileSystem.writeFileDurably(csv, Array(text.utf8))
            } catch {
                Self.printError("stepbench accuracy: cannot write \(csv): \(Errno(error.errno))")
                throw ExitCode(1)
            }
        }
    }

    /// Per labelled class: the share of its time called each kind (a confusion matrix over time).
    func printActivityTable(_ results: [FileResult]) {
        let kinds = ActivityKind.allCases
        print("")
        print("activity: share of each labelled class's time called each kind (%); mixed = daily life, expected unknown")
        print(column("label \\ called", 14) + column("hours", 7) + kinds.map { column($0.rawValue, 11) }.joined())
        for label in ["stationary", "walking", "running", "cycling", "automotive", "mixed"] {
            let seconds = Self.secondsCalled(results) { $0 == label }
            let total = seconds.reduce(0, +)
            guard total > 0 else { continue }
            print(column(label, 14) + column(fixedDecimal(total / 3600, 2), 7)
                + seconds.map { column(fixedDecimal(100 * $0 / total, 1), 11) }.joined())
        }
        let nonVehicle = Self.secondsCalled(results) { $0 != "automotive" }
        if let automotive = Self.share(nonVehicle, .automotive) {
            print("non-vehicle time called automotive: \(fixedDecimal(automotive, 2)) %")
        }
    }

    /// Seconds of one analysis called each `ActivityKind.allCases` kind.
    static func secondsCalled(in analysis: RecordingAnalysis) -> [Double] {
        var called = [Double](repeating: 0, count: ActivityKind.allCases.count)
        for segment in analysis.activities {
            if let k = ActivityKind.allCases.firstIndex(of: segment.kind) { called[k] += segment.end - segment.start }
        }
        return called
    }

    /// Seconds of the files whose label passes `labelled` called each `ActivityKind.allCases` kind.
    static func secondsCalled(_ results: [FileResult], labelled: (String) -> Bool) -> [Double] {
        var seconds = [Double](repeating: 0, count: ActivityKind.allCases.count)
        for r in results where labelled(r.entry.activity) {
            for k in seconds.indices { seconds[k] += r.secondsCalled[k] }
        }
        return seconds
    }

    /// The percentage of `seconds` (from `secondsCalled`) called `kind`; nil when there is no time.
    static func share(_ seconds: [Double], _ kind: ActivityKind) -> Double? {
        let total = seconds.reduce(0, +)
        guard total > 0, let k = ActivityKind.allCases.firstIndex(of: kind) else { return nil }
        return 100 * seconds[k] / total
    }

    func printFiles(_ results: [FileResult]) {
        print(column("file", 46) + column("activity", 11) + column("true", 7) + column("ours", 7)
            + column("err%", 8) + column("classic", 8) + column("err%", 8) + "act.windows")
        for r in results {
            let t = r.entry.truth ?? 0
            func err(_ e: Int) -> String {
                guard r.entry.truth != nil else { return "-" }
                return t > 0 ? fixedDecimal(100 * Double(e - t) / Double(t), 1) : "\(e - t)"
            }
            print(column(String(r.entry.name.prefix(45)), 46) + column(r.entry.activity, 11) + column(r.entry.truth.map { "\($0)" } ?? "-", 7)
                + column("\(r.steps)", 7) + column(err(r.steps), 8) + column("\(r.classic)", 8)
                + column(err(r.classic), 8) + "\(r.windowsRight)/\(r.windows)")
        }
    }

    /// Where the false steps of the quiet files (tools/score_steps.py's rule: fewer true steps than
    /// 5 % of the seconds) come from, worst first.
    func printFalseSteps(_ results: [FileResult]) {
        let quiet = results.filter { r in
            guard let truth = r.entry.truth else { return false }
            return Score.isQuiet(r, truth: truth)
        }.sorted { ($0.steps - ($0.entry.truth ?? 0)) > ($1.steps - ($1.entry.truth ?? 0)) }
        print("")
        print("false steps in the quiet files (score_steps.py: true steps < 5 % of the seconds), worst first")
        print(column("file", 46) + column("activity", 11) + column("hours", 7) + column("true", 6) + column("ours", 6)
            + column("false", 7) + column("per hour", 9) + "classic")
        for r in quiet {
            let extra = max(0, r.steps - (r.entry.truth ?? 0))
            print(column(String(r.entry.name.prefix(45)), 46) + column(r.entry.activity, 11)
                + column(fixedDecimal(r.duration / 3600, 2), 7) + column(r.entry.truth.map { "\($0)" } ?? "-", 6)
                + column("\(r.steps)", 6) + column("\(extra)", 7)
                + column(fixedDecimal(r.duration > 0 ? Double(extra) * 3600 / r.duration : 0, 1), 9) + "\(r.classic)")
        }
    }

    /// The figures of tools/score_steps.py, computed the same way, and its false steps split
    /// into still/driving files (stationary, automotive) and daily life (mixed).
    struct Score {
        var walkFiles = 0, mape = 0.0, worst = 0.0, totalError = 0.0
        var otherAbsError = 0, quietHours = 0.0, falsePerQuietHour = 0.0
        var stillHours = 0.0, falsePerStillHour = 0.0, dailyHours = 0.0, falsePerDailyHour = 0.0

        static func isQuiet(_ r: FileResult, truth: Int) -> Bool {
            !(r.entry.activity == "walking" && truth > 0) && Double(truth) < 0.05 * r.duration
        }

        init(_ results: [FileResult], estimate: KeyPath<FileResult, Int>) {
            var errors: [Double] = []
            var sumTrue = 0, sumEstimate = 0, quietFalse = 0, stillFalse = 0, dailyFalse = 0
            for r in results {
                guard let truth = r.entry.truth else { continue }
                let est = r[keyPath: estimate]
                if r.entry.activity == "walking" && truth > 0 {
                    errors.append(Double(abs(est - truth)) / Double(truth))
                    sumTrue += truth
                    sumEstimate += est
                } else {
                    otherAbsError += abs(est - truth)
                    if Self.isQuiet(r, truth: truth) {
                        quietFalse += max(0, est - truth)
                        quietHours += r.duration / 3600
                        if r.entry.activity == "mixed" {
                            dailyFalse += max(0, est - truth)
                            dailyHours += r.duration / 3600
                        } else {
                            stillFalse += max(0, est - truth)
                            stillHours += r.duration / 3600
                        }
                    }
                }
            }
            walkFiles = errors.count
            if !errors.isEmpty {
                mape = 100 * errors.reduce(0, +) / Double(errors.count)
                worst = 100 * (errors.max() ?? 0)
                totalError = 100 * Double(sumEstimate - sumTrue) / Double(sumTrue)
            }
            if quietHours > 0 { falsePerQuietHour = Double(quietFalse) / quietHours }
            if stillHours > 0 { falsePerStillHour = Double(stillFalse) / stillHours }
            if dailyHours > 0 { falsePerDailyHour = Double(dailyFalse) / dailyHours }
        }
    }

    struct ActivityScore {

        var agreement = 0.0, walkingRight = 0.0, automotiveRecall = 0.0, stationaryRight = 0.0, walkingAsAutomotive = 0.0

        init(_ results: [FileResult]) {
            func ratio(_ label: String?, _ value: (FileResult) -> Int) -> Double {
                let chosen = results.filter { label == nil ? ["walking", "automotive", "stationary"].contains($0.entry.activity) : $0.entry.activity == label }
                let total = chosen.reduce(0) { $0 + $1.windows }
                return total == 0 ? 0 : 100 * Double(chosen.reduce(0) { $0 + value($1) }) / Double(total)
            }
            agreement = ratio(nil) { $0.windowsRight }
            walkingRight = ratio("walking") { $0.windowsRight }
            automotiveRecall = ratio("automotive") { $0.windowsRight }
            stationaryRight = ratio("stationary") { $0.windowsRight }
            walkingAsAutomotive = ratio("walking") { $0.windowsAutomotive }
        }
    }

    /// A model file written by the trainer (a fold model), as `MotionModel(json:)` reads it.
    /// A model file (`--model`, or one a `--folds` index names). Every error names the file
    /// once: a read error does already, so callers print it as it is (`--folds` and `--model`
    /// printed "x.json: x.json: cannot open").
    static func readModel(path: String) throws(ModelFileError) -> MotionModel {
        let bytes = try readFile(path)
        do {
            return try MotionModel(json: try JSONParser.parse(bytes, limits: JSONLimits(maxBytes: 64 << 20)))
        } catch {
            throw ModelFileError(description: "\(path): \(error)")
        }
    }

    /// The bytes of a model or index file; the error names it (as `RecordingError` does).
    static func readFile(_ path: String) throws(ModelFileError) -> [UInt8] {
        do {
            return try RecordingReader.readAllBytes(path: path)
        } catch {
            throw ModelFileError(description: "\(error)")
        }
    }

    /// A fold model written by the trainer (`--model`); `tool` prefixes the error message.
    static func loadModel(_ path: String, tool: String) throws -> MotionModel {
        do {
            return try readModel(path: path)
        } catch {
            printError("\(tool): \(error)")
            throw ExitCode(1)
        }
    }

    /// The fold model of each recording named in the `--folds` index `folds`.
    static func loadFolds(_ folds: String, tool: String) throws -> [String: MotionModel] {
        let index = try loadFoldIndex(folds, tool: tool)
        return index.fileOf.compactMapValues { index.models[$0] }
    }

    /// The `--folds` index `folds`: every fold model it names (by file) and each recording's file.
    static func loadFoldIndex(_ folds: String, tool: String) throws -> (models: [String: MotionModel], fileOf: [String: String]) {
        do {
            return try readFoldIndex(folds)
        } catch {
            printError("\(tool): \(error)")
            throw ExitCode(1)
        }
    }

    /// `loadFoldIndex` without the printing; each error names the file it is about once.
    static func readFoldIndex(_ folds: String) throws(ModelFileError) -> (models: [String: MotionModel], fileOf: [String: String]) {
        let folder = folds.contains("/") ? String(folds[..<(folds.lastIndex(of: "/") ?? folds.endIndex)]) : "."
        let bytes = try readFile(folds)
        let index: JSONValue
        do {
            index = try JSONParser.parse(bytes, limits: JSONLimits(maxBytes: 16 << 20))
        } catch {
            throw ModelFileError(description: "\(folds): \(error)")
        }
        guard let object = index.objectValue else {
            throw ModelFileError(description: "\(folds): expected an object mapping recording names to fold model files")
        }
        var models: [String: MotionModel] = [:]
        var fileOf: [String: String] = [:]
        for name in object.keys {
            guard let file = object[name]?.stringValue else {
                throw ModelFileError(description: "\(folds): '\(name)' needs a fold model file name (a string)")
            }
            if models[file] == nil { models[file] = try readModel(path: folder + "/" + file) }
            fileOf[name] = file
        }
        return (models, fileOf)
    }

    /// A model or `--folds` index file that cannot be used; the text names the file once.
    struct ModelFileError: Error, CustomStringConvertible {
        var description: String
    }

    /// The entries of `directory/manifest.json`, sorted by file name.
    static func loadManifest(_ directory: String, tool: String) throws -> [Entry] {
        let path = directory + "/manifest.json"
        let bytes: [UInt8]
        do {
            bytes = try RecordingReader.readAllBytes(path: path)
        } catch {
            printError("\(tool): \(error)")
            throw ExitCode(1)
        }
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes, limits: JSONLimits(maxBytes: 16 << 20))
        } catch {
            printError("\(tool): \(path): not valid JSON: \(error)")
            throw ExitCode(1)
        }
        guard let object = value.objectValue else {
            printError("\(tool): \(path): expected an object mapping file names to {steps, activity}")
            throw ExitCode(1)
        }
        var entries: [Entry] = []
        for name in object.keys.sorted() {
            guard let item = object[name]?.objectValue, let activity = item["activity"]?.stringValue,
                let stepsValue = item["steps"], stepsValue == .null || stepsValue.intValue != nil
            else {
                printError("\(tool): \(path): entry '\(name)' needs 'steps' (an integer or null) and a string 'activity'")
                throw ExitCode(1)
            }
            let steps = stepsValue.intValue
            entries.append(Entry(name: name, truth: steps, activity: activity, placement: item["placement"]?.stringValue))
        }
        return entries
    }

    static func printError(_ message: String) {
        try? FileDescriptor(borrowing: STDERR_FILENO).writeAll(Array((message + "\n").utf8))
    }

    /// Makes a `--write` directory (and its parents) before the first file goes in, or exits 1
    /// naming it.
    static func makeOutputDirectory(_ directory: String, tool: String) throws {
        do throws(FileSystemError) {
            try FileSystem.makeDirectories(directory)
        } catch {
            printError("\(tool): cannot create \(directory): \(Errno(error.errno))")
            throw ExitCode(1)
        }
    }
}

/// `--model` and `--folds` of `stepbench accuracy` and `stepbench robustness`: which classifier
/// counts each recording.
struct ModelChoice: ParsableArguments {
    @Option(help: "A fold model (JSON, written by scripts/train_motion_model.py) instead of the generated classifier.")
    var model: String?

    @Option(help: ArgumentHelp(
        "Cross-validated: an index written by `scripts/train_motion_model.py --keep-folds DIR` (DIR/leave-one-person-out.json, DIR/leave-one-source-out.json, or DIR/leave-one-activity-out.json: each daily-life, still or driving activity held out, walks in no fold) mapping each recording to the fold model that held it out; each file is counted with its fold's model, files in no fold are skipped (in `accuracy` the bouts/tempo/hole segments of a walk run with its fold's model too).",
        valueName: "index"))
    var folds: String?

    /// The models chosen, loaded.
    struct Models {
        var base: MotionModel
        var byRecording: [String: MotionModel]?

        /// The model that counts the recording `name`; nil when `--folds` has no fold for it.
        func model(for name: String) -> MotionModel? {
            guard let byRecording else { return base }
            return byRecording[name]
        }
    }

    /// Loads `--model` and `--folds`; `tool` prefixes the error messages.
    func load(tool: String) throws -> Models {
        Models(base: try model.map { try AccuracyBenchCommand.loadModel($0, tool: tool) } ?? .generated,
               byRecording: try folds.map { try AccuracyBenchCommand.loadFolds($0, tool: tool) })
    }
}

/// Activity windows of one file under one set of classifier thresholds.
struct ActivityWindows {
    var windows = 0, right = 0, automotive = 0

    init(analysis: RecordingAnalysis, samples: [AccelSample], label: String) {
        let first = samples.first?.t ?? 0
        let last = samples.last?.t ?? 0
        var w = first
        while w + 10 <= last + 1e-9 {
            let called = analysis.activity(at: w + 5) ?? .unknown
            windows += 1
            if called.rawValue == label { right += 1 }
            if called == .automotive { automotive += 1 }
            w += 10
        }
    }
}
