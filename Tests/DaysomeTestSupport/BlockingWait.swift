// What a process's main thread is blocked in, read from /proc/PID/syscall: a loop that waits in
// its event loop sits in epoll_wait, while sd_bus_call (a blocking bus call, which lets nothing
// else run until its reply or timeout) waits in ppoll on the bus socket alone. Seen this way a
// stall is told apart from a loaded machine's slow answer, which a latency bound cannot do.

import Glibc

/// Whether `pid`'s main thread is blocked in poll or ppoll now: what sd_bus_call and
/// sd_bus_wait block in, and sd-event never does. nil where the file cannot be read.
public func blockedInPoll(pid: pid_t) -> Bool? {
    guard let file = fopen("/proc/\(pid)/syscall", "r") else { return nil }
    defer { fclose(file) }
    var buffer = [CChar](repeating: 0, count: 64)
    guard fgets(&buffer, Int32(buffer.count), file) != nil else { return nil }
    let line = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    guard let first = line.split(separator: " ").first, let number = Int(first) else { return false }
    return pollSyscalls.contains(number)
}

#if arch(x86_64)
private let pollSyscalls: Set<Int> = [7, 271]  // poll, ppoll
#elseif arch(arm64)
private let pollSyscalls: Set<Int> = [73]  // ppoll
#else
#error("blockedInPoll needs this architecture's syscall numbers for poll and ppoll")
#endif
