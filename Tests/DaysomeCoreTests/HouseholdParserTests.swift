// Rule 9, a bad file never silences lunch: whole-file failures keep the last good household;
// one bad item is skipped and named with its field; a bad optional field is ignored and named.
// Rule 10: keys the daemon does not know are never read, so never echoed.

import DaysomeCore
import DaysomeFiles
import Testing

/// Parses text with real zone files.
func parse(_ text: String) -> Result<HouseholdLoad, HouseholdFileError> {
    parse(Array(text.utf8))
}

func parse(_ bytes: [UInt8]) -> Result<HouseholdLoad, HouseholdFileError> {
    HouseholdParser.parse(
        bytes, file: "household.json", zones: { try? ZoneFiles.load(name: $0) }, systemZoneName: "Europe/London")
}

func failure(_ result: Result<HouseholdLoad, HouseholdFileError>) -> HouseholdFileError? {
    if case .failure(let error) = result { return error }
    return nil
}

func success(_ result: Result<HouseholdLoad, HouseholdFileError>) -> HouseholdLoad? {
    if case .success(let load) = result { return load }
    return nil
}

@Suite("Household files")
struct HouseholdParserTests {
    struct WholeFileCase: Sendable, CustomTestStringConvertible {
        let fixture: String
        let reason: HouseholdFileError.Reason
        var testDescription: String { self.fixture }
    }

    static let wholeFileCases: [WholeFileCase] = [
        .init(fixture: "bad/not-json.json", reason: .notJSON("unexpected character 'h' at line 1, column 2")),
        .init(fixture: "bad/top-level-array.json", reason: .notAnObject),
        .init(fixture: "bad/version-2.json", reason: .badVersion),
        .init(fixture: "bad/items-null.json", reason: .badItems("is null")),
        .init(fixture: "bad/items-missing.json", reason: .badItems("is missing")),
        .init(fixture: "bad/items-object.json", reason: .badItems("is an object, not an array")),
        .init(fixture: "bad/unknown-zone.json", reason: .unknownTimeZone("Europe/Londn")),
        .init(fixture: "bad/zone-path-traversal.json", reason: .unknownTimeZone("../../etc/passwd")),
        .init(fixture: "bad/all-items-invalid.json", reason: .noValidItems(count: 2)),
    ]

    @Test("A bad file never silences lunch: each whole-file failure is named", arguments: wholeFileCases)
    func wholeFileFailures(testCase: WholeFileCase) {
        let error = failure(HouseholdFile.load(fixture(testCase.fixture), environment: [:]))
        #expect(error?.reason == testCase.reason)
        #expect(error?.description.hasPrefix(fixture(testCase.fixture) + ": ") == true)
    }

    @Test("A truncated, not-UTF-8, NUL-carrying or deeply nested file is unusable, with the place named")
    func malformedBytes() {
        for name in ["bad/truncated.json", "bad/invalid-utf8.json", "bad/nul-byte.json", "bad/deeply-nested.json"] {
            let error = failure(HouseholdFile.load(fixture(name), environment: [:]))
            guard case .notJSON(let why)? = error?.reason else {
                Issue.record("\(name) should be unusable as JSON, got \(String(describing: error))")
                continue
            }
            #expect(why.contains("line"), "\(name): \(why)")
        }
    }

    @Test("A file over 1 MiB is unusable")
    func overSizeLimit() {
        var text = "{\"version\": 1, \"items\": [], \"pad\": \""
        text += String(repeating: "x", count: HouseholdParser.sizeLimit)
        text += "\"}"
        #expect(failure(parse(text))?.reason == .tooLarge(bytes: text.utf8.count, limit: HouseholdParser.sizeLimit))
    }

    @Test("A missing or unreadable file is unusable, naming the system's reason")
    func unreadable() {
        let error = failure(HouseholdFile.load("/nonexistent/household.json", environment: [:]))
        #expect(error?.reason == .unreadable("No such file or directory"))
    }

    @Test(
        "A right/ or posix/ timeZone makes the household unusable, naming the file, the field and the plain zone to use",
        arguments: [
            ("right/Europe/London", ZoneVariant.leapSeconds, "Europe/London", "is a leap-second variant"),
            ("posix/Asia/Tokyo", ZoneVariant.posix, "Asia/Tokyo", "is the posix/ copy of a zone"),
            ("right/posix/America/New_York", ZoneVariant.leapSeconds, "America/New_York", "is a leap-second variant"),
        ])
    func aLeapSecondOrPosixZoneIsRefused(name: String, variant: ZoneVariant, plain: String, what: String) {
        let error = failure(parse(#"{"version": 1, "timeZone": "\#(name)", "items": []}"#))
        #expect(error?.reason == .zoneVariant(name, variant, plain: plain))
        #expect(error?.field == "timeZone")
        #expect(
            error?.description == "household.json: field 'timeZone': \"\(name)\" \(what); use \"\(plain)\"")
        // The file exists on Debian and would load: the refusal is by name, not by a missing file.
        #expect((try? ZoneFiles.load(name: "right/Europe/London")) != nil)
    }

    /// A whole-file error's line names the file, the field and the reason once each: never
    /// "field 'version': field 'version' must be 1".
    @Test(
        "A whole-file error names the file and its field once each, for every field",
        arguments: [
            (#"{"version": 2, "items": []}"#, "version", "household.json: field 'version': must be 1"),
            (#"{"version": 1}"#, "items", "household.json: field 'items': is missing"),
            (#"{"version": 1, "items": null}"#, "items", "household.json: field 'items': is null"),
            (#"{"version": 1, "items": "lunch"}"#, "items", "household.json: field 'items': is a string, not an array"),
            (
                #"{"version": 1, "timeZone": "Europe/Londn", "items": []}"#, "timeZone",
                "household.json: field 'timeZone': unknown time zone \"Europe/Londn\""
            ),
        ])
    func aWholeFileErrorNamesItsFieldOnce(text: String, field: String, line: String) throws {
        let error = try #require(failure(parse(text)))
        #expect(error.field == field)
        #expect(error.description == line)
        #expect(error.description.ranges(of: "'\(field)'").count == 1, "\(error)")
        #expect(!error.message.contains("field"), "the message names its field again: \(error.message)")
    }

    @Test("Only a whole leading right/ or posix/ component names a variant")
    func variantNames() {
        #expect(ZoneVariant.of("right/Europe/London")?.plain == "Europe/London")
        #expect(ZoneVariant.of("Europe/London") == nil)
        #expect(ZoneVariant.of("posixrules") == nil)
        #expect(ZoneVariant.of("rightish/Europe/London") == nil)
        #expect(ZoneVariant.of("right/") == nil)
        #expect(ZoneVariant.of("America/right/x") == nil)
        #expect(ZoneVariant.plainName("posix/right/Etc/UTC") == "Etc/UTC")
        #expect(ZoneVariant.plainName("UTC") == "UTC")
    }

    @Test("An empty items array is a valid household with nothing to lay")
    func emptyItemsIsValid() {
        let load = success(parse(#"{"version": 1, "items": [], "settings": {"notifyInOtherApps": true}}"#))
        #expect(load?.household.items.isEmpty == true)
        #expect(load?.problems.isEmpty == true)
    }

    @Test("One invalid item is skipped and named with its field; the rest are laid")
    func itemLevelProblems() throws {
        let load = try #require(success(HouseholdFile.load(fixture("bad/mixed-items.json"), environment: [:])))
        #expect(load.household.items.map(\.id) == ["lunch", "tea", "drink"])
        let named = load.problems.map { "\($0.itemId ?? "-") \($0.field ?? "-")" }
        #expect(
            named == [
                "lunch id", "late-night time", "party kind", "tea end", "drink detail", "drink sound", "never repeat",
                "typo label", "- items[8]",
            ])
        for problem in load.problems {
            #expect(problem.file.hasSuffix("mixed-items.json"))
            #expect(!problem.description.contains("\n"))
        }
        // A bad optional field is ignored, and the item is still laid with its defaults.
        let drink = try #require(load.household.items.first { $0.id == "drink" })
        #expect(drink.detail == nil)
        #expect(drink.sound == true)
        // An end earlier on the clock than its time is reported and kept: whether it is after the
        // start is decided per date between instants (it can be, on a day whose clock goes forward).
        #expect(load.household.items.first { $0.id == "tea" }?.end == time("18:00"))
    }

    @Test("Sound defaults by kind: on for meal, drink, visitor and other, off for dayShape")
    func soundDefaultsByKind() throws {
        let load = try #require(success(HouseholdFile.load(fixture("households/seed.json"), environment: [:])))
        for item in load.household.items {
            #expect(item.sound == (item.kind != .dayShape), "\(item.id)")
        }
    }

    @Test("Unknown keys are ignored and never echoed: the PIN and the note reach no error line")
    func unknownKeysNeverEchoed() {
        let text = """
            {"version": 1, "supervisorPin": "9137", "note": "SECRET-NOTE", "timeZone": "Europe/London",
             "settings": {"notifyInOtherApps": "9137", "pin": "9137"},
             "items": [{"id": "lunch", "label": "Lunch", "kind": "meal", "time": "13:00", "repeat": "daily",
                        "pin": "9137", "end": "SECRET-NOTE"}]}
            """
        let load = success(parse(text))
        #expect(load?.household.items.count == 1)
        for problem in load?.problems ?? [] {
            #expect(!problem.description.contains("9137"))
        }
        #expect(
            failure(parse(#"{"version": 3, "supervisorPin": "9137", "items": []}"#))?.description.contains("9137")
                == false)
    }

    @Test("A second item with the same id is invalid; the first stands")
    func duplicateIds() {
        let text = """
            {"version": 1, "items": [
              {"id": "lunch", "label": "Lunch", "kind": "meal", "time": "13:00", "repeat": "daily"},
              {"id": "lunch", "label": "Other", "kind": "meal", "time": "14:00", "repeat": "daily"}]}
            """
        let load = success(parse(text))
        #expect(load?.household.items.map(\.label) == ["Lunch"])
        #expect(load?.problems.map(\.field) == ["id"])
    }

    @Test(
        "Item fields are validated as the contract says",
        arguments: [
            (#""id": "Lunch""#, "items[0].id"), (#""id": "a_b""#, "items[0].id"),
            (#""id": "\#(String(repeating: "a", count: 65))""#, "items[0].id"),
            (#""label": """#, "label"), (#""label": "\#(String(repeating: "é", count: 201))""#, "label"),
            (#""kind": "Meal""#, "kind"), (#""time": "1:00""#, "time"), (#""time": "24:00""#, "time"),
            (#""time": "12:60""#, "time"), (#""time": 1300"#, "time"), (#""repeat": "weekly""#, "repeat"),
            (#""repeat": {"weekdays": ["monday"]}"#, "repeat"), (#""repeat": {"dates": ["2026-02-30"]}"#, "repeat"),
            (#""repeat": {"dates": []}"#, "repeat"), (#""repeat": null"#, "repeat"),
        ])
    func itemFieldValidation(override: String, field: String) {
        let key = override.split(separator: ":")[0]
        var fields = [
            #""id": "x""#, #""label": "Lunch""#, #""kind": "meal""#, #""time": "13:00""#, #""repeat": "daily""#,
        ].filter { !$0.hasPrefix(key) }
        fields.append(override)
        let text =
            #"{"version": 1, "items": [{"# + fields.joined(separator: ", ")
            + #"}, {"id": "ok", "label": "Ok", "kind": "meal", "time": "12:00", "repeat": "daily"}]}"#
        let load = success(parse(text))
        #expect(load?.household.items.map(\.id) == ["ok"])
        #expect(load?.problems.first?.field == field)
    }

    @Test("Labels are any text of 1-200 grapheme clusters, never refused for markup, emoji or direction marks")
    func hostileLabelsAreValid() throws {
        let load = try #require(
            success(HouseholdFile.load(fixture("households/hostile-labels.json"), environment: [:])))
        #expect(load.problems.isEmpty)
        #expect(load.household.items.count == 4)
        #expect(load.household.items[0].label == "<b>Fish & chips</b> <i>")
        #expect(load.household.items[3].label.count == 200)
    }

    @Test("Absent timeZone means the system zone; optional fields may be null")
    func defaults() throws {
        let load = try #require(
            success(
                parse(
                    #"{"version": 1, "items": [{"id": "a", "label": "A", "kind": "meal", "time": "13:00", "repeat": "daily", "end": null, "detail": null, "sound": null}]}"#
                )))
        #expect(load.household.zone.name == "Europe/London")
        #expect(load.household.clock == .twelveHour)
        #expect(load.household.settings == Settings())
        #expect(load.household.items.first?.sound == true)
        #expect(load.problems.isEmpty)
    }
}
