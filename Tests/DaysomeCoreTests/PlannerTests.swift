// The planner's rules, each test named after the rule it guards.

import DaysomeCore
import DaysomeFiles
import Testing

@Suite("Planner")
struct PlannerTests {
    @Test("Lunch at 13:00 fires at 13:00 local on both London change days")
    func lunchOnBothChangeDays() {
        let home = household("Europe/London", [item("lunch", "13:00")])
        let spring = Planner.plan(home, from: instant("2026-03-29T00:00:00Z"), days: 1).starts
        #expect(spring.map(\.at) == [instant("2026-03-29T12:00:00Z")])
        #expect(spring.map(\.local.rfc3339) == ["2026-03-29T13:00:00+01:00"])
        let autumn = Planner.plan(home, from: instant("2026-10-25T00:00:00Z"), days: 1).starts
        #expect(autumn.map(\.at) == [instant("2026-10-25T13:00:00Z")])
        #expect(autumn.map(\.local.rfc3339) == ["2026-10-25T13:00:00+00:00"])
        #expect(autumn.allSatisfy { $0.dst == nil })
    }

    @Test("01:30 on the spring change day fires at 02:30 BST, marked gap")
    func springGap() {
        let home = household("Europe/London", [item("night-drink", "01:30", kind: .drink)])
        let starts = Planner.plan(home, from: instant("2026-03-28T12:00:00Z"), days: 1).starts
        #expect(starts.count == 1)
        #expect(starts.first?.local.rfc3339 == "2026-03-29T02:30:00+01:00")
        #expect(starts.first?.dst == .gap)
    }

    @Test("01:30 on the autumn change day fires once, at the first 01:30, marked repeat")
    func autumnRepeatOnce() {
        let home = household("Europe/London", [item("night-drink", "01:30", kind: .drink)])
        let starts = Planner.plan(home, from: instant("2026-10-24T12:00:00Z"), days: 1).starts
        #expect(starts.map(\.at) == [instant("2026-10-25T00:30:00Z")])
        #expect(starts.first?.local.rfc3339 == "2026-10-25T01:30:00+01:00")
        #expect(starts.first?.dst == .repeat)
    }

    @Test("A lay made at from holds only starts after from, up to and including from + days")
    func windowIsHalfOpen() {
        let home = household("UTC", [item("lunch", "13:00")])
        let starts = Planner.plan(home, from: instant("2026-06-01T13:00:00Z"), days: 2).starts
        #expect(starts.map(\.at) == [instant("2026-06-02T13:00:00Z"), instant("2026-06-03T13:00:00Z")])
    }

    @Test("One call per minute: items that start at the same instant share one start, in file order")
    func sameMinuteSharesOneStart() {
        let home = household(
            "Europe/London",
            [
                item("lunch", "13:00", label: "Lunch"), item("tablets", "13:00", label: "Tablets", kind: .other),
                item("drink", "13:00", label: "Drink", kind: .drink),
            ])
        let starts = Planner.plan(home, from: instant("2026-06-01T00:00:00Z"), days: 1).starts
        #expect(starts.count == 1)
        #expect(starts.first?.itemIds == ["lunch", "tablets", "drink"])
        #expect(starts.first?.title == "Lunch, Tablets and Drink")
    }

    @Test("A gap-shifted time and a real time at the same instant share one start, marked gap")
    func gapAndRealTimeCoalesce() {
        let home = household("Europe/London", [item("a", "01:30", kind: .drink), item("b", "02:30", kind: .drink)])
        let starts = Planner.plan(home, from: instant("2026-03-29T00:00:00Z"), days: 1).starts
        #expect(starts.count == 1)
        #expect(starts.first?.itemIds == ["a", "b"])
        #expect(starts.first?.dst == .gap)
    }

    @Test("The sound switch decides: a dayShape item is not laid but still ends the card before it")
    func dayShapeNotLaidButEndsCard() {
        let home = household(
            "Europe/London", [item("lunch", "13:00"), item("rest", "14:00", label: "Rest", kind: .dayShape)])
        let starts = Planner.plan(home, from: instant("2026-06-01T00:00:00Z"), days: 1).starts
        #expect(starts.map(\.itemIds) == [["lunch"]])
        #expect(starts.first?.expiresAt == instant("2026-06-01T13:00:00Z"))
    }

    @Test("The sound switch decides: sound off skips a meal, sound on lays a dayShape")
    func soundSwitchOverridesKind() {
        let home = household(
            "UTC", [item("lunch", "13:00", sound: false), item("morning", "08:00", kind: .dayShape, sound: true)])
        let starts = Planner.plan(home, from: instant("2026-06-01T00:00:00Z"), days: 1).starts
        #expect(starts.map(\.itemIds) == [["morning"]])
    }

    @Test("A meal choice beats the detail on its date only")
    func mealChoiceOnItsDateOnly() {
        var home = household("Europe/London", [item("lunch", "13:00", detail: "Soup and a roll")])
        home.mealChoices = [date("2026-11-30"): ["lunch": "Fish pie"]]
        let starts = Planner.plan(home, from: instant("2026-11-29T00:00:00Z"), days: 3).starts
        #expect(starts.map(\.body) == ["Soup and a roll", "Fish pie", "Soup and a roll"])
    }

    @Test("An end that falls before its start (a gap) falls back to the next item")
    func endInGapFallsBack() {
        let home = household(
            "Europe/London", [item("night", "01:30", kind: .drink, end: "02:15"), item("lunch", "13:00")])
        let start = Planner.plan(home, from: instant("2026-03-29T00:00:00Z"), days: 1).starts.first
        #expect(start?.itemIds == ["night"])
        // 02:15 that date is 01:15Z, before the start at 01:30Z: the card ends at lunch instead.
        #expect(start?.expiresAt == instant("2026-03-29T12:00:00Z"))
    }

    @Test("A card ends at its end when set, else at the next start that date, else at the next date's first instant")
    func expiryChoices() {
        let home = household("Europe/London", [item("lunch", "13:00", end: "13:45"), item("tea", "19:30")])
        let starts = Planner.plan(home, from: instant("2026-06-01T00:00:00Z"), days: 1).starts
        #expect(starts.map(\.expiresAt) == [instant("2026-06-01T12:45:00Z"), instant("2026-06-01T23:00:00Z")])
        let noEnd = household("Europe/London", [item("lunch", "13:00"), item("tea", "19:30")])
        #expect(
            Planner.plan(noEnd, from: instant("2026-06-01T00:00:00Z"), days: 1).starts.first?.expiresAt
                == instant("2026-06-01T18:30:00Z"))
    }

    @Test("Where a day starts at 01:00 (Havana), the last card of the day before ends then")
    func expiryAtAMidnightGap() {
        let home = household("America/Havana", [item("tea", "19:30")])
        let start = Planner.plan(home, from: instant("2026-03-07T12:00:00Z"), days: 1).starts.first
        #expect(start?.expiresAt == instant("2026-03-08T05:00:00Z"))
    }

    @Test("When a whole local date does not exist (Apia 2011-12-30), its items are listed once on the next date")
    func skippedDateListedOnce() {
        let home = household("Pacific/Apia", [item("lunch", "13:00")])
        let starts = Planner.plan(home, from: instant("2011-12-29T00:00:00Z"), days: 3).starts
        let dates = starts.map(\.local.date.isoString)
        #expect(dates == ["2011-12-29", "2011-12-31", "2012-01-01"])
        #expect(starts[1].local.rfc3339 == "2011-12-31T13:00:00+14:00")
        #expect(starts[1].heading == "Saturday afternoon")
    }

    @Test("Off until a carer turns it on: nothing is laid while notifyInOtherApps is false, and the plan says why")
    func nothingLaidWhileNotificationsOff() {
        let home = household("Europe/London", [item("lunch", "13:00")], notify: false)
        let plan = Planner.plan(home, from: instant("2026-06-01T00:00:00Z"))
        #expect(plan.starts.isEmpty)
        #expect(plan.notLaidReason?.contains("notifyInOtherApps") == true)
        let json = plan.json().serialized()
        #expect(json.contains("\"notifyInOtherApps\":false"))
        #expect(json.contains("\"reason\":"))
    }

    @Test("Weekdays and dates repeats occur only on their days")
    func repeatsByWeekdayAndDate() {
        let home = household(
            "Europe/London",
            [
                item("cleaner", "11:00", kind: .visitor, repeats: .weekdays([.mon])),
                item("dentist", "14:30", kind: .visitor, repeats: .dates([date("2026-12-03")])),
            ])
        let starts = Planner.plan(home, from: instant("2026-11-29T00:00:00Z"), days: 14).starts
        #expect(
            starts.map(\.local.rfc3339) == [
                "2026-11-30T11:00:00+00:00", "2026-12-03T14:30:00+00:00", "2026-12-07T11:00:00+00:00",
            ])
        #expect(starts.map(\.heading) == ["Monday morning", "Thursday afternoon", "Monday morning"])
    }

    @Test("The heading names the weekday and part of the day, night running until the next morning")
    func headingsByDayPart() {
        let parts = DayParts()
        let monday = date("2026-11-30")
        #expect(Content.heading(date: monday, time: time("04:59"), dayParts: parts) == "Monday night")
        #expect(Content.heading(date: monday, time: time("05:00"), dayParts: parts) == "Monday morning")
        #expect(Content.heading(date: monday, time: time("12:00"), dayParts: parts) == "Monday afternoon")
        #expect(Content.heading(date: monday, time: time("17:00"), dayParts: parts) == "Monday evening")
        #expect(Content.heading(date: monday, time: time("21:00"), dayParts: parts) == "Monday night")
    }

    @Test("Where no item has a detail, the body is the clock time in the household's style")
    func bodyClockStyles() {
        #expect(Content.clock(time("13:00"), style: .twelveHour) == "1:00 pm")
        #expect(Content.clock(time("00:30"), style: .twelveHour) == "12:30 am")
        #expect(Content.clock(time("12:00"), style: .twelveHour) == "12:00 pm")
        #expect(Content.clock(time("09:05"), style: .twentyFourHour) == "09:05")
        #expect(Content.clock(time("13:00"), style: .twentyFourHour) == "13:00")
        #expect(
            Content.body(details: [nil, "Tea", nil, "Cake"], time: time("13:00"), clock: .twelveHour) == "Tea · Cake")
    }

    @Test("Titles join labels as English lists do")
    func titles() {
        #expect(Content.title(["Lunch"]) == "Lunch")
        #expect(Content.title(["Lunch", "Tablets"]) == "Lunch and Tablets")
        #expect(Content.title(["Lunch", "Tablets", "Drink"]) == "Lunch, Tablets and Drink")
    }
}

@Suite("An item's end, decided per date between instants")
struct EndPerDateTests {
    @Test("An end earlier on the clock is reported, and still ends the card on a date whose clock change puts it later")
    func endEarlierOnTheClockIsDecidedPerDate() throws {
        let text = #"""
            { "version": 1, "timeZone": "Europe/London", "settings": { "notifyInOtherApps": true },
              "items": [ { "id": "pills", "label": "Pills", "kind": "other", "time": "02:45", "end": "01:50",
                           "repeat": "daily" } ] }
            """#
        let load = try #require(try? HouseholdFile.parse(Array(text.utf8), file: "h.json", environment: [:]).get().load)
        #expect(load.problems.map(\.field) == ["end"])
        let plan = Planner.plan(load.household, from: instant("2026-03-28T12:00:00Z"), days: 2)
        // 29 March: 02:45 BST is 01:45Z; 01:50 does not exist and is read before the gap, 01:50Z: after it.
        #expect(plan.starts.first?.at == instant("2026-03-29T01:45:00Z"))
        #expect(plan.starts.first?.expiresAt == instant("2026-03-29T01:50:00Z"))
        // 30 March: 01:50 BST is before 02:45 BST: the card stays until the day ends.
        #expect(plan.starts.last?.at == instant("2026-03-30T01:45:00Z"))
        #expect(plan.starts.last?.expiresAt == instant("2026-03-30T23:00:00Z"))
    }
}
