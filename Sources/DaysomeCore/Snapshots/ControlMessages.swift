// The control socket's protocol, one line each way, as one type per direction: the daemon reads
// requests and writes replies with these, and `daysomectl fire` and `try` write requests and
// read replies with the same ones, so neither side can drift from the other.

/// What a client asks the daemon.
public enum ControlRequest: Sendable, Equatable {
    /// A systemd timer of lay N fired (`daysomectl fire --lay N`): deliver what is due.
    case fire(lay: UInt64)
    /// A carer asks for one sample call now (`daysomectl try`).
    case tryCall
    /// Answered at once with `pong`: how long the loop takes to get to a client, measured from
    /// outside (a loop that waits on a peer answers late).
    case ping
    /// `daysomectl pending` on the systemd backend: the daemon asks the manager for its daysome-
    /// timers over the connection it holds, and answers with what the manager said
    /// (`ManagerTimers.line`), once the manager's replies came.
    case pending
    /// `daysomectl pending --json` on the systemd backend: the daemon joins what the manager said
    /// with its own lay record and answers with what `pending --json` prints (`PrintedQueue`), or,
    /// when that is too long for one answer, as `pending` is answered.
    case pendingPrinted

    /// The request's line, without its newline: `fire 12`, `try`.
    public var line: String {
        switch self {
        case .fire(let lay): return "fire \(lay)"
        case .tryCall: return "try"
        case .ping: return "ping"
        case .pending: return "pending"
        case .pendingPrinted: return "pending --json"
        }
    }

    /// Reads a request line; nil for anything else.
    public init?(line: String) {
        switch line {
        case "try":
            self = .tryCall
            return
        case "ping":
            self = .ping
            return
        case "pending":
            self = .pending
            return
        case "pending --json":
            self = .pendingPrinted
            return
        default: break
        }
        let words = line.split(separator: " ", omittingEmptySubsequences: false)
        guard words.count == 2, words[0] == "fire", let lay = UInt64(words[1]) else { return nil }
        self = .fire(lay: lay)
    }
}

/// What the daemon answers a fire.
public enum FireReply: Sendable, Equatable {
    /// The start that was due has been posted now.
    case delivered
    /// With exact alarms the daemon called at the minute itself, before the manager's fire.
    case alreadyDelivered(at: Instant)
    /// Nothing of that lay was due (an older lay, the display in front, or already handled).
    case nothingDue(lay: UInt64)
    /// The daemon could not read the request.
    case unknownRequest

    public var line: String {
        switch self {
        case .delivered: return "delivered"
        case .alreadyDelivered(let at): return "already delivered at its minute (\(at.rfc3339))"
        case .nothingDue(let lay): return "nothing due for lay \(lay)"
        case .unknownRequest: return "error: unknown request"
        }
    }

    /// Reads a reply line; nil for a line no daemon of this version writes.
    public init?(line: String) {
        let alreadyPrefix = "already delivered at its minute ("
        let nothingPrefix = "nothing due for lay "
        if line == "delivered" {
            self = .delivered
        } else if line == "error: unknown request" {
            self = .unknownRequest
        } else if line.hasPrefix(alreadyPrefix), line.hasSuffix(")"),
            let at = parseUTC(String(line.dropFirst(alreadyPrefix.count).dropLast()))
        {
            self = .alreadyDelivered(at: at)
        } else if line.hasPrefix(nothingPrefix), let lay = UInt64(line.dropFirst(nothingPrefix.count)) {
            self = .nothingDue(lay: lay)
        } else {
            return nil
        }
    }
}

/// The daemon's answer to `pending --json`: `queue <byte count>` and a newline, then the bytes
/// `pending --json` prints. The count tells a whole answer from one cut short.
public enum PrintedQueue {
    /// The longest text sent this way: one send on the client's empty socket takes it whole (a
    /// dense week's 2.5 MB would not), and daysomectl joins a longer queue itself.
    public static let limit = 64 * 1024

    /// The answer holding `text`.
    public static func answer(_ text: String) -> String { "queue \(text.utf8.count)\n" + text }

    /// Whether `reply`, read so far, is a whole answer: the count's bytes and the closing newline
    /// after a `queue` line, or the one line of any other answer. The reader stops there rather
    /// than waiting for the daemon to close.
    public static func isWhole(_ reply: [UInt8]) -> Bool {
        let header = "queue ".utf8
        guard reply.starts(with: header) else {
            // Not yet enough bytes to tell a `queue` line from another: read on.
            if reply.count < header.count && header.starts(with: reply) { return false }
            return reply.contains(0x0A)
        }
        guard let newline = reply.firstIndex(of: 0x0A) else { return false }
        guard let count = Int(String(decoding: reply[header.count..<newline], as: UTF8.self)) else { return true }
        return reply.count - (newline + 1) >= count + 1
    }

    /// The text in `reply`, read whole (`isWhole`; the control socket ends each answer with a
    /// newline of its own); nil for any other reply, or one cut short.
    public static func text(of reply: [UInt8]) -> [UInt8]? {
        let header = Array("queue ".utf8)
        guard reply.starts(with: header), let newline = reply.firstIndex(of: 0x0A),
            let count = Int(String(decoding: reply[header.count..<newline], as: UTF8.self))
        else { return nil }
        let body = reply[(newline + 1)...]
        guard body.count == count + 1, body.last == 0x0A else { return nil }
        return Array(body.dropLast())
    }
}
