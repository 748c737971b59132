// The live queue as it crosses the process boundary: the daemon writes `queue.json` with this
// type, and `daysomectl pending` (text, `--json`, `--svg`, and the systemd backend's join with
// the manager's timers) reads it back through the same type. One encoder, one decoder: a key
// renamed on one side fails the other's decoding instead of silently reading nothing.

/// What `pending --json` prints and `queue.json` holds.
public struct QueueSnapshot: Sendable, Equatable {
    /// One start laid and not yet fired.
    public struct Entry: Sendable, Equatable {
        public var lay: UInt64?
        public var at: Instant
        /// The local wall time with its offset (`2026-12-01T13:00:00+00:00`), as the plan says it.
        public var local: String {
            get { self.localTime?.rfc3339 ?? self.localText }
            set {
                self.localText = newValue
                self.localTime = nil
            }
        }
        public var itemIds: [String]
        public var title: String
        /// The wheel slot (`wheel:42`) or the systemd timer unit that holds it.
        public var handle: String
        /// When its card would leave the display; the manager's read-back does not know it.
        public var expiresAt: Instant?
        /// `local` as read back, or as the daemon holds it: formatted only when written (a dense
        /// week's queue has 10,080, and a String each was a tenth of its lay).
        private var localText: String
        private var localTime: LocalDateTime?

        public init(
            lay: UInt64?, at: Instant, local: String, itemIds: [String], title: String, handle: String,
            expiresAt: Instant? = nil
        ) {
            self.lay = lay
            self.at = at
            self.localText = local
            self.localTime = nil
            self.itemIds = itemIds
            self.title = title
            self.handle = handle
            self.expiresAt = expiresAt
        }

        /// An entry whose local time is written from `local` when the queue is serialised.
        public init(
            lay: UInt64?, at: Instant, local: LocalDateTime, itemIds: [String], title: String, handle: String,
            expiresAt: Instant? = nil
        ) {
            self.init(lay: lay, at: at, local: "", itemIds: itemIds, title: title, handle: handle, expiresAt: expiresAt)
            self.localTime = local
        }

        public static func == (left: Entry, right: Entry) -> Bool {
            left.lay == right.lay && left.at == right.at && left.local == right.local && left.itemIds == right.itemIds
                && left.title == right.title && left.handle == right.handle && left.expiresAt == right.expiresAt
        }
    }

    /// The daemon's own part: which process published it, and in which zone.
    public struct Publisher: Sendable, Equatable {
        public var pid: UInt64
        public var timeZone: String?

        public init(pid: UInt64, timeZone: String?) {
            self.pid = pid
            self.timeZone = timeZone
        }
    }

    public var backend: String
    public var display: DisplayState?
    public var lay: UInt64?
    public var daemonRunning: Bool
    /// Present in what the daemon publishes; absent in what `pending` builds from the manager alone.
    public var publisher: Publisher?
    public var pending: [Entry]

    public init(
        backend: String, display: DisplayState?, lay: UInt64?, daemonRunning: Bool, publisher: Publisher?,
        pending: [Entry]
    ) {
        self.backend = backend
        self.display = display
        self.lay = lay
        self.daemonRunning = daemonRunning
        self.publisher = publisher
        self.pending = pending
    }

    /// The contract's keys, in its order, then ours.
    public var json: JSONValue { self.json(pending: .array(self.pending.map(\.json))) }

    /// The queue's object with `pending` as given: the envelope's members in the contract's order.
    private func json(pending: JSONValue) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = [
            ("backend", .string(self.backend)), ("display", self.display.map { .string($0.rawValue) } ?? .null),
            ("lay", self.lay.map { .number(Double($0)) } ?? .null), ("daemonRunning", .bool(self.daemonRunning)),
        ]
        if let publisher {
            members.append(("pid", .number(Double(publisher.pid))))
            members.append(("timeZone", publisher.timeZone.map { .string($0) } ?? .null))
        }
        members.append(("pending", pending))
        return .object(JSONObject(members))
    }

    /// `json` pretty-printed with a newline, byte for byte, written one entry at a time: the
    /// envelope with an empty list, then the list serialized into its place.
    public var serialized: String { String(decoding: self.serializedBytes, as: UTF8.self) }

    /// `serialized` as the bytes written to the file, with no copy into a String between.
    public var serializedBytes: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256 + self.pending.count * 280)
        self.serialize(inPiecesOf: Int.max) { bytes += $0 }
        return bytes
    }

    /// `serializedBytes` handed to `emit` in pieces of about `size` bytes, in order: a dense week's
    /// queue (2.5 MB) is written as it is made, through one small buffer used again and again.
    public func serialize(inPiecesOf size: Int, _ emit: (ArraySlice<UInt8>) -> Void) {
        self.serialize(
            inPiecesOf: size, count: self.pending.count, entries: { each in self.pending.forEach(each) }, emit)
    }

    /// The same bytes with the `pending` list made by `entries`, one entry at a time as it is
    /// written (this snapshot's own `pending` is not read): the daemon hands over its laid starts
    /// without first making a list of 10,080 entries. `count` only sizes the buffer.
    public func serialize(
        inPiecesOf size: Int, count: Int, entries: ((Entry) -> Void) -> Void, _ emit: (ArraySlice<UInt8>) -> Void
    ) {
        var output: [UInt8] = []
        self.json(pending: .array([])).serialize(pretty: true, depth: 0, into: &output)
        // The envelope ends `"pending": []` and its closing line: the list goes where `[]` was.
        let closing = Array("[]\n}".utf8)
        guard output.suffix(closing.count).elementsEqual(closing) else {
            var whole = self
            whole.pending = []
            entries { whole.pending.append($0) }
            return emit(Array((whole.json.serialized(pretty: true) + "\n").utf8)[...])
        }
        output.removeLast(closing.count)
        var writer = JSONByteWriter(pretty: true)
        output.reserveCapacity(size == Int.max ? 256 + count * 280 : size + 1_024)
        swap(&writer.output, &output)
        var written = 0
        withoutActuallyEscaping(emit) { emit in
            entries { entry in
                writer.append(written == 0 ? "[" : ",")
                written += 1
                writer.newline(depth: 2)
                entry.write(into: &writer)
                if writer.output.count >= size {
                    emit(writer.output[...])
                    writer.output.removeAll(keepingCapacity: true)
                }
            }
        }
        if written == 0 {
            writer.append("[]")
        } else {
            writer.newline(depth: 1)
            writer.append("]")
        }
        writer.append("\n}\n")
        emit(writer.output[...])
    }

    /// Reads a queue back; every key the encoder writes is required.
    /// - Throws: `SnapshotProblem` naming the first key that is missing or of the wrong type.
    public init(json: JSONValue) throws(SnapshotProblem) {
        let reader = try SnapshotReader(json, "queue")
        self.backend = try reader.string("backend")
        self.display = try reader.optionalString("display").map { text throws(SnapshotProblem) in
            guard let state = DisplayState(rawValue: text) else {
                throw SnapshotProblem(key: "queue.display", "is neither foreground nor away")
            }
            return state
        }
        self.lay = try reader.optionalCount("lay")
        self.daemonRunning = try reader.bool("daemonRunning")
        self.publisher =
            reader.has("pid")
            ? Publisher(pid: try reader.count("pid"), timeZone: try reader.optionalString("timeZone")) : nil
        self.pending = try reader.array("pending").enumerated().map { index, entry throws(SnapshotProblem) in
            try Entry(json: entry, at: "pending[\(index)]")
        }
    }
}

extension QueueSnapshot.Entry {
    public var json: JSONValue {
        var members: [(key: String, value: JSONValue)] = [
            ("lay", self.lay.map { .number(Double($0)) } ?? .null), ("at", .string(self.at.rfc3339)),
            ("local", .string(self.local)), ("itemIds", .array(self.itemIds.map { .string($0) })),
            ("title", .string(self.title)), ("handle", .string(self.handle)),
        ]
        if let expiresAt { members.append(("expiresAt", .string(expiresAt.rfc3339))) }
        return .object(JSONObject(members))
    }

    /// `json` pretty-printed as an element of the queue's list (depth 2), written directly: the
    /// same bytes, without a tree per entry (SnapshotTests compares the two).
    func write(into writer: inout JSONByteWriter) {
        writer.append("{\n      \"lay\": ")
        if let lay { writer.writeNumber(Double(lay)) } else { writer.append("null") }
        writer.append(",\n      \"at\": ")
        writer.writeInstant(self.at)
        writer.append(",\n      \"local\": ")
        if let localTime { writer.writeLocal(localTime) } else { writer.writeString(self.localText) }
        writer.append(",\n      \"itemIds\": ")
        if self.itemIds.isEmpty {
            writer.append("[]")
        } else {
            writer.append("[")
            for (position, id) in self.itemIds.enumerated() {
                writer.append(position == 0 ? "\n        " : ",\n        ")
                writer.writeString(id)
            }
            writer.append("\n      ]")
        }
        writer.append(",\n      \"title\": ")
        writer.writeString(self.title)
        writer.append(",\n      \"handle\": ")
        writer.writeString(self.handle)
        if let expiresAt {
            writer.append(",\n      \"expiresAt\": ")
            writer.writeInstant(expiresAt)
        }
        writer.append("\n    }")
    }

    init(json: JSONValue, at path: String) throws(SnapshotProblem) {
        let reader = try SnapshotReader(json, path)
        self.lay = try reader.optionalCount("lay")
        self.at = try reader.instant("at")
        self.localText = try reader.string("local")
        self.localTime = nil
        self.itemIds = try reader.strings("itemIds")
        self.title = try reader.string("title")
        self.handle = try reader.string("handle")
        self.expiresAt = reader.has("expiresAt") ? try reader.instant("expiresAt") : nil
    }
}
