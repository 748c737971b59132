// The daemon's control socket in its runtime directory: one line in, one line out. A fire from
// the systemd manager says `fire <lay>`; the daemon, which posts every notification itself over
// its one connection, answers what it did. Only the owner of the runtime directory (0700) can
// reach it. Each client is read without blocking on an IO source of its own, with a deadline of
// its own, so a client that says nothing never holds up the loop or another client. A request
// may be answered later from the loop (`pending`, which waits for the manager's replies): the
// client is kept, unread, until its answer or its deadline, whichever comes first; at the
// deadline it is closed unanswered and `daysomectl` asks the manager itself.
//
// At the descriptor limit `accept()` fails with EMFILE and leaves the connection queued, so the
// level-triggered listener would be ready again at once: a busy loop. As systemd's own sockets
// do, the listener is then not polled until a client closes (a descriptor is free again), or a
// short backstop timer fires (a descriptor freed elsewhere); one descriptor held in reserve is
// given up meanwhile, so the status that says so can still be written. The status says it until
// the limit has not been met for `settle` (a flood's backlog empties for a moment between clients).

import DaysomeFiles
import Glibc
import SystemdKit

/// A Unix stream socket answering one-line requests on the loop.
final class ControlSocket {
    /// The longest request read: every request is a short line (`fire 42`, `try`).
    static let lineLimit = 512
    /// How long a client has to say its line, in microseconds, before it is closed unanswered.
    static let deadline: UInt64 = 2_000_000
    /// How long the listener rests at the descriptor limit when no client closes, in microseconds.
    static let backstop: UInt64 = 500_000
    /// Clients served at once: each answers in microseconds, so 64 is far more than `daysomectl`
    /// ever needs, and a flood holds at most 64 descriptors (the limit is 1,024 by default).
    static let clientCap = 64
    /// How long the limit must not be met again before the status stops saying it, in microseconds.
    static let settle: UInt64 = 2_000_000

    private let fd: Int32
    private let path: String
    private let loop: any Loop
    /// Answers a request, at once or later from the loop, by calling its second argument once.
    private let handler: (String, @escaping (String) -> Void) -> Void
    /// Told when `atDescriptorLimit` changes: the status says it.
    private let limitChanged: () -> Void
    private var source: (any LoopSource)?
    /// The clients still saying their line, by descriptor.
    private var clients: [Int32: ControlClient] = [:]
    /// Whether clients waited that could not be accepted for want of a descriptor (EMFILE,
    /// ENFILE) within the last `settle`.
    private(set) var atDescriptorLimit = false
    /// Re-enables the listener after `backstop` while no client closed.
    private var backstopTimer: (any LoopSource)?
    /// Clears `atDescriptorLimit` once the limit was not met for `settle`; armed while `settling`.
    private var settleTimer: (any LoopSource)?
    private var settling = false
    /// /dev/null, held while descriptors are free and closed at the limit: the one descriptor the
    /// status write takes there. -1 while given up.
    private var reserve: Int32 = -1

    /// Binds `path` (replacing a stale socket: the caller holds the runtime directory's lock).
    init(
        path: String, loop: any Loop, limitChanged: @escaping () -> Void = {},
        handler: @escaping (String, @escaping (String) -> Void) -> Void
    ) throws(FileError) {
        let address = try UnixSocketAddress(path: path, operation: "bind")
        unlink(path)
        let fd = socket(
            AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw FileError(path: path, errno: errno, operation: "create socket") }
        guard address.bind(fd) == 0, listen(fd, 16) == 0 else {
            let saved = errno
            close(fd)
            throw FileError(path: path, errno: saved, operation: "listen on")
        }
        self.fd = fd
        self.path = path
        self.loop = loop
        self.handler = handler
        self.limitChanged = limitChanged
        do {
            self.source = try loop.io(fd: fd, events: .readable, description: "control") { [weak self] _ in
                self?.acceptAll()
            }
            self.backstopTimer = try loop.timer(
                clock: CLOCK_MONOTONIC, at: UInt64.max, accuracy: 10_000, description: "control-backstop"
            ) { [weak self] in
                self?.listenAgain()
            }
            try self.backstopTimer?.setEnabled(.off)
            self.settleTimer = try loop.timer(
                clock: CLOCK_MONOTONIC, at: UInt64.max, accuracy: 100_000, description: "control-settled"
            ) { [weak self] in
                self?.settled()
            }
            try self.settleTimer?.setEnabled(.off)
        } catch {
            close(fd)
            throw FileError(path: path, errno: error.rawValue, operation: "watch")
        }
        self.takeReserve()
    }

    deinit {
        self.source?.cancel()
        self.backstopTimer?.cancel()
        self.settleTimer?.cancel()
        for client in self.clients.values { client.close() }
        if self.reserve >= 0 { close(self.reserve) }
        close(self.fd)
        unlink(self.path)
    }

    /// Accepts every waiting client and gives each its own IO source and deadline, up to
    /// `clientCap` at once: a flood must never take the descriptors the daemon needs to read her
    /// return and write its state (systemd's sockets cap their connections the same way).
    private func acceptAll() {
        while true {
            guard self.clients.count < Self.clientCap else {
                // The rest wait in the listen backlog until a client is answered or times out.
                try? self.source?.setEnabled(.off)
                return
            }
            // accept4 is a GNU extension the Glibc module does not export.
            let client = accept(self.fd, nil, nil)
            guard client >= 0 else {
                switch errno {
                case EINTR, ECONNABORTED: continue
                // None waits, and a descriptor was there for it: below the limit.
                case EAGAIN: self.belowLimit()
                // EMFILE, ENFILE, and anything else that would leave the connection queued.
                default: self.restAtLimit()
                }
                return
            }
            _ = fcntl(client, F_SETFD, FD_CLOEXEC)
            // An accepted socket does not inherit the listener's O_NONBLOCK on Linux.
            _ = fcntl(client, F_SETFL, fcntl(client, F_GETFL) | O_NONBLOCK)
            self.watch(client)
            // A client writes its line as soon as it connected: most often it is there already,
            // and is answered now rather than one turn of the loop later (`pending`'s round trip).
            self.read(client)
        }
    }

    /// Reads `client` whenever it is readable, and closes it unanswered at its deadline.
    private func watch(_ client: Int32) {
        let pending = ControlClient(fd: client)
        do {
            pending.io = try self.loop.io(fd: client, events: .readable, description: "control-client") {
                [weak self] _ in
                self?.read(client)
            }
            pending.deadline = try self.loop.timer(
                clock: CLOCK_MONOTONIC, after: Self.deadline, description: "control-client-deadline"
            ) { [weak self] in
                self?.finish(client)
            }
        } catch {
            // Out of memory or descriptors in sd-event: drop this client, keep serving others.
            pending.close()
            return
        }
        self.clients[client] = pending
    }

    /// Drains what `client` has sent; answers once its line is complete.
    ///
    /// The line ends at a newline, at end of file, or at `lineLimit` bytes, as a blocking read
    /// would have ended it.
    private func read(_ client: Int32) {
        guard let pending = self.clients[client] else { return }
        var buffer = [UInt8](repeating: 0, count: Self.lineLimit)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(client, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return }
            if count < 0 {
                self.finish(client)
                return
            }
            pending.line += buffer[0..<count]
            if count == 0 || pending.line.contains(0x0A) || pending.line.count >= Self.lineLimit { break }
        }
        let request = String(decoding: pending.line.prefix(Self.lineLimit).prefix { $0 != 0x0A }, as: UTF8.self)
        // Its line is said: nothing more is read while its answer may still be coming.
        try? pending.io?.setEnabled(.off)
        self.handler(request) { [weak self, weak pending] answer in
            // Closed at its deadline meanwhile (the descriptor may be another client's now): dropped.
            guard let self, let pending, self.clients[client] === pending else { return }
            // MSG_NOSIGNAL: a client that hung up gets EPIPE dropped, never a SIGPIPE that ends the daemon.
            let bytes = Array((answer + "\n").utf8)
            _ = bytes.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            self.finish(client)
        }
    }

    /// Stops watching `client` and closes it: a descriptor free again for one that waits.
    private func finish(_ client: Int32) {
        guard let closed = self.clients.removeValue(forKey: client) else { return }
        closed.close()
        if self.atDescriptorLimit || self.clients.count == Self.clientCap - 1 { self.listenAgain() }
    }

    /// At the limit: the listener rests until a client closes or the backstop fires, and the
    /// reserve is given up so the status can say so.
    private func restAtLimit() {
        try? self.source?.setEnabled(.off)
        if let timer = self.backstopTimer { try? self.loop.rearm(timer, clock: CLOCK_MONOTONIC, after: Self.backstop) }
        try? self.backstopTimer?.setEnabled(.oneshot)
        try? self.settleTimer?.setEnabled(.off)
        self.settling = false
        if self.reserve >= 0 {
            close(self.reserve)
            self.reserve = -1
        }
        guard !self.atDescriptorLimit else { return }
        self.atDescriptorLimit = true
        self.limitChanged()
    }

    /// Polls the listener again, accepting at once what waits (or learning that none does).
    private func listenAgain() {
        try? self.backstopTimer?.setEnabled(.off)
        try? self.source?.setEnabled(.on)
        self.acceptAll()
    }

    /// A descriptor was free and no client waits: the reserve is taken back, and the status
    /// stops saying the limit once it was not met again for `settle`.
    private func belowLimit() {
        self.takeReserve()
        guard self.atDescriptorLimit, !self.settling else { return }
        self.settling = true
        if let timer = self.settleTimer { try? self.loop.rearm(timer, clock: CLOCK_MONOTONIC, after: Self.settle) }
        try? self.settleTimer?.setEnabled(.oneshot)
    }

    private func settled() {
        self.settling = false
        guard self.atDescriptorLimit else { return }
        self.atDescriptorLimit = false
        self.limitChanged()
    }

    private func takeReserve() {
        if self.reserve < 0 { self.reserve = open("/dev/null", O_RDONLY | O_CLOEXEC) }
    }
}

/// One accepted client: its descriptor, what it has said so far, and its two sources.
private final class ControlClient {
    let fd: Int32
    var line: [UInt8] = []
    var io: (any LoopSource)?
    var deadline: (any LoopSource)?

    init(fd: Int32) {
        self.fd = fd
    }

    /// Cancels both sources, then closes the descriptor (sd-event must stop watching it first).
    func close() {
        self.io?.cancel()
        self.deadline?.cancel()
        _ = Glibc.close(self.fd)
    }
}
