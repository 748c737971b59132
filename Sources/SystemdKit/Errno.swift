// The sd_* and libc return conventions turned into throws of `Errno`. The type itself lives in
// DaysomeErrno, below this module and DaysomeFiles; it is re-exported because every wrapper here
// throws it, so no client of SystemdKit has to import it separately.

@_exported import DaysomeErrno

/// Returns `result` if it is not negative, and throws `Errno(rawValue: -result)` otherwise.
///
/// This is the one place where the sd_* convention "negative errno on failure" becomes a throw.
@discardableResult
func check(_ result: Int32) throws(Errno) -> Int32 {
    if result < 0 {
        throw Errno(rawValue: -result)
    }
    return result
}

/// Returns `result` if it is not -1, and throws the current `errno` otherwise (libc convention).
@discardableResult
func checkLibc(_ result: Int32) throws(Errno) -> Int32 {
    if result == -1 {
        throw Errno.current
    }
    return result
}
