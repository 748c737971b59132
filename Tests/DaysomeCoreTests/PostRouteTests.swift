// Whether a post goes out or waits for a notification server (PostRoute.swift): the one rule the
// notifier, the embedded world and the model simulator follow.

import DaysomeCore
import Testing

@Suite("Whether a post goes out or waits for a server")
struct PostRouteTests {
    @Test("A post goes out at once where a server owns the name, whether or not it may start one")
    func aPostGoesOutWhereAServerOwnsTheName() {
        #expect(
            PostRoute.whenPosting(serverOwnsTheName: true, serverHasSaidWhoItIs: true, mayStartServer: true) == .send)
        #expect(
            PostRoute.whenPosting(serverOwnsTheName: true, serverHasSaidWhoItIs: true, mayStartServer: false) == .send)
    }

    @Test("A card posted again because its server left never has the bus start one: it waits for the desktop's own")
    func aRepostAfterTheServerLeftWaitsForTheDesktopsOwn() {
        #expect(
            PostRoute.whenPosting(serverOwnsTheName: false, serverHasSaidWhoItIs: false, mayStartServer: false)
                == .wait(reason: PostRoute.desktopsOwnReason))
        #expect(PostRoute.desktopsOwnReason.contains("waiting for the desktop's own"))
    }

    @Test("A new call with no server asks for a display first: none means waiting, one means the bus starts a server")
    func aNewCallWithNoServerGoesOutOnlyWhereTheSessionHasADisplay() {
        #expect(
            PostRoute.whenPosting(serverOwnsTheName: false, serverHasSaidWhoItIs: false, mayStartServer: true)
                == .askWhetherTheSessionHasADisplay)
        #expect(
            PostRoute.afterAsking(
                sessionHasDisplay: false, saidBy: .userManager, serverOwnsTheName: false, serverHasSaidWhoItIs: false)
                == .wait(reason: PostRoute.noDisplayReason(.userManager)))
        #expect(
            PostRoute.afterAsking(
                sessionHasDisplay: true, saidBy: .userManager, serverOwnsTheName: false, serverHasSaidWhoItIs: false)
                == .send)
    }

    @Test("A server that took the name while the question was out takes the post, display or not")
    func aServerThatCameMeanwhileTakesThePost() {
        #expect(
            PostRoute.afterAsking(
                sessionHasDisplay: false, saidBy: .userManager, serverOwnsTheName: true, serverHasSaidWhoItIs: true)
                == .send)
    }

    @Test(
        "A post to a server that has not said who it is asks first, also one that took the name while the display was asked about: its name decides the urgency that passes a forgotten Do Not Disturb"
    )
    func aPostToAServerThatHasNotSaidWhoItIsAsksFirst() {
        for mayStart in [true, false] {
            #expect(
                PostRoute.whenPosting(serverOwnsTheName: true, serverHasSaidWhoItIs: false, mayStartServer: mayStart)
                    == .askWhoTheServerIs)
        }
        for display in [true, false] {
            #expect(
                PostRoute.afterAsking(
                    sessionHasDisplay: display, saidBy: .userManager, serverOwnsTheName: true,
                    serverHasSaidWhoItIs: false)
                    == .askWhoTheServerIs)
        }
    }

    /// The reason names the environment that was read: the user manager's, or the daemon's own
    /// where no manager answered (never the manager's when none did).
    @Test func theNoDisplayReasonSaysWhoseEnvironmentHadNoDisplay() {
        #expect(
            PostRoute.afterAsking(
                sessionHasDisplay: false, saidBy: .daemonsOwnEnvironment, serverOwnsTheName: false,
                serverHasSaidWhoItIs: false)
                == .wait(
                    reason: "no notification server on the session bus, and the session has no display to start one "
                        + "on (no DISPLAY or WAYLAND_DISPLAY in the daemon's own environment; no user manager "
                        + "answered): waiting for a server"))
        #expect(
            PostRoute.noDisplayReason(.userManager)
                == "no notification server on the session bus, and the session has no display to start one on "
                + "(no DISPLAY or WAYLAND_DISPLAY in the user manager's environment): waiting for a server")
    }
}
