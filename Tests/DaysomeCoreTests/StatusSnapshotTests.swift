// The status the daemon publishes and `daysomectl status` reads goes through one type: it reads
// back the same, its keys are those `status --json` has always had (the design's contract and
// the daemon's own), and a key renamed on either side fails the round trip, naming the key.

import DaysomeCore
import Testing

/// A running daemon's status with every part filled, as `fullStatusLine` writes it.
private let aStatus = StatusSnapshot(
    pid: 4242, display: .away, lay: 12, backend: "wheel", notifyInOtherApps: true,
    notificationServer: .init(
        name: "dunst", present: true, capabilities: ["body", "body-markup"], urgency: "normal",
        urgencyReason: "this server shows normal calls over a fullscreen app", doNotDisturb: .off),
    canDeliver: true, laidUntil: instant("2026-12-08T08:00:00Z"),
    nextStart: .init(at: instant("2026-12-01T13:00:00Z"), title: "Lunch"),
    household: .init(
        path: "/home/h/household.json", loadedAt: instant("2026-12-01T08:00:00Z"), items: 2,
        timeZone: "Europe/London",
        errors: [HouseholdProblem(file: "/home/h/household.json", itemId: "tea", field: "time", message: "skipped")],
        inForce: .init(source: .keptCopy, path: "/state/household.json", since: instant("2026-11-30T08:00:00Z"))),
    daemon: .init(
        notifier: "freedesktop", notLaidReason: nil, pending: 14, delivered: 1, grace: 300,
        displayStatePath: "/run/daysome/display", runtimeDirectory: "/run/daysome", stateDirectory: "/state",
        chime: .init(on: true, player: "/usr/bin/paplay", file: "/usr/share/daysome/bell.oga"),
        bringDayBack: .init(on: true, means: "unit day.service", ready: true), doNotDisturb: "override",
        lock: .init(
            locked: true, fileSays: .foreground,
            sources: [
                .logind: .init(watched: true, locked: true, detail: "session c1"),
                .screenSaver: .init(watched: false, locked: nil, detail: "no screensaver"),
                .logindLockSignal: .init(watched: true, locked: false, detail: "following session c1"),
                .gnomeScreenSaver: .init(watched: true, locked: false, detail: "org.gnome.ScreenSaver"),
            ], decidedBy: .logind,
            request: .init(at: instant("2026-12-01T12:59:00Z"), state: .answered, answeredBy: .logind)),
        wakeSystem: .init(on: false, reason: "a user manager refuses WakeSystem")))

/// `aStatus` as the daemon has written it since before the type existed (keys, order and value
/// types of the old key-by-key builder): an encoder-side rename fails against this.
private let fullStatusLine =
    #"{"running":true,"pid":4242,"display":"away","lay":12,"backend":"wheel","notifier":"freedesktop","#
    + #""notifyInOtherApps":true,"notificationServer":{"name":"dunst","present":true,"#
    + #""capabilities":["body","body-markup"],"urgency":"normal","#
    + #""urgencyReason":"this server shows normal calls over a fullscreen app","doNotDisturb":"off","waiting":null,"#
    + #""lastRefusal":null,"doNotDisturbSource":null,"doNotDisturbLastRead":null,"doNotDisturbNote":null},"#
    + #""canDeliver":true,"notLaidReason":null,"laidUntil":"2026-12-08T08:00:00Z","#
    + #""nextStart":{"at":"2026-12-01T13:00:00Z","title":"Lunch"},"pending":14,"delivered":1,"grace":300,"#
    + #""household":{"path":"/home/h/household.json","loadedAt":"2026-12-01T08:00:00Z","items":2,"#
    + #""timeZone":"Europe/London","errors":[{"file":"/home/h/household.json","itemId":"tea","field":"time","#
    + #""message":"skipped"}],"errorCount":1,"inForce":{"source":"keptCopy","path":"/state/household.json","#
    + #""since":"2026-11-30T08:00:00Z"}},"displayStatePath":"/run/daysome/display","#
    + #""runtimeDirectory":"/run/daysome","stateDirectory":"/state","#
    + #""chime":{"on":true,"player":"/usr/bin/paplay","file":"/usr/share/daysome/bell.oga"},"#
    + #""bringDayBack":{"on":true,"means":"unit day.service","ready":true},"doNotDisturb":"override","#
    + #""lock":{"locked":true,"fileSays":"foreground","sources":{"#
    + #""logind":{"watched":true,"locked":true,"detail":"session c1"},"#
    + #""screenSaver":{"watched":false,"locked":null,"detail":"no screensaver"},"#
    + #""logindLockSignal":{"watched":true,"locked":false,"detail":"following session c1"},"#
    + #""gnomeScreenSaver":{"watched":true,"locked":false,"detail":"org.gnome.ScreenSaver"}},"#
    + #""decidedBy":"logind","request":{"at":"2026-12-01T12:59:00Z","state":"answered","answeredBy":"logind"}},"#
    + #""wakeSystem":{"on":false,"reason":"a user manager refuses WakeSystem"},"displayFileProblem":null}"#

/// What `status` has always printed with no daemon running.
private let noDaemonLine =
    #"{"running":false,"pid":null,"display":null,"lay":null,"backend":null,"notifyInOtherApps":null,"#
    + #""notificationServer":{"name":null,"present":false,"capabilities":[]},"canDeliver":false,"#
    + #""laidUntil":null,"nextStart":null,"#
    + #""household":{"path":"/home/h/household.json","loadedAt":null,"items":0,"errors":[],"errorCount":0}}"#

/// Keys a 0.1.0 daemon did not write: renaming one reads as that older daemon, not as a fault.
private let keysAddedAfterTheFirstRelease: Set<String> = [
    ".lock.sources.logindLockSignal", ".lock.decidedBy", ".notificationServer.waiting", ".household.errorCount",
    ".displayFileProblem", ".lock.sources.gnomeScreenSaver", ".lock.request", ".notificationServer.lastRefusal",
    ".notificationServer.doNotDisturbSource", ".notificationServer.doNotDisturbLastRead",
    ".notificationServer.doNotDisturbNote",
]

@Suite("The status across the process boundary")
struct StatusSnapshotTests {
    @Test("The status the daemon publishes reads back the same through the type daysomectl reads it with")
    func statusRoundTrip() throws {
        #expect(try StatusSnapshot(json: aStatus.json) == aStatus)
        #expect(try StatusSnapshot(json: JSONParser.parse(aStatus.json.serialized(pretty: true))) == aStatus)
        let none = StatusSnapshot.noDaemon(householdPath: "/home/h/household.json")
        #expect(try StatusSnapshot(json: none.json) == none)
        #expect(!none.running && aStatus.running)
    }

    @Test("The status keeps the keys, order and value types it has always had, with and without a daemon")
    func statusIsWrittenAsItAlwaysWas() throws {
        #expect(aStatus.json.serialized() == fullStatusLine)
        #expect(try StatusSnapshot(json: JSONParser.parse(fullStatusLine)) == aStatus)
        let none = StatusSnapshot.noDaemon(householdPath: "/home/h/household.json")
        #expect(none.json.serialized() == noDaemonLine)
        #expect(try StatusSnapshot(json: JSONParser.parse(noDaemonLine)) == none)
    }

    @Test("The status holds every key of the design's status --json")
    func statusHoldsTheContractsKeys() throws {
        let object = try #require(aStatus.json.objectValue)
        for key in [
            "running", "pid", "display", "lay", "backend", "notifyInOtherApps", "notificationServer", "canDeliver",
            "laidUntil", "nextStart", "household",
        ] {
            #expect(object[key] != nil, "\(key)")
        }
        #expect(
            Array(try #require(object["notificationServer"]?.objectValue?.keys).prefix(3))
                == ["name", "present", "capabilities"])
        let household = try #require(object["household"]?.objectValue)
        for key in ["path", "loadedAt", "items", "errors"] { #expect(household[key] != nil, "\(key)") }
        #expect(household["errors"]?.arrayValue?.first?.objectValue?.keys == ["file", "itemId", "field", "message"])
    }

    @Test("A key renamed on either side of the status fails the round trip, and the missing key is named")
    func renamedStatusKeysFail() {
        let none = StatusSnapshot.noDaemon(householdPath: "/h.json")
        for (sample, count) in [(aStatus, 84), (none, 19)] {
            let variants = renamedKeys(sample.json)
            #expect(variants.count == count)
            for (path, json) in variants where !keysAddedAfterTheFirstRelease.contains(path) {
                #expect(throws: SnapshotProblem(key: "status" + path, "is missing"), "renaming \(path)") {
                    try StatusSnapshot(json: json)
                }
            }
        }
    }

    /// After a package upgrade the old daemon runs on until it restarts: `status` must read
    /// what it writes, without the keys added since.
    @Test("A status written by a 0.1.0 daemon, without the keys added since, is read")
    func aStatusFromBeforeAnUpgradeIsRead() throws {
        var json = try #require(aStatus.json.objectValue)
        var lock = try #require(json["lock"]?.objectValue)
        var sources = try #require(lock["sources"]?.objectValue)
        sources.members.removeAll { $0.key == "logindLockSignal" || $0.key == "gnomeScreenSaver" }
        lock.members.removeAll { $0.key == "decidedBy" || $0.key == "request" }
        lock.members.append(("sources", .object(sources)))
        json.members.append(("lock", .object(lock)))
        let read = try StatusSnapshot(json: .object(json))
        #expect(read.daemon?.lock.sources[.logind]?.locked == true)
        #expect(read.daemon?.lock.sources[.logindLockSignal] == nil)
        #expect(read.daemon?.lock.decidedBy == nil)
        #expect(read.daemon?.lock.sources[.gnomeScreenSaver] == nil)
        #expect(read.daemon?.lock.request == nil)
    }

    @Test("A refusal of Daysome's own message is published under notificationServer and reads back the same")
    func aRefusalOfOurOwnMessageReadsBack() throws {
        var status = aStatus
        status.notificationServer.lastRefusal = .init(
            time: instant("2026-12-01T13:00:00Z"), at: instant("2026-12-01T13:00:00Z"),
            reason: "org.freedesktop.DBus.Error.InvalidArgs: Invalid argument")
        let json = status.json.serialized()
        #expect(
            json.contains(
                #""lastRefusal":{"time":"2026-12-01T13:00:00Z","at":"2026-12-01T13:00:00Z","#
                    + #""reason":"org.freedesktop.DBus.Error.InvalidArgs: Invalid argument"}"#))
        #expect(try StatusSnapshot(json: JSONParser.parse(json)) == status)
    }

    @Test("A status with a value of the wrong type is refused, naming its key")
    func wrongStatusTypesAreNamed() throws {
        var object = try #require(aStatus.json.objectValue)
        object.members.append(("canDeliver", .string("yes")))
        #expect(throws: SnapshotProblem(key: "status.canDeliver", "is not true or false")) {
            try StatusSnapshot(json: .object(object))
        }
        object.members.append(("canDeliver", .bool(true)))
        object.members.append(("doNotDisturb", .number(1)))
        #expect(throws: SnapshotProblem(key: "status.doNotDisturb", "is not a string")) {
            try StatusSnapshot(json: .object(object))
        }
    }

    @Test(
        "Only the family's words: the texts the daemon composes for its status (wakeSystem's reason) never hold a forbidden word"
    )
    func statusTextsHoldNoForbiddenWord() {
        let composed = [
            StatusSnapshot.WakeSystem.underAUserManager.reason,
            StatusSnapshot.StateWriteError(
                file: "/s/lay.json", error: "Failed to write '/s/lay.json.tmp.1': No space left on device",
                since: instant("2026-12-01T08:00:00Z"), attempts: 3, nextAttempt: instant("2026-12-01T08:00:04Z")
            ).description,
        ]
        for text in composed { #expect(Content.forbiddenWords(in: text).isEmpty, "\(text)") }
        #expect(!StatusSnapshot.WakeSystem.underAUserManager.on)
    }

    @Test("An unusable display line reads back through the status, and a daemon older than the key reads as none")
    func displayFileProblemRoundTrip() throws {
        var unusable = aStatus
        unusable.daemon?.displayFileProblem = DisplayFileProblem(
            line: "Foreground", message: "holds neither 'foreground' nor 'away'", keeping: .away)
        #expect(try StatusSnapshot(json: unusable.json) == unusable)
        var object = try #require(unusable.json.objectValue)
        object.members.removeAll { $0.key == "displayFileProblem" }
        #expect(try StatusSnapshot(json: .object(object)).daemon?.displayFileProblem == nil)
        let text = try #require(unusable.daemon?.displayFileProblem?.message)
        #expect(Content.forbiddenWords(in: text).isEmpty)
    }

    @Test("A control socket at its descriptor limit reads back through the status; an older daemon's, as none")
    func controlSocketAtLimitRoundTrip() throws {
        var full = aStatus
        full.daemon?.controlSocketAtLimit = true
        let object = try #require(full.json.objectValue)
        #expect(object["controlSocketAtLimit"]?.boolValue == true)
        #expect(try StatusSnapshot(json: JSONParser.parse(full.json.serialized())) == full)
        full.daemon?.controlSocketAtLimit = false
        #expect(try StatusSnapshot(json: full.json) == full)
        // Where there is no socket (the embedded world) or an older daemon wrote it: no key, nil.
        #expect(aStatus.json.objectValue?["controlSocketAtLimit"] == nil)
        #expect(try StatusSnapshot(json: aStatus.json).daemon?.controlSocketAtLimit == nil)
    }

    @Test("State write errors read back through the status, and a daemon older than the key reads as none")
    func stateWriteErrorsRoundTrip() throws {
        var failing = aStatus
        failing.daemon?.stateWriteErrors = [
            .init(
                file: "/state/lay.json", error: "Failed to write '/state/lay.json.tmp.9': No space left on device",
                since: instant("2026-12-01T08:00:00Z"), attempts: 2, nextAttempt: instant("2026-12-01T08:00:02Z")),
            .init(
                file: "/state/history.jsonl", error: "Failed to append to '/state/history.jsonl': No space left",
                since: instant("2026-12-01T08:00:00Z"), attempts: 1, nextAttempt: nil),
        ]
        #expect(try StatusSnapshot(json: JSONParser.parse(failing.json.serialized())) == failing)
        let keys = try #require(failing.json.objectValue?["stateWriteErrors"]?.arrayValue?.first?.objectValue?.keys)
        #expect(keys == ["file", "error", "since", "attempts", "nextAttempt"])
        // What a 0.1.0 daemon wrote has no such key: read as nil, never refused.
        #expect(try StatusSnapshot(json: JSONParser.parse(fullStatusLine)).daemon?.stateWriteErrors == nil)
    }
}
