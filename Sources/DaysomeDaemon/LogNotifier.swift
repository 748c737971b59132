// The `log` notifier: each call written to the journal (or stderr) instead of a notification
// server, for machines without one. Its ids are this process's counter, and it has no instances
// to tell apart.

import DaysomeCore

/// Writes each call to the log instead of a server.
final class LogNotifier: Notifier {
    private let logger: Logger
    private var nextId: UInt32 = 1
    // The log's ids are this process's counter: closing an earlier process's id only logs it.
    let server = ServerInfo(name: "log", present: true, capabilities: [])
    let instance: String? = "log"

    init(logger: Logger) {
        self.logger = logger
    }

    func post(
        _ start: Start, replacing: UInt32, mayStartServer: Bool, leavesAt: @escaping () -> Instant?,
        completion: @escaping (Result<PostAnswer, NotifierError>) -> Void
    ) {
        if replacing != 0 { self.close(replacing, on: nil) }
        let id = self.nextId
        self.nextId += 1
        // The journal's fields are C strings too: the family's words go whole, as on a server.
        let words = [start.title, start.heading, start.body].map(Content.busSendable)
        self.logger.log(
            .notice, "Call \(id): \(words.joined(separator: " | "))",
            fields: [("DAYSOME_NOTIFICATION_ID", String(id)), ("DAYSOME_AT", start.at.rfc3339)])
        completion(.success(PostAnswer(id: id, instance: self.instance)))
    }

    func close(_ id: UInt32, on instance: String?) {
        self.logger.log(.info, "Closed call \(id)", fields: [("DAYSOME_NOTIFICATION_ID", String(id))])
    }
}
