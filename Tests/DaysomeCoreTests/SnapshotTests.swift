// What crosses the process boundary (the queue the daemon publishes and `daysomectl` reads, the
// history lines) goes through one type with one encoder and one decoder: it reads back the same,
// and a key renamed on either side fails the round trip instead of reading as nothing.

import DaysomeCore
import Testing

/// Every variant of `json` with exactly one object key renamed, with the key's path.
func renamedKeys(_ json: JSONValue, at path: String = "") -> [(path: String, json: JSONValue)] {
    switch json {
    case .object(let object):
        var variants: [(String, JSONValue)] = []
        for (index, member) in object.members.enumerated() {
            var renamed = object.members
            renamed[index] = (member.key + "Renamed", member.value)
            variants.append((path + "." + member.key, .object(JSONObject(renamed))))
            for (inner, value) in renamedKeys(member.value, at: path + "." + member.key) {
                var nested = object.members
                nested[index] = (member.key, value)
                variants.append((inner, .object(JSONObject(nested))))
            }
        }
        return variants
    case .array(let elements):
        // The first element stands for all: they share one encoder.
        guard let first = elements.first else { return [] }
        return renamedKeys(first, at: path + "[0]").map { inner, value in
            (inner, .array([value] + elements.dropFirst()))
        }
    default:
        return []
    }
}

private let aQueue = QueueSnapshot(
    backend: "wheel", display: .away, lay: 12, daemonRunning: true,
    publisher: QueueSnapshot.Publisher(pid: 4242, timeZone: "Europe/London"),
    pending: [
        QueueSnapshot.Entry(
            lay: 12, at: instant("2026-12-01T13:00:00Z"), local: "2026-12-01T13:00:00+00:00",
            itemIds: ["lunch", "pills"], title: "Lunch and Pills", handle: "wheel:7",
            expiresAt: instant("2026-12-01T13:45:00Z")),
        QueueSnapshot.Entry(
            lay: 12, at: instant("2026-12-01T16:00:00Z"), local: "2026-12-01T16:00:00+00:00", itemIds: ["tea"],
            title: "Tea", handle: "wheel:8", expiresAt: instant("2026-12-01T17:00:00Z")),
    ])

@Suite("Snapshots across the process boundary")
struct SnapshotTests {
    @Test("The queue the daemon publishes reads back the same through the type daysomectl reads it with")
    func queueRoundTrip() throws {
        #expect(try QueueSnapshot(json: aQueue.json) == aQueue)
        #expect(try QueueSnapshot(json: JSONParser.parse(aQueue.json.serialized(pretty: true))) == aQueue)
        // What pending builds from the manager alone: no publisher, no expiry, nothing laid.
        let managerOnly = QueueSnapshot(
            backend: "systemd", display: nil, lay: nil, daemonRunning: false, publisher: nil,
            pending: [
                QueueSnapshot.Entry(
                    lay: nil, at: instant("2026-12-01T13:00:00Z"), local: "2026-12-01T13:00:00Z", itemIds: [],
                    title: "(belongs to no current lay)", handle: "daysome-lay3.timer")
            ])
        #expect(try QueueSnapshot(json: managerOnly.json) == managerOnly)
    }

    @Test("The queue written one entry at a time is byte for byte the queue written whole, empty or not")
    func queueWrittenInPiecesIsTheSameBytes() {
        let empty = QueueSnapshot(
            backend: "wheel", display: .foreground, lay: nil, daemonRunning: true,
            publisher: QueueSnapshot.Publisher(pid: 1, timeZone: nil), pending: [])
        let odd = QueueSnapshot(
            backend: "systemd", display: nil, lay: nil, daemonRunning: false, publisher: nil,
            pending: [
                QueueSnapshot.Entry(
                    lay: nil, at: instant("2026-12-01T13:00:00Z"), local: "2026-12-01T13:00:00Z", itemIds: [],
                    title: "Tea \"and\" cake\\ \u{1}\u{85}\u{2028} é 土曜日", handle: "daysome-lay3.timer"),
                QueueSnapshot.Entry(
                    lay: 9_007_199_254_740_992, at: instant("2026-12-01T14:00:00Z"),
                    local: "2026-12-01T14:00:00+00:00", itemIds: ["a\nb"], title: "", handle: "wheel:1"),
            ])
        // A local time the daemon keeps unformatted is written as its text would be.
        let held = QueueSnapshot(
            backend: "wheel", display: .away, lay: 2, daemonRunning: true, publisher: nil,
            pending: [
                QueueSnapshot.Entry(
                    lay: 2, at: instant("2026-10-25T01:30:00Z"),
                    local: Zone(name: "UTC", rules: .utc).local(instant("2026-10-25T01:30:00Z")),
                    itemIds: ["tea"], title: "Tea", handle: "wheel:7", expiresAt: instant("2026-10-25T02:00:00Z"))
            ])
        #expect(held.pending[0].local == "2026-10-25T01:30:00+00:00")
        for queue in [aQueue, empty, odd, held] {
            #expect(queue.serialized == queue.json.serialized(pretty: true) + "\n")
            // Handed over in pieces of any size, the same bytes in the same order.
            for size in [1, 7, 300, Int.max] {
                var pieces: [UInt8] = []
                queue.serialize(inPiecesOf: size) { pieces += $0 }
                #expect(pieces == queue.serializedBytes, "pieces of \(size) bytes")
            }
        }
    }

    @Test("The queue keeps the contract's keys in the contract's order")
    func queueKeysAreTheContracts() {
        #expect(
            aQueue.json.objectValue?.keys == [
                "backend", "display", "lay", "daemonRunning", "pid", "timeZone", "pending",
            ])
        #expect(
            aQueue.json.objectValue?["pending"]?.arrayValue?.first?.objectValue?.keys
                == ["lay", "at", "local", "itemIds", "title", "handle", "expiresAt"])
    }

    @Test("A key renamed on either side of the queue fails the round trip, and a required one is named")
    func renamedQueueKeysFail() {
        let variants = renamedKeys(aQueue.json)
        #expect(variants.count == 7 + 7)
        for (path, json) in variants {
            do {
                let read = try QueueSnapshot(json: json)
                #expect(read != aQueue, "renaming \(path) went unnoticed")
            } catch {
                #expect(path.hasSuffix(String(error.key.split(separator: ".").last ?? "")), "\(path): \(error)")
            }
        }
    }

    @Test("A history line reads back the same, and a key renamed on either side fails the round trip")
    func historyRoundTripAndRenamedKeys() throws {
        let record = HistoryRecord(
            time: instant("2026-12-01T13:00:01Z"), event: .delivered, lay: 12, at: instant("2026-12-01T13:00:00Z"),
            itemIds: ["lunch"], reason: "2 s after its minute, within the grace window")
        #expect(try HistoryRecord(json: record.json) == record)
        // A laid line has no start, no items and no reason: a renamed key must still be noticed.
        let laid = HistoryRecord(time: instant("2026-12-01T08:00:00Z"), event: .laid, lay: 12)
        #expect(try HistoryRecord(json: laid.json) == laid)
        for sample in [record, laid] {
            let variants = renamedKeys(sample.json)
            #expect(variants.count == 6)
            for (path, json) in variants {
                #expect(throws: SnapshotProblem(key: "history" + path, "is missing"), "renaming \(path)") {
                    try HistoryRecord(json: json)
                }
            }
        }
        // The line as every daemon has written it: an encoder-side rename fails here.
        let line = #"{"time":"2026-12-01T08:00:00Z","event":"laid","lay":12,"at":null,"itemIds":[],"reason":null}"#
        #expect(try HistoryRecord(json: JSONParser.parse(line)) == laid)
        #expect(laid.json.serialized() == line)
    }

    @Test("history --json reads back the same, and a key renamed in a line is named with its line")
    func historyOutputRoundTrip() throws {
        let snapshot = HistorySnapshot(history: [
            HistoryRecord(time: instant("2026-12-01T08:00:00Z"), event: .laid, lay: 12),
            HistoryRecord(
                time: instant("2026-12-01T13:00:00Z"), event: .delivered, lay: 12, at: instant("2026-12-01T13:00:00Z"),
                itemIds: ["lunch"]),
        ])
        #expect(try HistorySnapshot(json: snapshot.json) == snapshot)
        #expect(snapshot.json.objectValue?.keys == ["history"])
        let variants = renamedKeys(snapshot.json)
        #expect(variants.count == 1 + 6)
        #expect(throws: SnapshotProblem(key: "historyOutput.history", "is missing")) {
            try HistorySnapshot(json: variants[0].json)
        }
        #expect(throws: SnapshotProblem(key: "history[0].reason", "is missing")) {
            try HistorySnapshot(json: variants[6].json)
        }
    }

    @Test("A queue with a value of the wrong type is refused, naming its key")
    func wrongTypesAreNamed() throws {
        // A later duplicate key wins when read, as in the daemon's own parser.
        var object = try #require(aQueue.json.objectValue)
        object.members.append(("lay", .number(1e300)))
        #expect(throws: SnapshotProblem(key: "queue.lay", "is neither a whole number nor null")) {
            try QueueSnapshot(json: .object(object))
        }
        object.members.append(("lay", .number(12)))
        object.members.append(("display", .string("sideways")))
        #expect(throws: SnapshotProblem(key: "queue.display", "is neither foreground nor away")) {
            try QueueSnapshot(json: .object(object))
        }
    }
}

@Suite("The control protocol, one type per direction")
struct ControlMessageTests {
    @Test("The printed queue is read back whole, and an answer cut short or of another kind is not")
    func printedQueueIsReadBackWholeOrNotAtAll() {
        let text = "{\n  \"backend\": \"systemd\",\n  \"pending\": []\n}\n"
        // What the daemon sends: the answer and the newline the control socket adds to each.
        let sent = Array((PrintedQueue.answer(text) + "\n").utf8)
        #expect(PrintedQueue.text(of: sent) == Array(text.utf8))
        for cut in 1..<sent.count { #expect(PrintedQueue.text(of: Array(sent.dropLast(cut))) == nil, "cut \(cut)") }
        #expect(PrintedQueue.text(of: Array("timers []\n".utf8)) == nil)
        #expect(PrintedQueue.text(of: Array("queue x\n{}\n".utf8)) == nil)
    }

    @Test("The reader stops at a whole answer, and at no byte before it")
    func aPrintedQueueIsWholeAtItsLastByteAndNotBefore() {
        let text = "{\n  \"backend\": \"systemd\",\n  \"pending\": []\n}\n"
        let sent = Array((PrintedQueue.answer(text) + "\n").utf8)
        #expect(PrintedQueue.isWhole(sent))
        for cut in 1...sent.count { #expect(!PrintedQueue.isWhole(Array(sent.dropLast(cut))), "cut \(cut)") }
        // Another answer is one line; a `queue` line that is not a count is whole at its newline.
        #expect(PrintedQueue.isWhole(Array("timers []\n".utf8)))
        #expect(!PrintedQueue.isWhole(Array("timers []".utf8)))
        #expect(!PrintedQueue.isWhole(Array("que".utf8)))
        #expect(PrintedQueue.isWhole(Array("queue x\n".utf8)))
        #expect(PrintedQueue.isWhole(Array("error: refused\n".utf8)))
    }

    @Test("Every control request and fire reply reads back the same through the type both sides use")
    func roundTrips() {
        for request in [
            ControlRequest.fire(lay: 0), .fire(lay: 9_007_199_254_740_992), .tryCall, .ping, .pending, .pendingPrinted,
        ] {
            #expect(ControlRequest(line: request.line) == request)
        }
        let replies: [FireReply] = [
            .delivered, .alreadyDelivered(at: instant("2026-12-01T13:00:00Z")), .nothingDue(lay: 7), .unknownRequest,
        ]
        for reply in replies { #expect(FireReply(line: reply.line) == reply) }
        #expect(
            FireReply.alreadyDelivered(at: instant("2026-12-01T13:00:00Z")).line
                == "already delivered at its minute (2026-12-01T13:00:00Z)")
    }

    @Test("The manager's timers relayed for pending read back the same, next elapses exact to the microsecond")
    func managerTimersRoundTrip() {
        let timers = ManagerTimers(units: [
            ManagerTimers.Unit(
                name: "daysome-lay3.timer", activeState: "active",
                entries: [
                    ManagerTimers.Entry(
                        base: "OnCalendar", spec: "2026-12-01 13:00:00 UTC", nextElapse: 1_796_130_000_000_001),
                    ManagerTimers.Entry(base: "OnCalendar", spec: "*-*-* 00/2:00:00 UTC", nextElapse: UInt64.max),
                    ManagerTimers.Entry(base: "OnCalendar", spec: "\"quoted\"\n", nextElapse: 0),
                ]),
            ManagerTimers.Unit(name: "daysome-lay4-2.timer", activeState: "inactive", entries: []),
        ])
        #expect(!timers.line.contains("\n"))
        #expect(ManagerTimers(line: timers.line) == timers)
        #expect(ManagerTimers(line: ManagerTimers(units: []).line) == ManagerTimers(units: []))
    }

    @Test("A relay answer that is not the manager's timers is refused, so pending asks the manager itself")
    func otherRelayAnswersAreRefused() {
        let good = ManagerTimers(units: [
            ManagerTimers.Unit(
                name: "daysome-lay3.timer", activeState: "active",
                entries: [ManagerTimers.Entry(base: "OnCalendar", spec: "2026-12-01 13:00:00 UTC", nextElapse: 1)])
        ]).line
        for line in [
            "", "error: unknown request", "error: not the systemd backend", "timers", "timers {}", "timers [1]",
            String(good.dropLast()), good.replacing("\"1\"", with: "1"),
            good.replacing("\"1\"", with: "\"-1\""), "pong",
        ] {
            #expect(ManagerTimers(line: line) == nil, "\(line)")
        }
    }

    @Test("A request or reply worded otherwise is refused, never guessed at")
    func otherWordsAreRefused() {
        for line in ["", "fire", "fire x", "fire 1 2", "fire -1", "Fire 1", "try ", "fires 1", "pending ", "Pending"] {
            #expect(ControlRequest(line: line) == nil, "\(line)")
        }
        for line in ["Delivered", "already delivered at its minute (soon)", "nothing due for lay x", "ok"] {
            #expect(FireReply(line: line) == nil, "\(line)")
        }
    }
}
