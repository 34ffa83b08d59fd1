import ArgumentParser
import Glibc
import MotionCore
import Recordings
import StepJSON
import StepdModel

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

    @Flag(help: "Only print the totals, not one row per file.")
    var quiet = false

    @Flag(help: "Instead: cross-validate the activity classifier's thresholds (leave one person out, leave one file out) and measure the vibration level of gait (running threshold).")
    var crossValidateActivity = false

    struct Entry {
        var name: String
        var truth: Int
        var activity: String
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
    }

    func run() throws {
        let entries = try loadManifest()
        if crossValidateActivity {
            try ActivityCrossValidation(directory: directory, entries: entries, height: height).run()
            return
        }
        var results: [FileResult] = []
        var engineSeconds = 0.0, classicSeconds = 0.0, loadSeconds = 0.0
        var totalSamples = 0
        let configuration = MotionConfiguration(userHeight: height)
        for entry in entries {
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

            let engineStart = monotonicNow()
            let analysis = RecordingAnalysis.run(samples, configuration: configuration)
            engineSeconds += monotonicNow() - engineStart

            let classicStart = monotonicNow()
            var classic = ClassicPedometer()
            for sample in samples { classic.process(sample) }
            classicSeconds += monotonicNow() - classicStart

            let windows = ActivityWindows(analysis: analysis, samples: samples, label: entry.activity)
            let duration = (samples.last?.t ?? 0) - (samples.first?.t ?? 0)
            results.append(FileResult(
                entry: entry, duration: duration, samples: samples.count, steps: analysis.steps,
                classic: classic.totalSteps, windows: windows.windows, windowsRight: windows.right,
                windowsAutomotive: windows.automotive))
        }

        if !quiet { printFiles(results) }
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
        row("activity right, 10 s windows %", fixedDecimal(activity.agreement, 1), "-")
        row("  walking windows right %", fixedDecimal(activity.walkingRight, 1), "-")
        row("  automotive recall %", fixedDecimal(activity.automotiveRecall, 1), "-")
        row("  stationary windows right %", fixedDecimal(activity.stationaryRight, 1), "-")
        row("walking windows called automotive %", fixedDecimal(activity.walkingAsAutomotive, 2), "-")
        row("throughput M samples/s (1 core)", fixedDecimal(Double(totalSamples) / engineSeconds / 1e6, 1),
            fixedDecimal(Double(totalSamples) / classicSeconds / 1e6, 1))
        print("")
        print("\(results.count) files, \(totalSamples) samples, loaded in \(fixedDecimal(loadSeconds, 2)) s; mixed files are excluded from activity agreement")

        if let csv {
            var text = "name,true,estimate\n"
            for r in results { text += "\(r.entry.name),\(r.entry.truth),\(r.steps)\n" }
            guard let file = fopen(csv, "w") else {
                Self.printError("stepbench accuracy: cannot write \(csv): \(String(cString: strerror(errno)))")
                throw ExitCode(1)
            }
            fputs(text, file)
            fclose(file)
        }
    }

    func printFiles(_ results: [FileResult]) {
        print(column("file", 46) + column("activity", 11) + column("true", 7) + column("ours", 7)
            + column("err%", 8) + column("classic", 8) + column("err%", 8) + "act.windows")
        for r in results {
            let t = r.entry.truth
            func err(_ e: Int) -> String { t > 0 ? fixedDecimal(100 * Double(e - t) / Double(t), 1) : "\(e - t)" }
            print(column(String(r.entry.name.prefix(45)), 46) + column(r.entry.activity, 11) + column("\(t)", 7)
                + column("\(r.steps)", 7) + column(err(r.steps), 8) + column("\(r.classic)", 8)
                + column(err(r.classic), 8) + "\(r.windowsRight)/\(r.windows)")
        }
    }

    /// The figures of tools/score_steps.py, computed the same way.
    struct Score {
        var walkFiles = 0, mape = 0.0, worst = 0.0, totalError = 0.0
        var otherAbsError = 0, quietHours = 0.0, falsePerQuietHour = 0.0

        init(_ results: [FileResult], estimate: KeyPath<FileResult, Int>) {
            var errors: [Double] = []
            var sumTrue = 0, sumEstimate = 0, quietFalse = 0
            for r in results {
                let truth = r.entry.truth, est = r[keyPath: estimate]
                if r.entry.activity == "walking" && truth > 0 {
                    errors.append(Double(abs(est - truth)) / Double(truth))
                    sumTrue += truth
                    sumEstimate += est
                } else {
                    otherAbsError += abs(est - truth)
                    if Double(truth) < 0.05 * r.duration {
                        quietFalse += max(0, est - truth)
                        quietHours += r.duration / 3600
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

    func loadManifest() throws -> [Entry] {
        let path = directory + "/manifest.json"
        let bytes: [UInt8]
        do {
            bytes = try RecordingReader.readAllBytes(path: path)
        } catch {
            Self.printError("stepbench accuracy: \(error)")
            throw ExitCode(1)
        }
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes, limits: JSONLimits(maxBytes: 16 << 20))
        } catch {
            Self.printError("stepbench accuracy: \(path): not valid JSON: \(error)")
            throw ExitCode(1)
        }
        guard let object = value.objectValue else {
            Self.printError("stepbench accuracy: \(path): expected an object mapping file names to {steps, activity}")
            throw ExitCode(1)
        }
        var entries: [Entry] = []
        for name in object.keys.sorted() {
            guard let item = object[name]?.objectValue, let steps = item["steps"]?.intValue,
                let activity = item["activity"]?.stringValue
            else {
                Self.printError("stepbench accuracy: \(path): entry '\(name)' needs an integer 'steps' and a string 'activity'")
                throw ExitCode(1)
            }
            entries.append(Entry(name: name, truth: steps, activity: activity))
        }
        return entries
    }

    static func printError(_ message: String) {
        var line = Array((message + "\n").utf8)
        _ = line.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
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

/// `stepbench accuracy DIR --cross-validate-activity`: the classifier thresholds chosen on some
/// people (or files) and scored on the rest, so the activity figures are not in-sample.
struct ActivityCrossValidation {
    let directory: String
    let entries: [AccuracyBenchCommand.Entry]
    let height: Double?

    static let labels: Set<String> = ["walking", "automotive", "stationary"]

    static func person(_ name: String) -> String {
        if name.hasPrefix("bangle") { return "hughb" }
        let parts = name.split(separator: "_")
        return parts.count > 1 ? String(parts[1]) : name
    }

    /// Candidate thresholds; the hand-set values are one of the points.
    static let grid: [ActivityParameters] = {
        var points: [ActivityParameters] = []
        let f = ActivityParameters.fitted
        for still in [0.005, 0.006, 0.008, 0.010] {
            for vehicle in [0.010, 0.012, 0.015, 0.020, 0.025] where vehicle >= still {
                for vehicleMax in [0.08, 0.12, 0.16, 0.25] {
                    points.append(ActivityParameters(
                        stillLevel: still, vehicleLevel: vehicle, vehicleMaxLevel: vehicleMax,
                        runningCadence: f.runningCadence, runningLevel: f.runningLevel))
                }
            }
        }
        return points
    }()

    /// Distance to the hand-set point, to break ties towards it.
    static func distance(_ p: ActivityParameters) -> Double {
        let f = ActivityParameters.fitted
        return abs(log(p.stillLevel / f.stillLevel)) + abs(log(p.vehicleLevel / f.vehicleLevel)) + abs(log(p.vehicleMaxLevel / f.vehicleMaxLevel))
    }

    struct Tally {
        var windows = 0, right = 0, walking = 0, walkingRight = 0, walkingAutomotive = 0
        var automotive = 0, automotiveRight = 0, stationary = 0, stationaryRight = 0

        mutating func add(_ w: ActivityWindows, label: String) {
            windows += w.windows
            right += w.right
            switch label {
            case "walking":
                walking += w.windows
                walkingRight += w.right
                walkingAutomotive += w.automotive
            case "automotive":
                automotive += w.windows
                automotiveRight += w.right
            default:
                stationary += w.windows
                stationaryRight += w.right
            }
        }

        static func percent(_ a: Int, _ b: Int) -> Double { b == 0 ? .nan : 100 * Double(a) / Double(b) }
        var agreement: Double { Self.percent(right, windows) }
        /// Mean of the per-class accuracies, so the few automotive windows are not drowned by walking.
        var objective: Double {
            let parts = [Self.percent(walkingRight, walking), Self.percent(automotiveRight, automotive),
                         Self.percent(stationaryRight, stationary)].filter { $0.isFinite }
            let penalty = walking == 0 ? 0 : max(0, Self.percent(walkingAutomotive, walking) - 2) * 10
            return (parts.isEmpty ? 0 : parts.reduce(0, +) / Double(parts.count)) - penalty
        }
    }

    func run() throws {
        let chosen = entries.filter { Self.labels.contains($0.activity) }
        var recordings: [(entry: AccuracyBenchCommand.Entry, samples: [AccelSample])] = []
        for entry in chosen {
            do {
                recordings.append((entry, try RecordingReader.read(path: directory + "/" + entry.name)))
            } catch {
                AccuracyBenchCommand.printError("stepbench accuracy: \(error)")
                throw ExitCode(1)
            }
        }
        // windows[g][f]: file f under grid point g.
        var windows: [[ActivityWindows]] = []
        for point in Self.grid {
            let configuration = MotionConfiguration(userHeight: height, activity: point)
            windows.append(recordings.map {
                ActivityWindows(analysis: RecordingAnalysis.run($0.samples, configuration: configuration), samples: $0.samples, label: $0.entry.activity)
            })
        }
        func tally(_ g: Int, _ files: [Int]) -> Tally {
            var t = Tally()
            for f in files { t.add(windows[g][f], label: recordings[f].entry.activity) }
            return t
        }
        func best(on files: [Int]) -> Int {
            var bestIndex = 0
            for g in Self.grid.indices {
                let a = tally(g, files).objective, b = tally(bestIndex, files).objective
                if a > b + 1e-9 || (abs(a - b) <= 1e-9 && Self.distance(Self.grid[g]) < Self.distance(Self.grid[bestIndex])) { bestIndex = g }
            }
            return bestIndex
        }
        func describe(_ p: ActivityParameters) -> String {
            "still < \(p.stillLevel), vehicle \(p.vehicleLevel)-\(p.vehicleMaxLevel)"
        }
        let all = Array(recordings.indices)
        let fittedIndex = Self.grid.firstIndex(of: .fitted)
        let inSample = best(on: all)
        print("grid: \(Self.grid.count) threshold sets; \(recordings.count) walking/automotive/stationary files")
        print("in-sample best: " + describe(Self.grid[inSample]))

        var rows: [(String, Tally)] = []
        if let fittedIndex { rows.append(("shipped thresholds (in-sample)", tally(fittedIndex, all))) }
        rows.append(("best grid point (in-sample)", tally(inSample, all)))
        for (label, key) in [("leave-one-person-out", { (i: Int) in Self.person(recordings[i].entry.name) }),
                             ("leave-one-file-out", { (i: Int) in recordings[i].entry.name })] {
            var held = Tally()
            for group in Set(all.map(key)).sorted() {
                let test = all.filter { key($0) == group }
                let train = all.filter { key($0) != group }
                let g = best(on: train)
                for f in test { held.add(windows[g][f], label: recordings[f].entry.activity) }
                if label == "leave-one-person-out" { print("  fold person=\(group): chose \(describe(Self.grid[g]))") }
            }
            rows.append((label, held))
        }
        print("")
        func fx(_ v: Double) -> String { fixedDecimal(v, 1) }
        print(column("protocol", 34) + column("right %", 9) + column("walk %", 9) + column("auto rec %", 12) + column("still %", 9) + "walk->auto %")
        for (name, t) in rows {
            print(column(name, 34) + column(fx(t.agreement), 9) + column(fx(Tally.percent(t.walkingRight, t.walking)), 9)
                + column(fx(Tally.percent(t.automotiveRight, t.automotive)), 12) + column(fx(Tally.percent(t.stationaryRight, t.stationary)), 9)
                + fixedDecimal(Tally.percent(t.walkingAutomotive, t.walking), 2))
        }
        try measureGaitLevel(recordings.filter { $0.entry.activity == "walking" }.map(\.samples))
    }

    /// The vibration level while the gate reports gait, once per second: what the running
    /// threshold must stay above for walkers (and what running must exceed).
    func measureGaitLevel(_ walks: [[AccelSample]]) throws {
        var levels: [Double] = []
        var fastLevels: [Double] = []
        let parameters = ActivityParameters.fitted
        for samples in walks {
            var engine = MotionEngine(configuration: MotionConfiguration(userHeight: height))
            var nextSecond = samples.first?.t ?? 0
            for sample in samples {
                _ = engine.process(sample)
                if sample.t >= nextSecond {
                    nextSecond += 1
                    if let cadence = engine.cadence {
                        levels.append(engine.vibrationLevel)
                        if cadence >= parameters.runningCadence { fastLevels.append(engine.vibrationLevel) }
                    }
                }
            }
            _ = engine.finish()
        }
        levels.sort()
        func q(_ p: Double) -> String {
            levels.isEmpty ? "-" : fixedDecimal(levels[min(levels.count - 1, Int(p * Double(levels.count)))], 3)
        }
        print("")
        print("gait vibration level on walking files (g, once per second in a run, \(levels.count) s):")
        print("  p50 \(q(0.5))  p90 \(q(0.9))  p99 \(q(0.99))  max \(q(1.0))")
        let overRunning = levels.filter { $0 > parameters.runningLevel }.count
        print("  seconds above the running level \(parameters.runningLevel) g: \(overRunning); at cadence >= \(parameters.runningCadence) /s: \(fastLevels.count) s, of which above the level: \(fastLevels.filter { $0 > parameters.runningLevel }.count)")
    }
}
