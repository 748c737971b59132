// Errno: descriptions and the negative-return convention.

import Glibc
import Testing

@testable import SystemdKit

@Suite struct ErrnoTests {
    @Test func descriptionHasTextAndSymbolicName() {
        #expect(Errno.noSuchFileOrDirectory.description == "No such file or directory (ENOENT)")
        #expect(Errno.canceled.description == "Operation canceled (ECANCELED)")
    }

    @Test func textIsTheSystemsTextAloneFromAnyThread() async {
        #expect(Errno.noSuchFileOrDirectory.text == "No such file or directory")
        // strerror_r fills a buffer of the caller's: texts read at once on many threads never mix.
        let texts = await withTaskGroup(of: Bool.self) { group in
            for code in [ENOENT, EACCES, EPIPE, ENOLINK] {
                group.addTask {
                    (0..<2_000).allSatisfy { _ in Errno(rawValue: code).text == Errno(rawValue: code).text }
                }
            }
            return await group.reduce(true) { $0 && $1 }
        }
        #expect(texts)
    }

    @Test func unnamedValueShowsItsNumber() {
        #expect(Errno(rawValue: ENOLINK).description == "Link has been severed (errno \(ENOLINK))")
    }

    @Test func namedConstantsMatchGlibc() {
        #expect(Errno.notPermitted.rawValue == EPERM)
        #expect(Errno.permissionDenied.rawValue == EACCES)
        #expect(Errno.fileExists.rawValue == EEXIST)
        #expect(Errno.resourceTemporarilyUnavailable.rawValue == EAGAIN)
        #expect(Errno.interrupted.rawValue == EINTR)
        #expect(Errno.noSuchProcess.rawValue == ESRCH)
        #expect(Errno.socketNotConnected.rawValue == ENOTCONN)
        #expect(Errno.connectionRefused.rawValue == ECONNREFUSED)
        #expect(Errno.timedOut.rawValue == ETIMEDOUT)
    }

    @Test func negativeReturnThrowsPositiveErrno() {
        #expect(throws: Errno.noSuchFileOrDirectory) { try check(-ENOENT) }
        #expect((try? check(3)) == 3)
    }

    @Test func errnoMatchesInSwitch() {
        let error = Errno(rawValue: EAGAIN)
        switch error {
        case .resourceTemporarilyUnavailable: break
        default: Issue.record("EAGAIN did not match .resourceTemporarilyUnavailable")
        }
    }
}
