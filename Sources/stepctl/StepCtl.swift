import ArgumentParser

/// The stepd client. Each concern adds its subcommands here.
@main
struct StepCtl: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stepctl",
        abstract: "Ask the stepd agent about steps and activity, and work with its files.",
        subcommands: []
    )
}
