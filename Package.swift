// swift-tools-version: 6.0
// Daysome notification daemon: a pure core, thin libsystemd wrappers, the daemon and its control tool.
import PackageDescription

let strict: [SwiftSetting] = [.enableUpcomingFeature("ExistentialAny")]
// The shipped modules but the core, compiled for size in release: their code is mostly run once
// (start-up, one verb), and smaller code is fewer pages resident in the daemon. The core plans
// and serialises the dense week: it stays at -O (issue 44; docs/layout.md "What ships").
let small: [SwiftSetting] = strict + [.unsafeFlags(["-Osize"], .when(configuration: .release))]

let package = Package(
    name: "Daysome",
    products: [
        .executable(name: "daysomed", targets: ["daysomed"]),
        .executable(name: "daysomectl", targets: ["daysomectl"]),
    ],
    targets: [
        // libsystemd's headers (sd-bus, sd-event, sd-daemon, sd-journal; package libsystemd-dev) and the
        // Linux headers Glibc lacks. No pkg-config: its -lsystemd would be linked into daysomectl too.
        .systemLibrary(name: "CSystemd"),
        // One error number type with a thread-safe text, below both SystemdKit and DaysomeFiles. No I/O.
        .target(name: "DaysomeErrno", swiftSettings: small),
        // Thin typed wrappers: the only module that imports CSystemd. CSystemd links no library:
        // the daemon links libsystemd itself; daysomectl loads it on first use (SystemdLoader).
        .target(name: "SystemdKit", dependencies: ["CSystemd", "DaysomeErrno"], swiftSettings: small),
        // daysomectl's libsystemd, opened on the first call into it: most verbs never need it, and
        // loading it with its six dependencies at every start cost more than `pending` itself.
        .target(name: "SystemdLoader", linkerSettings: [.linkedLibrary("dl")]),
        // The argument vector as glibc hands it to a constructor, standing in for the static
        // runtime's search of /proc/self/maps at every start. Linked only by the shipped programs.
        .target(name: "StartArguments"),
        // The pure core: no I/O, no clock reads, no globals. Time is a parameter.
        .target(name: "DaysomeCore", swiftSettings: strict),
        // Files the daemon and the tool share: zone files, atomic writes, default paths, the queue and history.
        .target(name: "DaysomeFiles", dependencies: ["DaysomeCore", "DaysomeErrno"], swiftSettings: small),
        // The daemon: one sd-event loop executing the core's actions.
        .target(
            name: "DaysomeDaemon", dependencies: ["DaysomeCore", "DaysomeFiles", "SystemdKit"], swiftSettings: small,
            linkerSettings: [.linkedLibrary("systemd")]),
        // daysomectl's commands, with a pure argument parser.
        .target(
            name: "DaysomeCLI", dependencies: ["DaysomeCore", "DaysomeFiles", "SystemdKit", "SystemdLoader"],
            swiftSettings: small),
        // Test support, never linked by daysomed or daysomectl: the manual loop, the fake session
        // peers (notification server, lockers, systemd manager) and the embedded tablet that runs
        // the real Manager on them.
        .target(
            name: "DaysomeWorld",
            dependencies: ["DaysomeCore", "DaysomeFiles", "DaysomeDaemon", "SystemdKit", "DaysomeSimDisk"],
            swiftSettings: strict),
        // The seeded simulator: the machine and the daemon's start-up, lock and state decisions
        // against a simulated tablet with random faults, every rule checked after every step.
        .target(
            name: "DaysomeSimulator", dependencies: ["DaysomeCore", "DaysomeFiles", "DaysomeWorld", "DaysomeSimDisk"],
            swiftSettings: strict),
        .executableTarget(name: "daysome-simulate", dependencies: ["DaysomeSimulator"], swiftSettings: strict),
        .executableTarget(name: "daysomed", dependencies: ["DaysomeDaemon", "StartArguments"], swiftSettings: small),
        .executableTarget(name: "daysomectl", dependencies: ["DaysomeCLI", "StartArguments"], swiftSettings: small),
        .testTarget(name: "DaysomeCoreTests", dependencies: ["DaysomeCore", "DaysomeFiles"], swiftSettings: strict),
        .testTarget(
            name: "SimulationTests", dependencies: ["DaysomeSimulator", "DaysomeCore", "DaysomeFiles"],
            exclude: ["Corpus"], swiftSettings: strict),
        .testTarget(name: "ZoneTests", dependencies: ["DaysomeCore", "DaysomeFiles"], swiftSettings: strict),
        .testTarget(
            name: "SystemdKitTests",
            dependencies: ["SystemdKit", "DaysomeCore", "DaysomeErrno", "DaysomeTestSupport", "DaysomeWorld"],
            swiftSettings: strict),
        .testTarget(
            name: "DaysomeFilesTests",
            dependencies: ["DaysomeFiles", "DaysomeCore", "DaysomeTestSupport", "DaysomeSimDisk"],
            swiftSettings: strict),
        .testTarget(
            name: "DaysomeDaemonTests",
            dependencies: ["DaysomeDaemon", "DaysomeCore", "DaysomeFiles", "SystemdKit", "DaysomeSimDisk"],
            swiftSettings: strict),
        .testTarget(
            name: "DaysomeCLITests", dependencies: ["DaysomeCLI", "DaysomeCore", "DaysomeFiles", "DaysomeTestSupport"],
            swiftSettings: strict),
        // The real Manager embedded: a manual loop, a fake server and real files, on virtual time.
        .testTarget(
            name: "EmbeddedTests",
            dependencies: [
                "DaysomeWorld", "DaysomeDaemon", "DaysomeCore", "DaysomeFiles", "DaysomeCLI", "DaysomeSimDisk",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "ReplayTests", dependencies: ["DaysomeCLI", "DaysomeCore", "DaysomeFiles"], swiftSettings: strict),
        // The integration targets' one test world: it starts the services a test names, spawns the
        // real daysomed and reads it through daysomectl. A library only test targets depend on.
        .target(
            name: "DaysomeTestSupport", dependencies: ["DaysomeCore", "DaysomeFiles"], path: "Tests/DaysomeTestSupport",
            swiftSettings: strict),
        // An in-memory disk that loses what was not synced at a power cut: the daemon's own file
        // code (StateDisk) runs on it in tests. Test-only: nothing shipped links it.
        .target(
            name: "DaysomeSimDisk", dependencies: ["DaysomeCore", "DaysomeFiles"], path: "Tests/DaysomeSimDisk",
            swiftSettings: strict),
        // Real services (a private session bus, Xvfb, dunst) and the real built binaries.
        .testTarget(
            name: "IntegrationTests", dependencies: ["DaysomeCore", "DaysomeFiles", "DaysomeTestSupport"],
            swiftSettings: strict),
        // A real systemd user manager, dunst and the real daysomed with --backend systemd.
        .testTarget(
            name: "SystemdIntegrationTests", dependencies: ["DaysomeCore", "DaysomeFiles", "DaysomeTestSupport"],
            swiftSettings: strict),
        // A real sound server's null sink, a session bus and a user manager: the bell and bring-back.
        .testTarget(
            name: "HeardAndSeenTests", dependencies: ["DaysomeCore", "DaysomeFiles", "DaysomeTestSupport"],
            swiftSettings: strict),
        // The same real call on dunst, xfce4-notifyd, notification-daemon, MATE, LXQt and GNOME Shell, side by side.
        .testTarget(
            name: "DesktopMatrixTests", dependencies: ["DaysomeCore", "DaysomeFiles", "DaysomeTestSupport"],
            swiftSettings: strict),
    ],
    swiftLanguageModes: [.v6]
)
