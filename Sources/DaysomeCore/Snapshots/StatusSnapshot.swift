// The daemon's status as it crosses the process boundary: the daemon writes `status.json` with
// this type, and `daysomectl status` (text and `--json`) and `signal` read it back through the
// same type. The contract's keys (`status --json` in the design) keep their names, types and
// order; the running daemon's own keys sit where they always have. One encoder, one decoder: a
// key renamed on one side fails the other's decoding, naming the key. The nested parts are in
// StatusParts.swift.

/// What `status --json` prints and `status.json` holds.
public struct StatusSnapshot: Sendable, Equatable {
    public var pid: UInt64?
    public var display: DisplayState?
    public var lay: UInt64?
    public var backend: String?
    public var notifyInOtherApps: Bool?
    public var notificationServer: NotificationServer
    /// What a display's carer switch reads: notifications on, a server answering, a household in force.
    public var canDeliver: Bool
    public var laidUntil: Instant?
    public var nextStart: NextStart?
    public var household: HouseholdStatus
    /// The running daemon's own keys; nil in what `status` prints when no daemon runs.
    public var daemon: Daemon?

    /// Whether a daemon wrote this (`running` on the wire): it carries the daemon's own keys.
    public var running: Bool { self.daemon != nil }

    public init(
        pid: UInt64?, display: DisplayState?, lay: UInt64?, backend: String?, notifyInOtherApps: Bool?,
        notificationServer: NotificationServer, canDeliver: Bool, laidUntil: Instant?, nextStart: NextStart?,
        household: HouseholdStatus, daemon: Daemon?
    ) {
        self.pid = pid
        self.display = display
        self.lay = lay
        self.backend = backend
        self.notifyInOtherApps = notifyInOtherApps
        self.notificationServer = notificationServer
        self.canDeliver = canDeliver
        self.laidUntil = laidUntil
        self.nextStart = nextStart
        self.household = household
        self.daemon = daemon
    }

    /// What `status` says when no daemon owns the runtime directory: nothing can be delivered,
    /// in the same shape.
    public static func noDaemon(householdPath: String) -> StatusSnapshot {
        StatusSnapshot(
            pid: nil, display: nil, lay: nil, backend: nil, notifyInOtherApps: nil,
            notificationServer: NotificationServer(name: nil, present: false, capabilities: []), canDeliver: false,
            laidUntil: nil, nextStart: nil,
            household: HouseholdStatus(path: householdPath, loadedAt: nil, items: 0, errors: []), daemon: nil)
    }

    /// The running daemon's own keys, beside the contract's.
    public struct Daemon: Sendable, Equatable {
        public var notifier: String
        /// Why nothing is laid (notifications off, no household, the display in front); nil when laid.
        public var notLaidReason: String?
        /// How many starts are laid and not yet fired.
        public var pending: Int
        /// How many calls are shown and not yet withdrawn.
        public var delivered: Int
        /// Rule 2's grace window, in seconds.
        public var grace: Int
        public var displayStatePath: String
        public var runtimeDirectory: String
        public var stateDirectory: String
        public var chime: Chime
        public var bringDayBack: BringDayBack
        /// `respect` or `override`: whether a Do Not Disturb holds calls back.
        public var doNotDisturb: String
        public var lock: Lock
        public var wakeSystem: WakeSystem
        /// State files the daemon could not write, retrying; nil from a daemon older than the key.
        public var stateWriteErrors: [StateWriteError]?
        /// The display state file's unusable line, until a good one is written; nil from a daemon
        /// older than the key.
        public var displayFileProblem: DisplayFileProblem?
        /// Whether clients of the control socket wait for want of a descriptor (the daemon at its
        /// descriptor limit); nil from a daemon older than the key, or one with no control socket.
        public var controlSocketAtLimit: Bool?

        public init(
            notifier: String, notLaidReason: String?, pending: Int, delivered: Int, grace: Int,
            displayStatePath: String, runtimeDirectory: String, stateDirectory: String, chime: Chime,
            bringDayBack: BringDayBack, doNotDisturb: String, lock: Lock, wakeSystem: WakeSystem,
            stateWriteErrors: [StateWriteError]? = nil, displayFileProblem: DisplayFileProblem? = nil,
            controlSocketAtLimit: Bool? = nil
        ) {
            self.notifier = notifier
            self.notLaidReason = notLaidReason
            self.pending = pending
            self.delivered = delivered
            self.grace = grace
            self.displayStatePath = displayStatePath
            self.runtimeDirectory = runtimeDirectory
            self.stateDirectory = stateDirectory
            self.chime = chime
            self.bringDayBack = bringDayBack
            self.doNotDisturb = doNotDisturb
            self.lock = lock
            self.wakeSystem = wakeSystem
            self.stateWriteErrors = stateWriteErrors
            self.displayFileProblem = displayFileProblem
            self.controlSocketAtLimit = controlSocketAtLimit
        }
    }

    /// The contract's keys in its order, with the daemon's own where they have always been.
    public var json: JSONValue {
        let daemon = self.daemon
        var members: [(key: String, value: JSONValue)] = [
            ("running", .bool(self.running)), ("pid", .countOrNull(self.pid)),
            ("display", .stringOrNull(self.display?.rawValue)), ("lay", .countOrNull(self.lay)),
            ("backend", .stringOrNull(self.backend)),
        ]
        if let daemon { members.append(("notifier", .string(daemon.notifier))) }
        members += [
            ("notifyInOtherApps", self.notifyInOtherApps.map { .bool($0) } ?? .null),
            ("notificationServer", self.notificationServer.json(running: self.running)),
            ("canDeliver", .bool(self.canDeliver)),
        ]
        if let daemon { members.append(("notLaidReason", .stringOrNull(daemon.notLaidReason))) }
        members += [
            ("laidUntil", .stringOrNull(self.laidUntil?.rfc3339)), ("nextStart", self.nextStart?.json ?? .null),
        ]
        if let daemon {
            members += [
                ("pending", .number(Double(daemon.pending))), ("delivered", .number(Double(daemon.delivered))),
                ("grace", .number(Double(daemon.grace))),
            ]
        }
        members.append(("household", self.household.json(running: self.running)))
        if let daemon {
            members += [
                ("displayStatePath", .string(daemon.displayStatePath)),
                ("runtimeDirectory", .string(daemon.runtimeDirectory)),
                ("stateDirectory", .string(daemon.stateDirectory)), ("chime", daemon.chime.json),
                ("bringDayBack", daemon.bringDayBack.json), ("doNotDisturb", .string(daemon.doNotDisturb)),
                ("lock", daemon.lock.json), ("wakeSystem", daemon.wakeSystem.json),
            ]
            if let errors = daemon.stateWriteErrors { members.append(("stateWriteErrors", .array(errors.map(\.json)))) }
            members.append(("displayFileProblem", daemon.displayFileProblem?.json ?? .null))
            if let atLimit = daemon.controlSocketAtLimit { members.append(("controlSocketAtLimit", .bool(atLimit))) }
        }
        return .object(JSONObject(members))
    }

    /// Reads a status back; every key the encoder writes is required (the daemon's own keys when
    /// `running` is true). Keys unknown here are ignored, so an older `daysomectl` reads a newer
    /// daemon. The other way round matters after a package upgrade, when the user's daemon runs
    /// on until it restarts: a key added after 0.1.0 must be read with an `optional…` reader (nil
    /// from an older daemon), never required, or `status` fails until the daemon restarts.
    /// - Throws: `SnapshotProblem` naming the first key that is missing or of the wrong type.
    public init(json: JSONValue) throws(SnapshotProblem) {
        let reader = try SnapshotReader(json, "status")
        let running = try reader.bool("running")
        self.pid = try reader.optionalCount("pid")
        self.display = try reader.optionalString("display").map { text throws(SnapshotProblem) in
            guard let state = DisplayState(rawValue: text) else {
                throw SnapshotProblem(key: "status.display", "is neither foreground nor away")
            }
            return state
        }
        self.lay = try reader.optionalCount("lay")
        self.backend = try reader.optionalString("backend")
        self.notifyInOtherApps = try reader.optionalBool("notifyInOtherApps")
        self.notificationServer = try NotificationServer(try reader.object("notificationServer"), running: running)
        self.canDeliver = try reader.bool("canDeliver")
        self.laidUntil = try reader.optionalInstant("laidUntil")
        self.nextStart = try reader.optionalObject("nextStart").map { next throws(SnapshotProblem) in
            NextStart(at: try next.instant("at"), title: try next.string("title"))
        }
        self.household = try HouseholdStatus(try reader.object("household"), running: running)
        self.daemon = running ? try Daemon(reader) : nil
    }
}

extension StatusSnapshot.Daemon {
    /// Reads the daemon's own keys from the status object itself.
    init(_ reader: SnapshotReader) throws(SnapshotProblem) {
        self.notifier = try reader.string("notifier")
        self.notLaidReason = try reader.optionalString("notLaidReason")
        self.pending = try reader.int("pending")
        self.delivered = try reader.int("delivered")
        self.grace = try reader.int("grace")
        self.displayStatePath = try reader.string("displayStatePath")
        self.runtimeDirectory = try reader.string("runtimeDirectory")
        self.stateDirectory = try reader.string("stateDirectory")
        self.chime = try StatusSnapshot.Chime(try reader.object("chime"))
        self.bringDayBack = try StatusSnapshot.BringDayBack(try reader.object("bringDayBack"))
        self.doNotDisturb = try reader.string("doNotDisturb")
        self.lock = try StatusSnapshot.Lock(try reader.object("lock"))
        self.wakeSystem = try StatusSnapshot.WakeSystem(try reader.object("wakeSystem"))
        // Added after 0.1.0: optional, so a newer daysomectl reads a daemon started before the upgrade.
        self.stateWriteErrors = try reader.optionalStateWriteErrors("stateWriteErrors")
        self.displayFileProblem = try reader.addedLaterObject("displayFileProblem").map(DisplayFileProblem.init)
        self.controlSocketAtLimit =
            reader.has("controlSocketAtLimit") ? try reader.optionalBool("controlSocketAtLimit") : nil
    }
}

extension JSONValue {
    /// A string, or null for nil.
    static func stringOrNull(_ text: String?) -> JSONValue { text.map { .string($0) } ?? .null }

    /// A count as a number, or null for nil.
    static func countOrNull(_ count: UInt64?) -> JSONValue { count.map { .number(Double($0)) } ?? .null }
}
