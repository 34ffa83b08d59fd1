import ArgumentParser
import MotionCore
import POSIXLayer
import Recordings
import StepdModel
import ToolSupport

/// `stepbench daily-life`: false steps and activity states on three-axis wrist daily life
/// synthesised from kinematics (`DailyLifeSynthesis`, in ToolSupport), which the development set
/// barely has, or (`--magnitude-only`) the same movements seen by a magnitude-only watch like the
/// `rieck-*` Sensor Watch (x = |a|, y = z = 0, 12.5 or 25 Hz). Every instance runs through `RecordingAnalysis` exactly as `stepbench accuracy`
/// runs a recording. A proxy, not a measurement: see docs/motion.md ("Synthetic daily life").
struct DailyLifeBenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "daily-life",
        abstract: "False steps and activity states on synthetic three-axis wrist daily life (brushing, combing, eating, dishes, typing, ...).")

    @OptionGroup var classifier: ModelChoice

    @Option(help: "Instances per activity (each 120-300 s, its own tempo, amplitude, posture, orientation and sensor).")
    var instances = 12

    @Option(help: "Seed of the draws; an instance's draw depends on the seed, its activity and its number only.")
    var seed: UInt64 = 1

    @Option(help: "Only the activities whose name contains this text (repeatable).")
    var only: [String] = []

    @Option(help: "Also write every instance to this directory as ACTIVITY-N.csv.gz with a manifest.json (for stepctl analyze / features, stepbench accuracy).")
    var write: String?

    @Flag(help: "Also list the instances with the most false steps.")
    var files = false

    @Flag(help: "Render every instance as a magnitude-only watch like the rieck Sensor Watch (x = |a| by the L2 or L1 norm with a gain of 1.2-1.4, y = z = 0, 12.5 or 25 Hz) instead of the drawn three-axis sensor; the same movements, drawn per instance.")
    var magnitudeOnly = false

    struct Run {
        var instance: Int
        var activity: DailyActivity
        var sensor: WristSensor
        var seconds: Double
        var trueSteps: Int
        var steps: Int
        /// Seconds called each `ActivityKind.allCases` kind.
        var called: [Double]
        var model: String
        /// The control walk's emissions (`CreditDelayBench`); nil for daily life.
        var credit: CreditLog?

        var falseSteps: Int { activity.isDailyLife ? steps : 0 }
    }

    func run() throws {
        let tool = "stepbench daily-life"
        let activities = DailyActivity.allCases.filter { a in only.isEmpty || only.contains { a.rawValue.contains($0) } }
        guard instances > 0, !activities.isEmpty else {
            AccuracyBenchCommand.printError("\(tool): nothing to run (--instances must be positive, --only must match an activity)")
            throw ExitCode(1)
        }
        // Every distinct model: with --folds each fold model of the index (the synthetic
        // instances are in no fold: none of these models saw them, each saw other people, sources
        // or activities), else the generated or --model one.
        var models: [(name: String, model: MotionModel)]
        if let folds = classifier.folds {
            let index = try AccuracyBenchCommand.loadFoldIndex(folds, tool: tool)
            models = index.models.keys.sorted().compactMap { name in index.models[name].map { (name, $0) } }
        } else {
            models = [(classifier.model ?? "generated", try classifier.load(tool: tool).base)]
        }
        let start = monotonicNow()
        var runs: [Run] = []
        var samples = 0
        var manifest: [String] = []
        if let write { try AccuracyBenchCommand.makeOutputDirectory(write, tool: tool) }
        for activity in activities {
            for i in 0..<instances {
                let name = activity.rawValue + "#\(i)"
                let instanceSeed = SensorImperfection.seed(for: name, salt: seed)
                // The magnitude watch is drawn from its own stream, so the movement (and every
                // other draw of the instance) is the three-axis rendering's.
                var watchDraw = SplitMix64(seed: SensorImperfection.seed(for: name + " |a|", salt: seed))
                let synthetic = DailyLifeSynthesis.instance(activity, seed: instanceSeed,
                                                            sensor: magnitudeOnly ? WristSensor.magnitudeWatch(&watchDraw) : nil)
                if let write { try Self.write(synthetic, name: name, to: write, manifest: &manifest, tool: tool) }
                for (modelName, model) in models {
                    var configuration = MotionConfiguration()
                    configuration.model = model
                    let analysis = RecordingAnalysis.run(synthetic.samples, configuration: configuration)
                    samples += synthetic.samples.count
                    runs.append(Run(instance: i, activity: activity, sensor: synthetic.sensor, seconds: synthetic.seconds,
                                    trueSteps: synthetic.trueSteps, steps: analysis.steps,
                                    called: AccuracyBenchCommand.secondsCalled(in: analysis), model: modelName,
                                    credit: activity.isDailyLife ? nil : CreditLog.run(synthetic.samples, configuration: configuration)))
                }
            }
        }
        if let write {
            let text = "{\n" + manifest.joined(separator: ",\n") + "\n}\n"
            do throws(FileSystemError) {
                try FileSystem.writeFileDurably(write + "/manifest.json", Array(text.utf8))
            } catch {
                AccuracyBenchCommand.printError("\(tool): cannot write \(write)/manifest.json: \(Errno(error.errno))")
                throw ExitCode(1)
            }
        }
        let seconds = monotonicNow() - start
        printTable(runs, activities: activities, models: models.map(\.name))
        if files { printWorst(runs) }
        print("")
        print("\(activities.count) activities x \(instances) instances x \(models.count) model(s), \(samples) samples through the engine, \(fixedDecimal(seconds, 1)) s with the synthesis")
    }

    func printTable(_ runs: [Run], activities: [DailyActivity], models: [String]) {
        if let folds = classifier.folds {
            print("each instance counted by each of the \(models.count) fold models of \(folds) (none saw these instances); figures pooled over them, \"worst fold\" the fold model with the most")
        }
        if magnitudeOnly {
            print("synthetic wrist daily life seen as |a| only (x = |a|, y = z = 0; L2 or L1 norm, gain 1.2-1.4, 12.5 or 25 Hz), seed \(seed), \(instances) instances per activity; \"watch\": the 12.5 Hz ones")
        } else {
            print("synthetic three-axis wrist daily life, seed \(seed), \(instances) instances per activity; a third on the 32 Hz 6-bit +-1.5 g watch (\"watch\")")
        }
        print("hours and false steps per model; false steps per hour; activity: share of the time called each state (%)")
        print("")
        let kinds = ActivityKind.allCases
        print(column("activity", 20) + column("hours", 6) + column("false", 6) + column("false/h", 8) + column("watch/h", 8)
            + column("worst fold/h", 13) + kinds.map { column(String($0.rawValue.prefix(10)), 11) }.joined())
        /// The share (%) of the runs' time called each kind.
        func shares(_ chosen: [Run]) -> [Double] {
            var called = [Double](repeating: 0, count: kinds.count)
            for r in chosen { for k in called.indices { called[k] += r.called[k] } }
            let total = max(called.reduce(0, +), 1e-9)
            return called.map { 100 * $0 / total }
        }
        func row(_ label: String, _ chosen: [Run]) {
            let hours = chosen.reduce(0) { $0 + $1.seconds } / 3600
            let falseSteps = chosen.reduce(0) { $0 + $1.falseSteps }
            let watch = chosen.filter {
                magnitudeOnly ? $0.sensor.rate < 20 : $0.sensor.bits == WristSensor.coarseWatch.bits && $0.sensor.rate == WristSensor.coarseWatch.rate
            }
            let watchHours = watch.reduce(0) { $0 + $1.seconds } / 3600
            let watchRate = watchHours > 0 ? fixedDecimal(Double(watch.reduce(0) { $0 + $1.falseSteps }) / watchHours, 1) : "-"
            var worst = 0.0
            for model in models {
                let mine = chosen.filter { $0.model == model }
                let h = mine.reduce(0) { $0 + $1.seconds } / 3600
                if h > 0 { worst = max(worst, Double(mine.reduce(0) { $0 + $1.falseSteps }) / h) }
            }
            print(column(label, 20) + column(fixedDecimal(hours / Double(models.count), 2), 6)
                + column(fixedDecimal(Double(falseSteps) / Double(models.count), 0), 6)
                + column(fixedDecimal(hours > 0 ? Double(falseSteps) / hours : 0, 1), 8) + column(watchRate, 8)
                + column(models.count > 1 ? fixedDecimal(worst, 1) : "-", 13)
                + shares(chosen).map { column(fixedDecimal($0, 1), 11) }.joined())
        }
        for activity in activities where activity.isDailyLife { row(activity.rawValue, runs.filter { $0.activity == activity }) }
        let busy = runs.filter { $0.activity.isDailyLife && !$0.activity.isQuiet }
        if !busy.isEmpty { row("arm-busy (all above but still)", busy) }
        let quiet = runs.filter { $0.activity.isQuiet }
        if !quiet.isEmpty { row("quiet (still wrist)", quiet) }
        let walks = runs.filter { !$0.activity.isDailyLife }
        if !walks.isEmpty {
            let truth = walks.reduce(0) { $0 + $1.trueSteps }
            let counted = walks.reduce(0) { $0 + $1.steps }
            let errors = walks.map { Double(abs($0.steps - $0.trueSteps)) / Double(max($0.trueSteps, 1)) }
            print("")
            print("control: \(DailyActivity.walking.rawValue), \(walks.count) runs, \(truth) true steps, \(counted) counted (summed \(fixedDecimal(100 * Double(counted - truth) / Double(max(truth, 1)), 2)) %, MAPE \(fixedDecimal(100 * errors.reduce(0, +) / Double(errors.count), 2)) %, worst \(fixedDecimal(100 * (errors.max() ?? 0), 1)) %)")
            print("  its time called: " + zip(kinds, shares(walks)).map { "\($0.0.rawValue) \(fixedDecimal($0.1, 1)) %" }.joined(separator: ", "))
            print("  " + CreditDelayBench.summary(walks.compactMap(\.credit)))
        }
    }

    func printWorst(_ runs: [Run]) {
        print("")
        print("instances with the most false steps (and the control walks furthest off)")
        let ranked = runs.sorted { a, b in
            func score(_ r: Run) -> Double { r.activity.isDailyLife ? Double(r.steps) : Double(abs(r.steps - r.trueSteps)) }
            return score(a) > score(b)
        }
        for r in ranked.prefix(15) {
            print("  " + column(r.activity.rawValue + "#\(r.instance)", 24) + column(r.sensor.label, 22) + column(fixedDecimal(r.seconds, 0) + " s", 8)
                + column("steps \(r.steps)" + (r.activity.isDailyLife ? "" : " of \(r.trueSteps)"), 18) + r.model)
        }
    }

    static func write(_ synthetic: DailyLifeInstance, name: String, to directory: String, manifest: inout [String], tool: String) throws {
        let file = String(name.map { $0.isLetter || $0.isNumber ? $0 : "-" }) + ".csv.gz"
        do {
            let writer = try GzipCSVWriter(path: directory + "/" + file)
            try writer.append(contentsOf: synthetic.samples)
            try writer.finish()
        } catch {
            AccuracyBenchCommand.printError("\(tool): cannot write \(directory)/\(file): \(error)")
            throw ExitCode(1)
        }
        let label = synthetic.activity.isDailyLife ? (synthetic.activity.isQuiet ? "stationary" : "mixed") : "walking"
        manifest.append("  \"\(file)\": {\"steps\": \(synthetic.trueSteps), \"activity\": \"\(label)\", \"placement\": \"wrist\"}")
    }
}
