// BusError: local failures in D-Bus terms, and descriptions.

import Glibc
import Testing

@testable import SystemdKit

@Suite struct BusErrorTests {
    @Test func errnoMapsToSystemErrorName() {
        let error = BusError(Errno.socketNotConnected)
        #expect(error.name == "System.Error.ENOTCONN")
        #expect(error.errno == ENOTCONN)
        #expect(!error.message.isEmpty)
    }

    @Test func knownErrnoMapsToDBusName() {
        #expect(BusError(Errno(rawValue: ENOMEM)).name == "org.freedesktop.DBus.Error.NoMemory")
    }

    @Test func descriptionJoinsNameAndMessage() {
        #expect(BusError(name: "a.B", message: "c", errno: EIO).description == "a.B: c")
        #expect(BusError(name: "a.B", message: "", errno: EIO).description == "a.B")
    }
}
