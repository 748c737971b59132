// One start of a lay: the instant a call is due, and everything shown for it.

/// A distinct instant at which at least one laid item starts, with the call's content.
public struct Start: Sendable, Equatable {
    /// When the call is due.
    public let at: Instant
    /// The local wall time of `at` in the household's zone.
    public let local: LocalDateTime
    /// The ids of the items starting then, in file order.
    public let itemIds: [String]
    /// The display's top line: `Friday afternoon`, or in the household's words `Freitagnachmittag`.
    public let heading: String
    /// The labels, joined as English lists are, or by the household's list patterns.
    public let title: String
    /// The details for that date, or the clock time where none has one.
    public let body: String
    /// When the card would leave the display: the notification is closed then.
    public let expiresAt: Instant
    /// Where rule 8 had to decide for an item's time.
    public let dst: DSTDecision?

    public init(
        at: Instant, local: LocalDateTime, itemIds: [String], heading: String, title: String, body: String,
        expiresAt: Instant, dst: DSTDecision?
    ) {
        self.at = at
        self.local = local
        self.itemIds = itemIds
        self.heading = heading
        self.title = title
        self.body = body
        self.expiresAt = expiresAt
        self.dst = dst
    }
}

/// What a lay made at `from` contains: the starts with `from < at <= until`.
public struct Plan: Sendable, Equatable {
    /// The household's zone name, as given.
    public let timeZone: String
    public let from: Instant
    public let until: Instant
    public let starts: [Start]
    /// Why nothing is laid, when that is so for a reason other than an empty week (rule 7).
    public let notLaidReason: String?
}

extension Start {
    /// The contract's JSON object for one start (`dst` absent, not null, when rule 8 had nothing to decide).
    public var json: JSONValue {
        var members: [(key: String, value: JSONValue)] = [
            ("at", .string(self.at.rfc3339)),
            ("local", .string(self.local.rfc3339)),
            ("itemIds", .array(self.itemIds.map { .string($0) })),
            ("heading", .string(self.heading)),
            ("title", .string(self.title)),
            ("body", .string(self.body)),
            ("expiresAt", .string(self.expiresAt.rfc3339)),
        ]
        if let dst { members.append(("dst", .string(dst.rawValue))) }
        return .object(JSONObject(members))
    }
}

extension Plan {
    /// The contract's `plan --json` object, with `notifyInOtherApps` and `reason` added when nothing is laid.
    public func json(problems: [HouseholdProblem] = []) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = [
            ("timeZone", .string(self.timeZone)),
            ("from", .string(self.from.rfc3339)),
            ("until", .string(self.until.rfc3339)),
            ("starts", .array(self.starts.map(\.json))),
            ("notifyInOtherApps", .bool(self.notLaidReason == nil)),
        ]
        if let reason = self.notLaidReason { members.append(("reason", .string(reason))) }
        members.append(("errors", .array(problems.map(\.json))))
        return .object(JSONObject(members))
    }
}

extension HouseholdProblem {
    /// `{ "file", "itemId", "field", "message" }` as `status --json` lists errors.
    public var json: JSONValue {
        .object(
            JSONObject([
                ("file", .string(self.file)),
                ("itemId", self.itemId.map { .string($0) } ?? .null),
                ("field", self.field.map { .string($0) } ?? .null),
                ("message", .string(self.message)),
            ]))
    }
}
