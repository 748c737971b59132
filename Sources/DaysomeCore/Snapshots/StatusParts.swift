// The nested parts of `StatusSnapshot`, each with its encoder and decoder side by side: the
// notification server, the household in force, the next start, and the running daemon's chime,
// bring-back, lock and wake parts. A new key is a property, an encoder line and a decoder line here.

extension StatusSnapshot {
    /// `notificationServer`: who answers, and (from a running daemon) what it does for them.
    public struct NotificationServer: Sendable, Equatable {
        public var name: String?
        public var present: Bool
        public var capabilities: [String]
        /// The urgency the next call gets there (`normal`, `critical`), written only by a running daemon.
        public var urgency: String?
        /// Why that urgency, written only by a running daemon.
        public var urgencyReason: String?
        /// What the server says of its Do Not Disturb now, written only by a running daemon:
        /// `unknown` wherever it is not followed live (a value read at a call is stale).
        public var doNotDisturb: ServerDoNotDisturb
        /// How the daemon knows it (`followed`, `readBeforeCalls`, `unreadable`): added after 0.1.0.
        public var doNotDisturbSource: DoNotDisturbKnowledge?
        /// What the server said when last asked, where it is read only at calls and at its start
        /// (mako 1.7): added after 0.1.0.
        public var doNotDisturbLastRead: ServerDoNotDisturb?
        /// What "Can deliver: yes" must add about the switch so as never to claim more than the
        /// daemon knows (`OnEveryDesktop.doNotDisturbNote`): added after 0.1.0.
        public var doNotDisturbNote: String?
        /// Why the last call found no server to take it, while calls wait for one (nil once a
        /// server took one): written only by a running daemon, added after 0.1.0.
        public var waiting: String?
        /// The last call the bus refused to send (Daysome's own message, never the server's doing):
        /// written only by a running daemon, added after 0.1.0.
        public var lastRefusal: Refusal?

        public init(
            name: String?, present: Bool, capabilities: [String], urgency: String? = nil,
            urgencyReason: String? = nil, doNotDisturb: ServerDoNotDisturb = .unknown, waiting: String? = nil,
            lastRefusal: Refusal? = nil, doNotDisturbSource: DoNotDisturbKnowledge? = nil,
            doNotDisturbLastRead: ServerDoNotDisturb? = nil, doNotDisturbNote: String? = nil
        ) {
            self.name = name
            self.present = present
            self.capabilities = capabilities
            self.urgency = urgency
            self.urgencyReason = urgencyReason
            self.doNotDisturb = doNotDisturb
            self.waiting = waiting
            self.lastRefusal = lastRefusal
            self.doNotDisturbSource = doNotDisturbSource
            self.doNotDisturbLastRead = doNotDisturbLastRead
            self.doNotDisturbNote = doNotDisturbNote
        }

        func json(running: Bool) -> JSONValue {
            var members: [(key: String, value: JSONValue)] = [
                ("name", .stringOrNull(self.name)), ("present", .bool(self.present)),
                ("capabilities", .array(self.capabilities.map { .string($0) })),
            ]
            if running {
                members += [
                    ("urgency", .stringOrNull(self.urgency)), ("urgencyReason", .stringOrNull(self.urgencyReason)),
                    ("doNotDisturb", .string(self.doNotDisturb.rawValue)), ("waiting", .stringOrNull(self.waiting)),
                    ("lastRefusal", self.lastRefusal?.json ?? .null),
                    ("doNotDisturbSource", .stringOrNull(self.doNotDisturbSource?.rawValue)),
                    ("doNotDisturbLastRead", .stringOrNull(self.doNotDisturbLastRead?.rawValue)),
                    ("doNotDisturbNote", .stringOrNull(self.doNotDisturbNote)),
                ]
            }
            return .object(JSONObject(members))
        }

        init(_ reader: SnapshotReader, running: Bool) throws(SnapshotProblem) {
            self.name = try reader.optionalString("name")
            self.present = try reader.bool("present")
            self.capabilities = try reader.strings("capabilities")
            self.urgency = running ? try reader.optionalString("urgency") : nil
            self.urgencyReason = running ? try reader.optionalString("urgencyReason") : nil
            self.doNotDisturb = running ? try reader.word("doNotDisturb", as: ServerDoNotDisturb.self) : .unknown
            self.waiting = running ? try reader.addedLaterString("waiting") : nil
            self.lastRefusal = try running ? reader.addedLaterObject("lastRefusal").map(Refusal.init) : nil
            self.doNotDisturbSource = try running ? reader.addedLaterWord("doNotDisturbSource") : nil
            self.doNotDisturbLastRead = try running ? reader.addedLaterWord("doNotDisturbLastRead") : nil
            self.doNotDisturbNote = running ? try reader.addedLaterString("doNotDisturbNote") : nil
        }
    }

    /// `notificationServer.lastRefusal`: when the bus last refused Daysome's own message, for which
    /// start, and in sd-bus's words.
    public struct Refusal: Sendable, Equatable {
        public var time: Instant
        public var at: Instant
        public var reason: String

        public init(time: Instant, at: Instant, reason: String) {
            self.time = time
            self.at = at
            self.reason = reason
        }

        var json: JSONValue {
            .object(
                JSONObject([
                    ("time", .string(self.time.rfc3339)), ("at", .string(self.at.rfc3339)),
                    ("reason", .string(self.reason)),
                ]))
        }

        init(_ reader: SnapshotReader) throws(SnapshotProblem) {
            self.time = try reader.instant("time")
            self.at = try reader.instant("at")
            self.reason = try reader.string("reason")
        }
    }

    /// `household`: the file, when it was loaded, its errors, and (from a running daemon) which
    /// household is in force.
    public struct HouseholdStatus: Sendable, Equatable {
        public var path: String
        public var loadedAt: Instant?
        public var items: Int
        /// The zone name as the household gives it, written only by a running daemon.
        public var timeZone: String?
        /// The first `ProblemCap.status` problems.
        public var errors: [HouseholdProblem]
        /// How many problems there are in all, listed or not: `errors.count` unless capped.
        public var errorCount: Int
        /// Which household the daemon lays from, written only by a running daemon; nil for none.
        public var inForce: InForce?

        public init(
            path: String, loadedAt: Instant?, items: Int, timeZone: String? = nil, errors: [HouseholdProblem],
            errorCount: Int? = nil, inForce: InForce? = nil
        ) {
            self.path = path
            self.loadedAt = loadedAt
            self.items = items
            self.timeZone = timeZone
            self.errors = errors
            self.errorCount = max(errorCount ?? errors.count, errors.count)
            self.inForce = inForce
        }

        func json(running: Bool) -> JSONValue {
            var members: [(key: String, value: JSONValue)] = [
                ("path", .string(self.path)), ("loadedAt", .stringOrNull(self.loadedAt?.rfc3339)),
                ("items", .number(Double(self.items))),
            ]
            if running { members.append(("timeZone", .stringOrNull(self.timeZone))) }
            members.append(("errors", .array(self.errors.map(\.json))))
            members.append(("errorCount", .number(Double(self.errorCount))))
            if running { members.append(("inForce", self.inForce?.json ?? .null)) }
            return .object(JSONObject(members))
        }

        init(_ reader: SnapshotReader, running: Bool) throws(SnapshotProblem) {
            self.path = try reader.string("path")
            self.loadedAt = try reader.optionalInstant("loadedAt")
            self.items = try reader.int("items")
            self.timeZone = running ? try reader.optionalString("timeZone") : nil
            self.errors = try reader.array("errors").enumerated().map { index, error throws(SnapshotProblem) in
                try HouseholdProblem(try SnapshotReader(error, reader.path + ".errors[\(index)]"))
            }
            // Added after 0.1.0: a daemon that an upgrade has not restarted lists every problem.
            self.errorCount = try reader.has("errorCount") ? reader.int("errorCount") : self.errors.count
            self.inForce = try running ? reader.optionalObject("inForce").map(InForce.init) : nil
        }
    }

    /// `household.inForce`: the file itself, or the daemon's kept copy of the last good one (rule 9).
    public struct InForce: Sendable, Equatable {
        public enum Source: String, Sendable {
            case file, keptCopy
        }

        public var source: Source
        public var path: String
        public var since: Instant

        public init(source: Source, path: String, since: Instant) {
            self.source = source
            self.path = path
            self.since = since
        }

        var json: JSONValue {
            .object(
                JSONObject([
                    ("source", .string(self.source.rawValue)), ("path", .string(self.path)),
                    ("since", .string(self.since.rfc3339)),
                ]))
        }

        init(_ reader: SnapshotReader) throws(SnapshotProblem) {
            self.source = try reader.word("source", as: Source.self)
            self.path = try reader.string("path")
            self.since = try reader.instant("since")
        }
    }

    /// `nextStart`: the first start still laid.
    public struct NextStart: Sendable, Equatable {
        public var at: Instant
        public var title: String

        public init(at: Instant, title: String) {
            self.at = at
            self.title = title
        }

        var json: JSONValue { .object(JSONObject([("at", .string(self.at.rfc3339)), ("title", .string(self.title))])) }
    }

    /// `chime`: whether the household wants the bell, and what would play it.
    public struct Chime: Sendable, Equatable {
        public var on: Bool
        public var player: String?
        public var file: String?

        public init(on: Bool, player: String?, file: String?) {
            self.on = on
            self.player = player
            self.file = file
        }

        var json: JSONValue {
            .object(
                JSONObject([
                    ("on", .bool(self.on)), ("player", .stringOrNull(self.player)), ("file", .stringOrNull(self.file)),
                ]))
        }

        init(_ reader: SnapshotReader) throws(SnapshotProblem) {
            self.on = try reader.bool("on")
            self.player = try reader.optionalString("player")
            self.file = try reader.optionalString("file")
        }
    }

    /// `bringDayBack`: whether a click brings the display back, and by what means.
    public struct BringDayBack: Sendable, Equatable {
        public var on: Bool
        public var means: String?
        /// On, and a means found.
        public var ready: Bool

        public init(on: Bool, means: String?, ready: Bool) {
            self.on = on
            self.means = means
            self.ready = ready
        }

        var json: JSONValue {
            .object(
                JSONObject([("on", .bool(self.on)), ("means", .stringOrNull(self.means)), ("ready", .bool(self.ready))])
            )
        }

        init(_ reader: SnapshotReader) throws(SnapshotProblem) {
            self.on = try reader.bool("on")
            self.means = try reader.optionalString("means")
            self.ready = try reader.bool("ready")
        }
    }

    /// `lock`: the session's lock, what the file says, and each source the daemon watches.
    public struct Lock: Sendable, Equatable {
        /// One lock source as the daemon sees it.
        public struct Source: Sendable, Equatable {
            public var watched: Bool
            /// What it last said; nil while it has nothing to say.
            public var locked: Bool?
            /// Why it is or is not watched.
            public var detail: String?

            public init(watched: Bool, locked: Bool?, detail: String?) {
                self.watched = watched
                self.locked = locked
                self.detail = detail
            }
        }

        /// `lock.request`: logind's `Lock` request that stands, and what came of it (added after 0.2.0).
        public struct Request: Sendable, Equatable {
            /// `waiting` (inside the 2 s a locker has to answer), `answered` or `unanswered`.
            public enum State: String, Sendable {
                case waiting, answered, unanswered
            }

            public var at: Instant
            public var state: State
            /// The locker that answered it; nil unless `answered`.
            public var answeredBy: LockSource?

            public init(at: Instant, state: State, answeredBy: LockSource? = nil) {
                self.at = at
                self.state = state
                self.answeredBy = answeredBy
            }

            var json: JSONValue {
                .object(
                    JSONObject([
                        ("at", .string(self.at.rfc3339)), ("state", .string(self.state.rawValue)),
                        ("answeredBy", .stringOrNull(self.answeredBy?.rawValue)),
                    ]))
            }

            init(_ reader: SnapshotReader) throws(SnapshotProblem) {
                self.at = try reader.instant("at")
                self.state = try reader.word("state", as: State.self)
                self.answeredBy = try reader.optionalString("answeredBy").flatMap { LockSource(rawValue: $0) }
            }
        }

        public var locked: Bool
        public var fileSays: DisplayState
        /// Every source, written in `LockSource.allCases` order; each one is required when read,
        /// but for those added after 0.1.0 (a daemon an upgrade has not restarted lacks them).
        public var sources: [LockSource: Source]
        /// The source that keeps the session locked, or nil while the file decides.
        public var decidedBy: LockSource?
        /// The `Lock` request that stands, or nil.
        public var request: Request?

        public init(
            locked: Bool, fileSays: DisplayState, sources: [LockSource: Source], decidedBy: LockSource? = nil,
            request: Request? = nil
        ) {
            self.locked = locked
            self.fileSays = fileSays
            self.sources = sources
            self.decidedBy = decidedBy
            self.request = request
        }

        /// Sources a 0.1.0 daemon did not write.
        static let addedAfterFirstRelease: Set<LockSource> = [.logindLockSignal, .gnomeScreenSaver]

        var json: JSONValue {
            let sources = LockSource.allCases.compactMap { name -> (key: String, value: JSONValue)? in
                guard let source = self.sources[name] else { return nil }
                return (
                    name.rawValue,
                    .object(
                        JSONObject([
                            ("watched", .bool(source.watched)),
                            ("locked", source.locked.map { .bool($0) } ?? .null),
                            ("detail", .stringOrNull(source.detail)),
                        ]))
                )
            }
            return .object(
                JSONObject([
                    ("locked", .bool(self.locked)), ("fileSays", .string(self.fileSays.rawValue)),
                    ("sources", .object(JSONObject(sources))),
                    ("decidedBy", .stringOrNull(self.decidedBy?.rawValue ?? (self.locked ? nil : "file"))),
                    ("request", self.request?.json ?? .null),
                ]))
        }

        init(_ reader: SnapshotReader) throws(SnapshotProblem) {
            self.locked = try reader.bool("locked")
            self.fileSays = try reader.word("fileSays", as: DisplayState.self)
            let sources = try reader.object("sources")
            var read: [LockSource: Source] = [:]
            for name in LockSource.allCases {
                let later = Self.addedAfterFirstRelease.contains(name)
                guard
                    let source = later ? try sources.addedLaterObject(name.rawValue) : try sources.object(name.rawValue)
                else { continue }
                read[name] = Source(
                    watched: try source.bool("watched"), locked: try source.optionalBool("locked"),
                    detail: try source.optionalString("detail"))
            }
            self.sources = read
            let decider = try reader.addedLaterString("decidedBy")
            self.decidedBy = decider.flatMap { LockSource(rawValue: $0) }
            self.request = try reader.addedLaterObject("request").map(Request.init)
        }
    }

    /// `wakeSystem`: never asked for, and why.
    public struct WakeSystem: Sendable, Equatable {
        public var on: Bool
        public var reason: String

        /// What a daemon under a user manager says: it never asks for WakeSystem, because a user
        /// manager refuses it (EPERM, and the timer fails). Rule 4 holds for this text too.
        public static let underAUserManager = WakeSystem(
            on: false,
            reason: "a user manager refuses WakeSystem; a suspended tablet is called when it resumes, "
                + "within the grace window")

        public init(on: Bool, reason: String) {
            self.on = on
            self.reason = reason
        }

        var json: JSONValue { .object(JSONObject([("on", .bool(self.on)), ("reason", .string(self.reason))])) }

        init(_ reader: SnapshotReader) throws(SnapshotProblem) {
            self.on = try reader.bool("on")
            self.reason = try reader.string("reason")
        }
    }
}

extension HouseholdProblem {
    /// Reads one of `household.errors` back; the encoder is `json` (Start.swift), shared with `plan`.
    init(_ reader: SnapshotReader) throws(SnapshotProblem) {
        self.init(
            file: try reader.string("file"), itemId: try reader.optionalString("itemId"),
            field: try reader.optionalString("field"), message: try reader.string("message"))
    }
}
