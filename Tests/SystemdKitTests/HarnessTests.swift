// Harness: a missing service binary is a failure with a clear message, never a skip.

import DaysomeTestSupport
import Testing

@Suite struct HarnessTests {
    @Test func missingBinaryNamesThePackage() {
        #expect {
            _ = try findExecutable("no-such-notification-daemon", package: "some-package")
        } throws: { error in
            "\(error)".contains("install the Debian package 'some-package'")
        }
    }

    @Test func servicesStopByPid() throws {
        let services = try TestServices()
        let bus = try services.startSessionBus()
        #expect(!bus.process.poll())
        services.stopAll()
        #expect(bus.process.poll())
    }
}
