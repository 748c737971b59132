// Whether a published queue's bytes can be printed as they are, decided in one skim: the shape
// `QueueSnapshot(json:)` requires (every key it reads, each holding the kind of value it reads)
// and the backend asked for. `pending --json` on the wheel prints the daemon's file this way; a
// file that does not pass is read the long way, which names what is wrong with it.

extension QueueSnapshot {
    /// Whether `bytes` are one JSON object holding each key the queue's decoder requires, every
    /// entry of `pending` an object holding each key an entry requires, each with the kind of value
    /// the decoder reads (a string, a count or null, a boolean, a list), and `backend` the string
    /// `backend`. The values themselves (an instant's text, a count's size) are the encoder's:
    /// `QueueSnapshot(json:)` checks those too.
    public static func hasShape(_ bytes: [UInt8], backend: String) -> Bool {
        let wanted = Array("\"\(backend)\"".utf8)
        return bytes.withUnsafeBufferPointer { buffer in
            var shape = QueueShapeCheck(bytes: buffer, backend: wanted)
            return JSONSkim.isWellFormed(buffer) { shape.see($0) } && shape.whole
        }
    }
}

/// The keys a queue needs, met as the skim goes.
private struct QueueShapeCheck {
    /// A key and the first bytes its value may start with.
    struct Key {
        let name: StaticString
        let starts: StaticString
    }

    static let top: [Key] = [
        Key(name: "backend", starts: "\""), Key(name: "display", starts: "\"n"),
        Key(name: "lay", starts: "n0123456789"), Key(name: "daemonRunning", starts: "tf"),
        Key(name: "pending", starts: "["),
    ]
    static let entry: [Key] = [
        Key(name: "lay", starts: "n0123456789"), Key(name: "at", starts: "\""), Key(name: "local", starts: "\""),
        Key(name: "itemIds", starts: "["), Key(name: "title", starts: "\""), Key(name: "handle", starts: "\""),
    ]

    let bytes: UnsafeBufferPointer<UInt8>
    let backend: [UInt8]
    var topSeen = 0
    var entrySeen = 0
    /// Whether the member open at depth 1 is `pending`.
    var inPending = false
    var whole = false

    mutating func see(_ event: JSONSkim.Event) -> Bool {
        switch event {
        case .value(depth: 0, _, let at): return self.bytes[at] == UInt8(ascii: "{")
        case .value(depth: 1, let key?, let at):
            self.inPending = self.matches(key, "pending")
            if self.matches(key, "backend") && !self.holds(self.backend, at: at) { return false }
            return self.met(key, at: at, among: Self.top, in: &self.topSeen)
        case .value(depth: 2, nil, let at) where self.inPending:
            self.entrySeen = 0
            return self.bytes[at] == UInt8(ascii: "{")
        case .value(depth: 3, let key?, let at) where self.inPending:
            return self.met(key, at: at, among: Self.entry, in: &self.entrySeen)
        case .close(depth: 2) where self.inPending: return self.entrySeen == (1 << Self.entry.count) - 1
        case .close(depth: 0):
            self.whole = self.topSeen == (1 << Self.top.count) - 1
            return self.whole
        default: return true
        }
    }

    /// Marks `key` seen in `seen` when it is one of `keys` and its value starts as that key's may;
    /// false when it is one of them and its value does not.
    private func met(_ key: Range<Int>, at: Int, among keys: [Key], in seen: inout Int) -> Bool {
        guard let position = keys.firstIndex(where: { self.matches(key, $0.name) }) else { return true }
        let starts = keys[position].starts
        let first = self.bytes[at]
        guard UnsafeBufferPointer(start: starts.utf8Start, count: starts.utf8CodeUnitCount).contains(first) else {
            return false
        }
        seen |= 1 << position
        return true
    }

    private func matches(_ key: Range<Int>, _ name: StaticString) -> Bool {
        key.count == name.utf8CodeUnitCount
            && UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount).elementsEqual(
                UnsafeBufferPointer(rebasing: self.bytes[key]))
    }

    private func holds(_ text: [UInt8], at: Int) -> Bool {
        at + text.count <= self.bytes.count
            && UnsafeBufferPointer(rebasing: self.bytes[at..<(at + text.count)]).elementsEqual(text)
    }
}
