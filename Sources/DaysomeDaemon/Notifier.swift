// How a call reaches her: the notifier posts and closes every notification itself, over one
// long-lived connection (GNOME lets only the posting connection close one, and ignores expire
// timeouts). `log` writes calls to the journal for machines with no notification server.

import DaysomeCore
import SystemdKit

/// What the daemon knows of the notification server.
struct ServerInfo: Sendable, Equatable {
    var name: String?
    var present: Bool
    var capabilities: [String]
    /// Which instance answered: the bus's id and the server's unique name on it. A notification
    /// id means something only to the instance that gave it.
    var instance: String? = nil
}

/// Posts and closes calls; replies come back through the loop.
protocol Notifier: AnyObject {
    /// What the server says of itself (refreshed when it restarts).
    var server: ServerInfo { get }
    /// Posts a call; `completion` gets the server's id or why it failed.
    func post(_ start: Start, now: Instant, completion: @escaping (Result<UInt32, NotifierError>) -> Void)
    /// Closes a call the daemon posted.
    func close(_ id: UInt32)
}

/// Why a post failed, in the server's or the bus's words.
struct NotifierError: Error, Sendable {
    let message: String
}

/// org.freedesktop.Notifications on the session bus.
final class FreedesktopNotifier: Notifier {
    private let notifications: Notifications
    private(set) var server = ServerInfo(name: nil, present: false, capabilities: [])
    private var slots: [BusSlot] = []

    /// Normal (1) respects a Do Not Disturb; critical (2) shows through it where the server allows.
    private let urgency: UInt8

    /// Subscribes to the server's signals; `restarted` runs when its bus name changes owner, and
    /// `clicked` when she activates a call (its `default` action).
    init(
        bus: Bus, urgency: UInt8, closedByServer: @escaping (UInt32) -> Void, clicked: @escaping (UInt32) -> Void,
        restarted: @escaping () -> Void
    ) throws(Errno) {
        self.notifications = Notifications(bus: bus)
        self.urgency = urgency
        self.slots.append(
            try self.notifications.onActionInvoked { id, key in
                if key == "default" { clicked(id) }
            })
        self.slots.append(
            try self.notifications.onClosed { id, reason in
                // Reason 3 is our own CloseNotification; the others are the server's or her doing.
                if reason.rawValue != 3 { closedByServer(id) }
            })
        self.slots.append(
            try self.notifications.onOwnerChanged { [weak self] _ in
                self?.refresh()
                restarted()
            })
        self.refresh()
    }

    /// The bus under the server went away: nothing can be posted until it is back.
    func serverGone() {
        self.server = ServerInfo(name: nil, present: false, capabilities: [])
    }

    /// Asks the server for its name and capabilities (a short synchronous call at start and after a restart).
    func refresh() {
        do throws(BusError) {
            let info = try self.notifications.getServerInformation()
            let capabilities = try self.notifications.getCapabilities()
            let busId = (try? self.notifications.bus.busId) ?? "?"
            self.server = ServerInfo(
                name: info.name, present: true, capabilities: capabilities,
                instance: info.owner.map { "\(busId) \($0)" })
        } catch {
            self.server = ServerInfo(name: nil, present: false, capabilities: [])
        }
    }

    func post(_ start: Start, now: Instant, completion: @escaping (Result<UInt32, NotifierError>) -> Void) {
        let markup = self.server.capabilities.contains("body-markup")
        let body = markup ? Content.markupEscaped(start.heading + "\n" + start.body) : start.heading + "\n" + start.body
        // The expire timeout is only a hint: the daemon closes the call itself at expiresAt.
        let milliseconds = max(1, min(Int64(Int32.max), (start.expiresAt.seconds - now.seconds) * 1_000))
        // The daemon plays its own bell: suppress-sound keeps a server that plays sounds (GNOME)
        // from calling twice for one start. The default action is what a click on the call runs.
        self.notifications.notify(
            appName: "Daysome", summary: start.title, body: body, actions: ["default", "Open the day"],
            hints: [
                ("urgency", .byte(self.urgency)), ("category", .string("x-daysome.call")),
                ("desktop-entry", .string("daysome")), ("suppress-sound", .bool(true)),
            ],
            expireTimeout: Int32(milliseconds)
        ) { result in
            switch result {
            case .success(let id): completion(.success(id))
            case .failure(let error): completion(.failure(NotifierError(message: error.description)))
            }
        }
    }

    func close(_ id: UInt32) {
        self.notifications.close(id: id)
    }

    /// Whether the server says it is paused (dunst's Do Not Disturb); false where it cannot say.
    func isPaused() -> Bool {
        guard
            let message = try? self.notifications.bus.newMethodCall(
                destination: "org.freedesktop.Notifications", path: "/org/freedesktop/Notifications",
                interface: "org.freedesktop.DBus.Properties", member: "Get")
        else { return false }
        do {
            try message.append("org.dunstproject.cmd0")
            try message.append("paused")
        } catch {
            return false
        }
        guard let reply = try? self.notifications.bus.call(message, timeout: 200_000),
            (try? reply.enterContainer("v", "b")) == true
        else { return false }
        return (try? reply.readBool()) ?? false
    }
}

/// Writes each call to the log instead of a server.
final class LogNotifier: Notifier {
    private let logger: Logger
    private var nextId: UInt32 = 1
    // The log's ids are this process's counter: closing an earlier process's id only logs it.
    let server = ServerInfo(name: "log", present: true, capabilities: [], instance: "log")

    init(logger: Logger) {
        self.logger = logger
    }

    func post(_ start: Start, now: Instant, completion: @escaping (Result<UInt32, NotifierError>) -> Void) {
        let id = self.nextId
        self.nextId += 1
        self.logger.log(
            .notice, "Call \(id): \(start.title) | \(start.heading) | \(start.body)",
            fields: [("DAYSOME_NOTIFICATION_ID", String(id)), ("DAYSOME_AT", start.at.rfc3339)])
        completion(.success(id))
    }

    func close(_ id: UInt32) {
        self.logger.log(.info, "Closed call \(id)", fields: [("DAYSOME_NOTIFICATION_ID", String(id))])
    }
}
