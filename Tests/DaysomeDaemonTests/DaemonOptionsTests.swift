// daysomed's command line: the design's options with the design's defaults, and one clear
// error for anything else.

import DaysomeCore
import DaysomeFiles
import Testing

@testable import DaysomeDaemon

@Suite("daysomed options")
struct DaemonOptionsTests {
    let environment = [
        "HOME": "/home/jean", "XDG_RUNTIME_DIR": "/run/user/1000", "XDG_CONFIG_HOME": "/home/jean/.config",
    ]

    @Test(
        "Defaults follow the design: household in XDG_CONFIG_HOME, display and queue in XDG_RUNTIME_DIR, state in XDG_STATE_HOME"
    )
    func defaults() throws {
        guard case .run(let options) = try DaemonOptions.parse([], environment: self.environment) else {
            Issue.record("no options should run the daemon")
            return
        }
        #expect(options.paths.household == "/home/jean/.config/daysome/household.json")
        #expect(options.paths.displayState == "/run/user/1000/daysome/display")
        #expect(options.paths.runtimeDirectory == "/run/user/1000/daysome")
        #expect(options.paths.stateDirectory == "/home/jean/.local/state/daysome")
        #expect(options.backend == .wheel)
        #expect(options.notifier == .freedesktop)
        #expect(options.grace == 300)
        #expect(options.doNotDisturb == .override)
    }

    @Test("Every option of the contract is accepted, with a space or an equals sign")
    func everyOption() throws {
        let argv = [
            "--household", "/h.json", "--display-state=/d", "--runtime-dir", "/r", "--state-dir", "/s", "--backend",
            "systemd", "--notifier=log", "--grace", "60", "--chime-file", "/bell.ogg", "--player", "/usr/bin/paplay",
            "--display-unit", "day.service", "--dnd", "respect",
        ]
        guard case .run(let options) = try DaemonOptions.parse(argv, environment: self.environment) else {
            Issue.record("should run")
            return
        }
        #expect(options.paths.household == "/h.json")
        #expect(options.paths.displayState == "/d")
        #expect(options.backend == .systemd)
        #expect(options.notifier == .log)
        #expect(options.grace == 60)
        #expect(options.displayUnit == "day.service")
        #expect(options.doNotDisturb == .respect)
    }

    @Test(
        "Bad usage names the token",
        arguments: [
            (["--bogus"], DaemonOptions.UsageError.unknownOption("--bogus")),
            (["stray"], DaemonOptions.UsageError.unexpectedArgument("stray")),
            (["--grace"], DaemonOptions.UsageError.missingValue("--grace")),
            (
                ["--grace", "-1"],
                DaemonOptions.UsageError.invalidValue("--grace", "-1", "a whole number of seconds from 0 to 3600")
            ),
            (["--backend", "cron"], DaemonOptions.UsageError.invalidValue("--backend", "cron", "wheel or systemd")),
            (["--player", "paplay"], DaemonOptions.UsageError.invalidValue("--player", "paplay", "an absolute path")),
            (
                ["--display-unit", "../x"],
                DaemonOptions.UsageError.invalidValue(
                    "--display-unit", "../x", "a unit name such as daysome-display.service")
            ),
        ])
    func badUsage(argv: [String], expected: DaemonOptions.UsageError) {
        #expect(throws: expected) { try DaemonOptions.parse(argv, environment: self.environment) }
    }

    @Test("--help documents every option it accepts")
    func helpListsEveryOption() throws {
        #expect(try DaemonOptions.parse(["--help"], environment: [:]) == .help)
        for option in [
            "--household", "--display-state", "--runtime-dir", "--state-dir", "--backend", "--notifier", "--grace",
            "--chime-file", "--player", "--display-unit", "--display-command", "--dnd",
        ] {
            #expect(DaemonOptions.help.contains(option + " "), "\(option)")
        }
    }

    @Test("--help-data gives the man page the rows --help prints, and every option it accepts")
    func helpDataHasTheHelpRows() throws {
        #expect(try DaemonOptions.parse(["--help-data"], environment: [:]) == .helpData)
        let data = DaemonOptions.helpData(version: "9.9")
        let json = try JSONParser.parse(data.json.serialized(pretty: true))
        let options = json.objectValue?["options"]?.arrayValue ?? []
        let names = options.flatMap { $0.objectValue?["names"]?.arrayValue?.compactMap(\.stringValue) ?? [] }
        for option in [
            "--household", "--display-state", "--runtime-dir", "--state-dir", "--backend", "--notifier", "--grace",
            "--chime-file", "--player", "--display-unit", "--display-command", "--dnd", "-h", "--help", "--version",
        ] {
            #expect(names.contains(option), "\(option)")
        }
        // Each row's help, wrapped as --help prints it, reads as the one line the data gives.
        let text = DaemonOptions.help
        for option in data.options {
            #expect(text.contains(option.lines[0]), "\(option.names)")
            #expect(!option.help.contains("  "), "\(option.names): \(option.help)")
        }
        #expect(json.objectValue?["summary"]?.stringValue == "the Daysome notification daemon")
        #expect(text.hasPrefix("daysomed: the Daysome notification daemon. "))
        #expect(text.hasSuffix(data.exitSentence))
        #expect(data.exitSentence == "Exit status: 0 on a clean stop, 1 on a runtime failure, 2 on bad usage.")
    }
}
