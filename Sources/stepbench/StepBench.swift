import ArgumentParser

/// Benchmarks that print tables. Each concern adds its subcommand here.
@main
struct StepBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stepbench",
        abstract: "Measure stepd: accuracy, CPU, memory, latency and durability, printed as tables.",
        subcommands: [AccuracyBenchCommand.self, RobustnessBenchCommand.self, DailyLifeBenchCommand.self, SocketBenchCommand.self, LedgerBench.self, SensorBenchCommand.self]
    )
}
