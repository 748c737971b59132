// Support: households written by the tests (items at the next whole minutes, or fixtures with
// their times moved), instants, a process's context switches, and a notify socket that stands in
// for the service manager.

import DaysomeCore
import DaysomeFiles
import DaysomeTestSupport
import Glibc

// MARK: Time

private let utc = Zone(name: "UTC", rules: .utc)

/// The instant of RFC 3339 text, in whole seconds.
func instant(_ text: String) -> Int64? {
    TimeParsing.instant(text, zone: utc)?.seconds
}

// MARK: Households

/// One item of a household written by a test.
struct TestItem {
    var id: String
    var label: String
    var detail: String?
    var kind = "meal"
    var time: String
}

/// JSON string literal text.
func jsonQuoted(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case _ where scalar.value < 0x20:
            let hex = String(scalar.value, radix: 16)
            out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        default: out.unicodeScalars.append(scalar)
        }
    }
    return out + "\""
}

/// A household file with notifications on, a 24-hour clock, and daily items.
func householdText(zone: String = "UTC", items: [TestItem]) -> String {
    let lines = items.map { item in
        var fields = ["\"id\": \(jsonQuoted(item.id))", "\"label\": \(jsonQuoted(item.label))"]
        if let detail = item.detail {
            fields.append("\"detail\": \(jsonQuoted(detail))")
        }
        fields += ["\"kind\": \(jsonQuoted(item.kind))", "\"time\": \(jsonQuoted(item.time))", "\"repeat\": \"daily\""]
        return "    { " + fields.joined(separator: ", ") + " }"
    }
    return """
        {
          "version": 1,
          "timeZone": \(jsonQuoted(zone)),
          "clock": "24h",
          "settings": { "notifyInOtherApps": true },
          "items": [
        \(lines.joined(separator: ",\n"))
          ]
        }

        """
}

/// A UTC household with `first` (a meal with a detail) at `minute` and `second` (a drink without
/// one) the minute after.
func nextMinutesHousehold(_ minute: Int64) throws -> String {
    householdText(items: [
        TestItem(id: "first", label: "Soup time", detail: "Soup and a roll", time: try clockTime(minute, zone: "UTC")),
        TestItem(id: "second", label: "A drink", kind: "drink", time: try clockTime(minute + 60, zone: "UTC")),
    ])
}

/// A UTC household whose starts are all hours away from now.
func farAwayHousehold(label: String = "Lunch") throws -> String {
    let now = Int64(wallSeconds())
    return householdText(items: [
        TestItem(id: "lunch", label: label, detail: "Soup", time: try clockTime(now + 3 * 3_600, zone: "UTC")),
        TestItem(id: "tea", label: "Tea", kind: "drink", time: try clockTime(now + 5 * 3_600, zone: "UTC")),
    ])
}

/// The text of a fixture household.
func fixtureText(_ name: String) throws -> String {
    let path = packageRoot() + "/Fixtures/households/" + name
    let text = readFile(path)
    guard !text.isEmpty else {
        throw HarnessError("fixture \(path) is missing or empty")
    }
    return text
}

/// Replaces the first occurrence of `target`, which must be there.
func replacingOnce(_ text: String, _ target: String, with replacement: String) throws -> String {
    let characters = Array(text)
    let wanted = Array(target)
    guard !wanted.isEmpty, characters.count >= wanted.count,
        let start = (0...(characters.count - wanted.count)).first(where: {
            characters[$0..<($0 + wanted.count)].elementsEqual(wanted)
        })
    else {
        throw HarnessError("fixture text has no \(target.debugDescription)")
    }
    return String(characters[..<start]) + replacement + String(characters[(start + wanted.count)...])
}

// MARK: Wakeups

/// The voluntary context switches of every thread of `pid`: an upper bound on its wakeups. A
/// thread asleep in epoll_wait is woken, runs, and sleeps again, a voluntary switch each time
/// (and one more for any blocking call on the way); it is preempted (an involuntary switch) only
/// while it runs, inside a wakeup already counted. Involuntary switches measure the machine's
/// load, not the daemon: beside the parallel tests one run counted 10 "wakeups" for 7 watchdog
/// pings with them included.
func contextSwitches(of pid: pid_t) throws -> Int {
    guard let tasks = opendir("/proc/\(pid)/task") else {
        throw HarnessError("cannot read /proc/\(pid)/task: \(errnoText(errno)) (did the daemon exit?)")
    }
    defer { closedir(tasks) }
    var total = 0
    while let entry = readdir(tasks) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
            String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
        }
        guard name.first?.isNumber == true else { continue }
        for line in readFile("/proc/\(pid)/task/\(name)/status").split(separator: "\n")
        where line.hasPrefix("voluntary_ctxt_switches:") {
            total += Int(line.split(separator: ":")[1].trimmingPrefix(while: \.isWhitespace)) ?? 0
        }
    }
    return total
}

/// A datagram socket standing in for the service manager's $NOTIFY_SOCKET.
final class NotifySocket {
    let path: String
    private let fd: Int32

    init(path: String) throws {
        self.path = path
        let fd = socket(
            AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else {
            throw HarnessError("socket failed: \(errnoText(errno))")
        }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            close(fd)
            throw HarnessError("socket path too long: \(path)")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0 else {
            let saved = errno
            close(fd)
            throw HarnessError("bind \(path) failed: \(errnoText(saved))")
        }
        self.fd = fd
    }

    deinit {
        close(self.fd)
    }

    /// Every datagram received since the last call.
    func drain() -> [String] {
        var messages: [String] = []
        var buffer = [UInt8](repeating: 0, count: 4_096)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(self.fd, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR {
                continue
            }
            guard count >= 0 else { break }
            messages.append(String(decoding: buffer[0..<count], as: UTF8.self))
        }
        return messages
    }
}

/// Whether a notify datagram holds the assignment `line` (`READY=1`, `WATCHDOG=1`).
func holds(_ message: String, _ line: String) -> Bool {
    message.split(separator: "\n").contains { $0 == line }
}
