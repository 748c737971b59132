// The skim holds a text to the parser's grammar: whatever the parser refuses the skim refuses,
// so `pending --json` never prints as JSON what the long way would have refused. And a queue's
// shape is every key its decoder reads, each with the kind of value it reads.

import DaysomeCore
import Testing

private func skims(_ bytes: [UInt8], maxDepth: Int = 64) -> Bool {
    bytes.withUnsafeBufferPointer { JSONSkim.isWellFormed($0, maxDepth: maxDepth) }
}

private func parses(_ bytes: [UInt8], maxDepth: Int = 64) -> Bool {
    (try? JSONParser.parse(bytes, maxDepth: maxDepth)) != nil
}

@Suite struct JSONSkimTests {
    @Test(arguments: [
        "0", "-0", "1.5e-3", "true", "false", "null", "\"\"", "\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\\u00e9\\uD83D\\uDE00\"",
        "[]", "{}", " [ 1 , { \"a\" : [ ] } ] ", "{\"a\":1,\"a\":2}", "\u{FEFF}[1]", "\"\u{7F}\u{80}\u{10FFFF}\"",
        "01", "-01", "1.", "1e", "1e+", "-", "+1", ".5", "NaN", "0x10", "1.5.3", "[1x]", "[1,]", "{\"a\":1,}",
        "{\"a\"}", "{\"a\" 1}", "{1:2}", "[", "]", "{", "\"abc", "\"\\x\"", "\"\\u12\"", "\"\\u12G4\"", "tru",
        "nul", "[true false]", "", " ", "\"a\u{01}b\"", "[1]]", "{}{}", "\u{0B}1", "[\u{0C}]",
    ])
    func theSkimAcceptsExactlyWhatTheParserAccepts(text: String) {
        let bytes = Array(text.utf8)
        #expect(skims(bytes) == parses(bytes), "\(text.debugDescription)")
    }

    @Test func illFormedUTF8IsRefused() {
        for bytes: [UInt8] in [
            [0x22, 0xC0, 0xAF, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22], [0x22, 0xFF, 0x22], [0x22, 0xE2, 0x82],
        ] {
            #expect(!skims(bytes) && !parses(bytes))
        }
    }

    @Test func theDepthLimitIsTheParsers() {
        let deep = Array(String(repeating: "[", count: 10).utf8) + Array(String(repeating: "]", count: 10).utf8)
        for limit in [0, 9, 10, 11] {
            #expect(skims(deep, maxDepth: limit) == parses(deep, maxDepth: limit), "limit \(limit)")
        }
    }

    @Test(arguments: ["1e400", "-1e400", "[1, 2e999]", "1e+310", "5e324", "1e-400", "1e308", "4.9e-324"])
    func aNumberIsJudgedByWhetherADoubleHoldsItAsTheParserJudgesIt(text: String) {
        #expect(skims(Array(text.utf8)) == parses(Array(text.utf8)), "\(text)")
    }

    @Test func randomTextsAndTheirMutationsAreJudgedAsTheParserJudgesThem() {
        var random = SplitMix64(seed: 0x5C1A_2026)
        let alphabet = Array("{}[],:\" \\nu0-.eE1tfa\n".utf8) + [0x01, 0xC3, 0xFF]
        var agreed = 0
        for round in 0..<3_000 {
            var bytes = Array(random.value(depth: 0).serialized(pretty: round % 2 == 0).utf8)
            for _ in 0..<random.below(3) where !bytes.isEmpty {
                let at = random.below(bytes.count)
                switch random.below(3) {
                case 0: bytes.remove(at: at)
                case 1: bytes.insert(alphabet[random.below(alphabet.count)], at: at)
                default: bytes[at] = alphabet[random.below(alphabet.count)]
                }
            }
            let text = String(decoding: bytes, as: UTF8.self)
            #expect(skims(bytes) == parses(bytes), "\(text.debugDescription)")
            agreed += skims(bytes) == parses(bytes) ? 1 : 0
        }
        #expect(agreed == 3_000)
    }

    @Test func theVisitorSeesEachValueWithItsDepthAndKeyAndEachClose() {
        let bytes = Array(#"{"a":[1,{"b":2}],"c":"x"}"#.utf8)
        var seen: [String] = []
        let whole = bytes.withUnsafeBufferPointer { buffer in
            JSONSkim.isWellFormed(buffer) { event in
                switch event {
                case .value(let depth, let key, let at):
                    let name = key.map { String(decoding: buffer[$0], as: UTF8.self) } ?? "-"
                    seen.append("\(depth) \(name) \(Character(Unicode.Scalar(buffer[at])))")
                case .close(let depth): seen.append("close \(depth)")
                }
                return true
            }
        }
        #expect(whole)
        #expect(seen == ["0 - {", "1 a [", "2 - 1", "2 - {", "3 b 2", "close 2", "close 1", "1 c \"", "close 0"])
    }
}

@Suite struct QueueShapeTests {
    private static let entry = QueueSnapshot.Entry(
        lay: 3, at: Instant(seconds: 1_796_130_000), local: "2026-12-01T13:00:00+00:00", itemIds: ["lunch", "pills"],
        title: "Lunch", handle: "wheel:1", expiresAt: Instant(seconds: 1_796_132_700))
    private static let queue = QueueSnapshot(
        backend: "wheel", display: .away, lay: 3, daemonRunning: true,
        publisher: QueueSnapshot.Publisher(pid: 4242, timeZone: "Europe/London"),
        pending: [
            entry,
            QueueSnapshot.Entry(
                lay: nil, at: Instant(seconds: 1_796_140_000), local: "2026-12-01T15:46:40+00:00", itemIds: [],
                title: "Tea", handle: "wheel:2"),
        ])

    private func object(_ queue: QueueSnapshot) -> JSONObject { queue.json.objectValue ?? JSONObject() }

    private func shaped(_ json: JSONValue, backend: String = "wheel") -> Bool {
        let bytes = Array((json.serialized(pretty: true) + "\n").utf8)
        // The long way agrees wherever the shape is what the decoder reads.
        return QueueSnapshot.hasShape(bytes, backend: backend)
    }

    @Test func theQueueTheDaemonWritesHasTheShape() {
        #expect(QueueSnapshot.hasShape(Self.queue.serializedBytes, backend: "wheel"))
        var empty = Self.queue
        empty.pending = []
        #expect(QueueSnapshot.hasShape(empty.serializedBytes, backend: "wheel"))
        #expect(QueueSnapshot.hasShape(Array(Self.queue.json.serialized().utf8), backend: "wheel"))
    }

    @Test func anotherBackendsQueueDoesNotHaveTheWheelsShape() {
        #expect(!QueueSnapshot.hasShape(Self.queue.serializedBytes, backend: "systemd"))
        var systemd = Self.queue
        systemd.backend = "wheelhouse"
        #expect(!QueueSnapshot.hasShape(systemd.serializedBytes, backend: "wheel"))
    }

    @Test(arguments: ["backend", "display", "lay", "daemonRunning", "pending"])
    func aQueueWithoutAKeyItsDecoderReadsHasNoShape(key: String) {
        var object = self.object(Self.queue)
        object.members.removeAll { $0.key == key }
        #expect(!self.shaped(.object(object)))
        #expect((try? QueueSnapshot(json: .object(object))) == nil)
    }

    @Test(arguments: ["lay", "at", "local", "itemIds", "title", "handle"])
    func anEntryWithoutAKeyItsDecoderReadsHasNoShape(key: String) {
        var object = self.object(Self.queue)
        var entry = Self.entry.json.objectValue ?? JSONObject()
        entry.members.removeAll { $0.key == key }
        object.members = object.members.map {
            $0.key == "pending" ? (key: "pending", value: .array([Self.entry.json, .object(entry)])) : $0
        }
        #expect(!self.shaped(.object(object)))
        #expect((try? QueueSnapshot(json: .object(object))) == nil)
    }

    @Test(arguments: [
        ("display", JSONValue.number(1)), ("lay", .string("3")), ("daemonRunning", .null),
        ("pending", .object(JSONObject())),
        ("backend", .null),
    ])
    func aKeyHoldingTheWrongKindOfValueHasNoShape(key: String, value: JSONValue) {
        var object = self.object(Self.queue)
        object.members = object.members.map { $0.key == key ? (key: key, value: value) : $0 }
        #expect(!self.shaped(.object(object)))
        #expect((try? QueueSnapshot(json: .object(object))) == nil)
    }

    @Test func anEntryThatIsNotAnObjectHasNoShape() {
        var object = self.object(Self.queue)
        object.members = object.members.map {
            $0.key == "pending" ? (key: "pending", value: .array([Self.entry.json, .string("wheel:2")])) : $0
        }
        #expect(!self.shaped(.object(object)))
    }

    @Test func aQueueCutShortHasNoShape() {
        let bytes = Self.queue.serializedBytes
        for cut in stride(from: 0, to: bytes.count, by: 7) {
            #expect(!QueueSnapshot.hasShape(Array(bytes[..<cut]), backend: "wheel"), "cut at \(cut)")
        }
    }

    @Test func keysTheDecoderDoesNotReadAreLeftAlone() {
        var object = self.object(Self.queue)
        object.members.append((key: "addedLater", value: .array([.null])))
        #expect(self.shaped(.object(object)))
    }
}
