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
        var results: [FileResult] = []
        var engineSeconds = 0.0, classicSeconds = 0.0, loadSeconds = 0.0
        var totalSamples = 0
        let configuration = MotionConfiguration(userHeight: height)
        for entry in entries {
            let path = directory + "/" + entry.name
            let loadStart = Self.now()
            let samples: [AccelSample]
            do {
                samples = try RecordingReader.read(path: path)
            } catch {
                Self.printError("stepbench accuracy: \(error)")
                throw ExitCode(1)
            }
            loadSeconds += Self.now() - loadStart
            totalSamples += samples.count

            let engineStart = Self.now()
            let analysis = RecordingAnalysis.run(samples, configuration: configuration)
            engineSeconds += Self.now() - engineStart

            let classicStart = Self.now()
            var classic = ClassicPedometer()
            for sample in samples { classic.process(sample) }
            classicSeconds += Self.now() - classicStart

            let first = samples.first?.t ?? 0
            let last = samples.last?.t ?? 0
            var windows = 0, right = 0, automotive = 0
            var w = first
            while w + 10 <= last + 1e-9 {
                let called = analysis.activity(at: w + 5) ?? .unknown
                windows += 1
                if called.rawValue == entry.activity { right += 1 }
                if called == .automotive { automotive += 1 }
                w += 10
            }
            results.append(FileResult(
                entry: entry, duration: last - first, samples: samples.count, steps: analysis.steps,
                classic: classic.totalSteps, windows: windows, windowsRight: right, windowsAutomotive: automotive))
        }

        if !quiet { printFiles(results) }
        let ours = Score(results, estimate: \.steps)
        let reference = Score(results, estimate: \.classic)
        let activity = ActivityScore(results)
        print("")
        print(Self.pad("figure", 36) + Self.pad("MotionEngine", 14) + Self.pad("Classic", 14))
        func row(_ name: String, _ a: String, _ b: String) { print(Self.pad(name, 36) + Self.pad(a, 14) + Self.pad(b, 14)) }
        row("walking files", "\(ours.walkFiles)", "\(reference.walkFiles)")
        row("walking MAPE %", Self.fixed(ours.mape, 2), Self.fixed(reference.mape, 2))
        row("worst walking file %", Self.fixed(ours.worst, 1), Self.fixed(reference.worst, 1))
        row("summed walking error %", Self.fixed(ours.totalError, 2), Self.fixed(reference.totalError, 2))
        row("other files abs error (steps)", "\(ours.otherAbsError)", "\(reference.otherAbsError)")
        row("quiet hours", Self.fixed(ours.quietHours, 2), Self.fixed(reference.quietHours, 2))
        row("false steps per quiet hour", Self.fixed(ours.falsePerQuietHour, 1), Self.fixed(reference.falsePerQuietHour, 1))
        row("activity right, 10 s windows %", Self.fixed(activity.agreement, 1), "-")
        row("  walking windows right %", Self.fixed(activity.walkingRight, 1), "-")
        row("  automotive recall %", Self.fixed(activity.automotiveRecall, 1), "-")
        row("  stationary windows right %", Self.fixed(activity.stationaryRight, 1), "-")
        row("walking windows called automotive %", Self.fixed(activity.walkingAsAutomotive, 2), "-")
        row("throughput M samples/s (1 core)", Self.fixed(Double(totalSamples) / engineSeconds / 1e6, 1),
            Self.fixed(Double(totalSamples) / classicSeconds / 1e6, 1))
        print("")
        print("\(results.count) files, \(totalSamples) samples, loaded in \(Self.fixed(loadSeconds, 2)) s; mixed files are excluded from activity agreement")

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
        print(Self.pad("file", 46) + Self.pad("activity", 11) + Self.pad("true", 7) + Self.pad("ours", 7)
            + Self.pad("err%", 8) + Self.pad("classic", 8) + Self.pad("err%", 8) + "act.windows")
        for r in results {
            let t = r.entry.truth
            func err(_ e: Int) -> String { t > 0 ? Self.fixed(100 * Double(e - t) / Double(t), 1) : "\(e - t)" }
            print(Self.pad(String(r.entry.name.prefix(45)), 46) + Self.pad(r.entry.activity, 11) + Self.pad("\(t)", 7)
                + Self.pad("\(r.steps)", 7) + Self.pad(err(r.steps), 8) + Self.pad("\(r.classic)", 8)
                + Self.pad(err(r.classic), 8) + "\(r.windowsRight)/\(r.windows)")
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

    static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
    }

    static func fixed(_ value: Double, _ decimals: Int) -> String {
        guard value.isFinite else { return "-" }
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let scaled = Int64((abs(value) * scale).rounded())
        let sign = value < 0 && scaled != 0 ? "-" : ""
        let whole = scaled / Int64(scale)
        guard decimals > 0 else { return sign + "\(whole)" }
        let frac = String(scaled % Int64(scale))
        return sign + "\(whole)." + String(repeating: "0", count: decimals - frac.count) + frac
    }

    static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }

    static func printError(_ message: String) {
        var line = Array((message + "\n").utf8)
        _ = line.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
    }
}
