// Logging: to the journal with structured fields when journald listens, else one line per
// message on stderr with a `<N>` priority prefix that systemd understands. Only the Manager
// logs; the core and the wrappers return errors instead.

import DaysomeCore
import DaysomeFiles
import Glibc
import SystemdKit

/// Writes log lines.
package final class Logger {
    private let useJournal: Bool
    private let prefixPriority: Bool
    /// Where every line goes instead, with its fields: the embedded world's record of the log.
    private let sink: ((LogPriority, String, [(String, String)]) -> Void)?

    package init(sink: ((LogPriority, String, [(String, String)]) -> Void)? = nil) {
        self.sink = sink
        self.useJournal = sink == nil && Journal.isAvailable
        // A terminal reads plain lines; a pipe or a service manager reads the priority prefix.
        self.prefixPriority = isatty(2) == 0
    }

    /// Logs one message with optional `DAYSOME_*` fields.
    func log(_ priority: LogPriority, _ message: @autoclosure () -> String, fields: [(String, String)] = []) {
        let text = message()
        if let sink = self.sink {
            sink(priority, text, fields)
            return
        }
        if self.useJournal {
            var entries = [
                ("MESSAGE", text), ("PRIORITY", String(priority.rawValue)), ("SYSLOG_IDENTIFIER", "daysomed"),
            ]
            entries += fields
            if (try? Journal.send(entries)) != nil { return }
        }
        let line = (self.prefixPriority ? "<\(priority.rawValue)>" : "daysomed: ") + text.replacingNewlines() + "\n"
        writeText(line, to: 2)
    }
}

extension String {
    /// One log line stays one line. A line with no line break (nearly every one: the status line
    /// is built at every publication) is returned as it is, without a walk by Character.
    func replacingNewlines() -> String {
        guard self.utf8.contains(where: { $0 == 0x0A || $0 == 0x0D }) else { return self }
        return String(self.map { $0 == "\n" || $0 == "\r" ? " " : $0 })
    }
}
