// BusAddress: the socket file a D-Bus address names, which the lock watch waits to appear.

import Testing

@testable import SystemdKit

@Suite struct BusAddressTests {
    @Test func aUnixPathAddressNamesItsSocketFile() {
        #expect(BusAddress.unixSocketPath(BusAddress.defaultSystem) == "/run/dbus/system_bus_socket")
        #expect(BusAddress.unixSocketPath("unix:guid=0123abcd,path=/tmp/bus") == "/tmp/bus")
        // Only the first transport is the one sd-bus connects to first.
        #expect(BusAddress.unixSocketPath("unix:path=/a/bus;unix:path=/b/bus") == "/a/bus")
    }

    @Test func escapedBytesInThePathAreDecoded() {
        #expect(BusAddress.unixSocketPath("unix:path=/tmp/a%20b%2cc") == "/tmp/a b,c")
        #expect(BusAddress.unixSocketPath("unix:path=/tmp/%C3%A9") == "/tmp/é")
    }

    @Test func anAddressWithNoSocketFileNamesNone() {
        #expect(BusAddress.unixSocketPath("unix:abstract=/tmp/dbus-x") == nil)
        #expect(BusAddress.unixSocketPath("tcp:host=localhost,port=1234") == nil)
        #expect(BusAddress.unixSocketPath("unix:path=relative/bus") == nil)
        #expect(BusAddress.unixSocketPath("unix:path=/tmp/%zz") == nil)
        #expect(BusAddress.unixSocketPath("unix:path=/tmp/%2") == nil)
        #expect(BusAddress.unixSocketPath("unix:path=/tmp/%00") == nil)
        #expect(BusAddress.unixSocketPath("unix:path=/tmp/%FF") == nil)
        #expect(BusAddress.unixSocketPath("") == nil)
    }
}
