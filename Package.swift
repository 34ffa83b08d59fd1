// swift-tools-version:6.0
import PackageDescription

// One target per concern; see README.md ("Layout") for what each holds and why each dependency is here.
let strict: [SwiftSetting] = [.swiftLanguageMode(.v6)]

let package = Package(
    name: "stepd",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "stepd", targets: ["stepd"]),
        .executable(name: "stepctl", targets: ["stepctl"]),
        .executable(name: "stepbench", targets: ["stepbench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
    ],
    targets: [
        // C: only what Swift cannot do (ioctl structs, libi2c, libgpiod).
        .target(name: "CStepdShim", linkerSettings: [.linkedLibrary("i2c"), .linkedLibrary("gpiod")]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),

        // The one POSIX layer: owned descriptors, typed errno, EINTR retry, clocks, Unix socket
        // addresses, durable and atomic file writes. Glibc only, no Foundation.
        .target(name: "POSIXLayer", swiftSettings: strict),
        // Shared vocabulary (samples, activity kinds, sensor health) and one table per chip.
        .target(name: "StepdModel", swiftSettings: strict),
        // Foundation-free JSON with hard limits (depth, size, number range).
        .target(name: "StepJSON", swiftSettings: strict),
        // Linux i2c-dev and GPIO behind typed Swift errors; the I2CBus protocol the drivers use.
        .target(name: "SensorBus", dependencies: ["CStepdShim", "POSIXLayer"], swiftSettings: strict),
        // Chip-agnostic driver core + per-chip register sequences, probe, FIFO bursts, recovery supervisor.
        .target(name: "SensorChips", dependencies: ["SensorBus", "StepdModel"], swiftSettings: strict),
        // Register-level emulations of the chips behind I2CBus, fed by recordings.
        .target(name: "ChipEmulation", dependencies: ["SensorBus", "SensorChips", "StepdModel"], swiftSettings: strict),
        // Board files: parsing and validation.
        .target(name: "Boards", dependencies: ["POSIXLayer", "StepdModel"], swiftSettings: strict),
        // The shared t,x,y,z recording format (plain or gzip), read and write.
        .target(name: "Recordings", dependencies: ["CZlib", "POSIXLayer", "StepdModel"], swiftSettings: strict),
        // Pure motion core: step detector, activity classifier, stride model, reference algorithm.
        .target(name: "MotionCore", dependencies: ["StepJSON", "StepdModel"], swiftSettings: strict),
        // Civil time: calendar arithmetic, TZif and POSIX zone rules, fixed offsets, local time text.
        .target(name: "CivilTime", swiftSettings: strict),
        // Pure ledger: records, encoding, checksums, queries, source merging, sync anchors.
        .target(name: "Ledger", dependencies: ["CivilTime", "StepdModel"], swiftSettings: strict),
        // Ledger files on disk: append + fdatasync, recovery, rotation, pruning, backlog.
        .target(name: "LedgerStore", dependencies: ["CivilTime", "Ledger", "POSIXLayer", "StepdModel"], swiftSettings: strict),
        // JSON-RPC 2.0 messages and method parameter types of the socket protocol.
        .target(name: "StepProtocol", dependencies: ["StepJSON", "StepdModel"], swiftSettings: strict),
        // JSON-RPC dispatch as a pure state machine: lines and peer credentials in, lines out
        // (subscriptions, permissions, holding requests of clients that do not read); no sockets.
        .target(name: "RPCDispatch", dependencies: ["StepJSON", "StepProtocol", "StepdModel"], swiftSettings: strict),
        // Unix socket server (poll-driven, bounded queues, peer credentials) and client.
        .target(name: "StepSocket", dependencies: ["CStepdShim", "POSIXLayer", "StepJSON", "StepProtocol", "StepdModel", "RPCDispatch"], swiftSettings: strict),
        // The agent: event loop wiring sensor -> motion -> ledger -> socket, sd_notify, logs, metrics.
        .target(name: "StepdAgent", dependencies: [
            "CStepdShim", "POSIXLayer", "StepdModel", "StepJSON", "SensorBus", "SensorChips", "ChipEmulation", "Boards", "Recordings",
            "MotionCore", "Ledger", "LedgerStore", "StepProtocol", "StepSocket", "RPCDispatch", "CivilTime",
        ], swiftSettings: strict),

        // No ArgumentParser here: it links FoundationEssentials (+6 MB RSS measured); the daemon's
        // flags are parsed by `AgentOptions.parse` instead.
        .executableTarget(name: "stepd", dependencies: ["StepdAgent", "StepProtocol"], swiftSettings: strict),
        .executableTarget(name: "stepctl", dependencies: [
            "CZlib", "POSIXLayer", "StepdModel", "StepJSON", "StepProtocol", "StepSocket", "Recordings", "MotionCore", "Ledger",
            "LedgerStore", "CivilTime",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ], swiftSettings: strict),
        .executableTarget(name: "stepbench", dependencies: [
            "POSIXLayer", "StepdModel", "Recordings", "MotionCore", "Ledger", "LedgerStore", "StepJSON", "StepProtocol",
            "StepSocket", "SensorChips", "ChipEmulation", "RPCDispatch", "ToolSupport", "CivilTime",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ], swiftSettings: strict),

        // Helpers of the development tools: seeded random numbers, clocks, table columns, sensor imperfections,
        // the gait bench's segments (cut without the engine: this target cannot import MotionCore).
        .target(name: "ToolSupport", dependencies: ["POSIXLayer", "StepdModel"], swiftSettings: strict),
        // The socket robustness fuzzer (scripts/socket-harness).
        .executableTarget(name: "socketfuzz", dependencies: [
            "StepJSON", "StepProtocol", "StepSocket", "ToolSupport",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ], swiftSettings: strict),

        .testTarget(name: "SensorTests", dependencies: ["SensorBus", "SensorChips", "ChipEmulation", "Boards", "Recordings", "StepdModel"], swiftSettings: strict),
        .testTarget(name: "MotionTests", dependencies: ["MotionCore", "Recordings", "StepJSON", "StepdModel", "ToolSupport"], swiftSettings: strict),
        .testTarget(name: "LedgerTests", dependencies: ["CivilTime", "Ledger", "LedgerStore", "POSIXLayer", "StepdModel"], swiftSettings: strict),
        .testTarget(name: "ProtocolTests", dependencies: ["StepJSON", "StepProtocol", "StepSocket", "StepdModel", "RPCDispatch"], swiftSettings: strict),
        .testTarget(name: "POSIXTests", dependencies: ["POSIXLayer"], swiftSettings: strict),
        .testTarget(name: "AgentTests", dependencies: ["StepdAgent", "Boards", "ChipEmulation", "LedgerStore", "MotionCore", "POSIXLayer", "Recordings", "SensorChips", "StepJSON", "StepProtocol", "StepSocket", "StepdModel", "RPCDispatch"], swiftSettings: strict),
    ]
)
