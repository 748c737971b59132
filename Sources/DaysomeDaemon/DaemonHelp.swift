// daysomed's help as tables: the opening, usage, option rows and exit codes that `--help` prints
// and `--help-data` gives scripts/gen-man as JSON. The lines are wrapped here by hand, as they
// read best, so the text and the data come from the same rows.

import DaysomeCore

extension DaemonOptions {
    /// What the daemon is, as NAME in the man page says it.
    static let about = "the Daysome notification daemon"
    /// The rest of the opening paragraph, as printed after "daysomed: <about>. ".
    static let descriptionLines = [
        "While the day display is away, it calls her to each",
        "start of the household's week; when the display comes back, it takes every call away.",
    ]
    /// The usage, as printed (continuation lines indented under the first argument).
    static let usageLines = [
        "daysomed [--household PATH] [--display-state PATH] [--runtime-dir DIR] [--state-dir DIR]",
        "         [--backend wheel|systemd] [--notifier freedesktop|log] [--grace SECONDS]",
        "         [--chime-file PATH] [--player PATH] [--display-unit UNIT] [--display-command PATH]",
        "         [--dnd respect|override]",
    ]
    /// Every option row, in the order `--help` lists them.
    static let optionRows: [HelpOption] = [
        row("--household", "PATH", "The household file (default $XDG_CONFIG_HOME/daysome/household.json)."),
        row("--display-state", "PATH", "The display state file (default $XDG_RUNTIME_DIR/daysome/display)."),
        row("--runtime-dir", "DIR", "The live queue and status (default $XDG_RUNTIME_DIR/daysome)."),
        row("--state-dir", "DIR", "The lay counter, current lay and history (default $XDG_STATE_HOME/daysome)."),
        row(
            "--backend", "KIND", "wheel: the daemon's own timer wheel (default); systemd: one transient",
            "timer per lay in the user's systemd manager."),
        row(
            "--notifier", "KIND", "freedesktop: org.freedesktop.Notifications on the session bus (default);",
            "log: write each call to the journal or stderr."),
        row("--grace", "SECONDS", "How late a start may still be delivered, 0 to 3600 (default 300)."),
        row("--chime-file", "PATH", "A sound file to play instead of the built-in bell."),
        row("--player", "PATH", "The program that plays it (default: the first of pw-play, paplay, aplay)."),
        row("--display-unit", "UNIT", "A systemd user unit that shows the day display: restarted to bring it back."),
        row("--display-command", "PATH", "A program, run without a shell, that brings the day display back."),
        row(
            "--dnd", "MODE", "For households without settings.respectDoNotDisturb: override (default)",
            "shows calls through a forgotten Do Not Disturb and the bell plays;",
            "respect lets a Do Not Disturb hold calls back, banner and bell."),
        HelpOption(names: ["-h", "--help"], lines: ["Show this help."]),
        HelpOption(names: ["--version"], lines: ["Show the version."]),
    ]
    /// The paragraph after the options, as printed.
    static let noteLines = [
        "Runs in the foreground, logs to the journal (stderr when there is none), speaks sd_notify",
        "(READY, STATUS, WATCHDOG, STOPPING) and exits cleanly on SIGTERM.",
    ]
    /// The daemon's exit codes.
    static let exitCodes: [(code: Int, meaning: String)] = [
        (0, "on a clean stop"), (1, "on a runtime failure"), (2, "on bad usage"),
    ]
    /// Where option help starts: two spaces, the widest option and value, and two more, rounded up.
    static let helpColumn = 28

    /// The help text, also the source of the man page (through `helpData`).
    public static var help: String {
        let options = self.optionRows.map { option in
            let spec = option.names.joined(separator: ", ") + (option.value.map { " " + $0 } ?? "")
            let first = "  " + spec + String(repeating: " ", count: max(2, self.helpColumn - 2 - spec.count))
            let rest = option.lines.dropFirst().map { String(repeating: " ", count: self.helpColumn) + $0 }
            return ([first + option.lines[0]] + rest).joined(separator: "\n")
        }
        let data = self.helpData(version: "")
        return
            (["daysomed: \(self.about). \(self.descriptionLines[0])"] + self.descriptionLines.dropFirst() + [""]
            + ["USAGE:"] + self.usageLines.map { "  " + $0 } + [""]
            + ["OPTIONS:"] + options + [""]
            + self.noteLines + [data.exitSentence]).joined(separator: "\n")
    }

    /// The help as data, for `daysomed --help-data`.
    public static func helpData(version: String) -> HelpData {
        HelpData(
            program: "daysomed", version: version, summary: self.about,
            description: self.descriptionLines.joined(separator: " "),
            usage: self.usageLines.map { $0.drop { $0 == " " } }.joined(separator: " "),
            options: self.optionRows, notes: [self.noteLines.joined(separator: " ")], exitStatus: self.exitCodes)
    }

    /// One option row with its help wrapped as given.
    private static func row(_ name: String, _ value: String, _ lines: String...) -> HelpOption {
        HelpOption(names: [name], value: value, lines: lines)
    }
}
