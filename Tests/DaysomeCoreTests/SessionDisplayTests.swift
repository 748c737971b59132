// A post may start a notification server only where the session has a display: an empty
// `DISPLAY=` in the user manager's environment is no display, as it is in the daemon's own.

import DaysomeCore
import Testing

@Suite struct SessionDisplayTests {
    @Test func anEmptyDisplayValueIsNoDisplayToStartAServerOn() {
        #expect(!SessionDisplay.isNamed(inEntries: ["HOME=/home/kiosk", "DISPLAY="]))
        #expect(!SessionDisplay.isNamed(inEntries: ["DISPLAY=", "WAYLAND_DISPLAY="]))
        #expect(!SessionDisplay.isNamed(in: ["DISPLAY": "", "WAYLAND_DISPLAY": ""]))
    }

    @Test func aWaylandDisplayAloneIsADisplay() {
        #expect(SessionDisplay.isNamed(inEntries: ["PATH=/usr/bin", "WAYLAND_DISPLAY=wayland-0"]))
        #expect(SessionDisplay.isNamed(in: ["WAYLAND_DISPLAY": "wayland-0"]))
    }

    @Test func anEnvironmentWithNeitherHasNoDisplay() {
        #expect(!SessionDisplay.isNamed(inEntries: []))
        #expect(!SessionDisplay.isNamed(inEntries: ["HOME=/home/kiosk", "XDG_RUNTIME_DIR=/run/user/1000"]))
        // A longer name that starts the same is another variable.
        #expect(!SessionDisplay.isNamed(inEntries: ["DISPLAY_NUMBER=0", "XDISPLAY=:0"]))
        #expect(!SessionDisplay.isNamed(in: ["HOME": "/home/kiosk"]))
    }

    @Test func eitherVariableSetIsADisplayAndBothAreToo() {
        #expect(SessionDisplay.isNamed(inEntries: ["DISPLAY=:0"]))
        #expect(SessionDisplay.isNamed(inEntries: ["DISPLAY=:0", "WAYLAND_DISPLAY=wayland-0"]))
        #expect(SessionDisplay.isNamed(inEntries: ["DISPLAY=", "WAYLAND_DISPLAY=wayland-0"]))
        #expect(SessionDisplay.isNamed(in: ["DISPLAY": ":0", "WAYLAND_DISPLAY": "wayland-0"]))
    }
}
