// Never twice across a restart whose state directory refused the record of a call: the runtime
// directory's copy is merged without forgetting a call, and a start-up that cannot prove what
// was called drops what it owes instead of calling it again. On the virtual clock.

import DaysomeCore
import Testing

@Suite("Never twice across a state directory that refused writes")
struct NeverTwiceAcrossUnsavedStateTests {
    @Test func aRestartOfTheBootProvesWhatWasCalledOnlyFromARecordThatSaysSo() {
        func proven(_ kept: CallsKept?, copyRead: Bool = false, marker: Bool = false) -> Bool {
            StateProof.proven(
                kept: kept, legacyMarker: marker, unsavedRead: copyRead, sameBoot: true, layToResume: true
            ) { true }
        }
        #expect(proven(.layFile))
        #expect(proven(.runtimeCopy, copyRead: true))
        // Nothing written, a copy not read (another directory's, or unreadable), or nowhere: no proof.
        #expect(!proven(nil))
        #expect(!proven(nil, copyRead: true))
        #expect(!proven(.runtimeCopy))
        #expect(!proven(.nowhere, copyRead: true))
        #expect(!proven(.layFile, marker: true))
        // A first start of the boot with nothing to resume still calls.
        #expect(
            StateProof.proven(kept: nil, unsavedRead: false, sameBoot: false, layToResume: false) { false })
    }

    @Test("A restart inside grace whose lay.json missed the call, but whose runtime copy has it, calls nothing again")
    func theRuntimeCopyOfAnUnsavedCallKeepsItFromBeingCalledTwice() {
        var first = VirtualDaemon(lunchAndTea(), now: instant("2026-06-01T08:00:00Z"), display: .away)
        first.run(until: instant("2026-06-01T11:59:50Z"))
        // lay.json as the full disk left it: written before lunch, never after.
        let onDisk = first.machine.persisted
        first.run(until: instant("2026-06-01T12:00:30Z"))
        #expect(first.posts.map(\.start.title) == ["Lunch"])
        let unsaved = first.machine.persisted

        let merged = onDisk.merging(unsaved: unsaved)
        let second = VirtualDaemon(
            lunchAndTea(), now: instant("2026-06-01T12:02:00Z"), display: .away, persisted: merged)
        #expect(second.posts.isEmpty, "lunch was called a second time: \(second.posts.map(\.start.title))")
        #expect(second.machine.currentLay?.number == 1)
        // Without the copy, the same restart calls lunch again: this is what the copy prevents.
        let forgetful = VirtualDaemon(
            lunchAndTea(), now: instant("2026-06-01T12:02:00Z"), display: .away, persisted: onDisk)
        #expect(forgetful.posts.map(\.start.title) == ["Lunch"])
    }

    @Test("Merging lay.json with the runtime copy keeps the higher lay counter and every call either made")
    func mergingKeepsTheHigherCounterAndEveryCall() {
        let lunch = CalledOccurrence(itemId: "lunch", local: "2026-06-01T13:00:00", at: instant("2026-06-01T12:00:00Z"))
        let tea = CalledOccurrence(itemId: "tea", local: "2026-06-01T19:30:00", at: instant("2026-06-01T18:30:00Z"))
        let disk = PersistedState(layCounter: 4, called: [lunch])
        let copy = PersistedState(layCounter: 5, called: [tea])
        let merged = disk.merging(unsaved: copy)
        #expect(merged.layCounter == 5)
        #expect(Set(merged.called) == [lunch, tea])
        // A copy older than lay.json (written before lay.json caught up) never lowers the counter.
        let older = copy.merging(unsaved: PersistedState(layCounter: 3, called: [lunch]))
        #expect(older.layCounter == 5)
        #expect(Set(older.called) == [lunch, tea])
        #expect(disk.merging(unsaved: nil) == disk)
    }

    @Test("A start-up that cannot prove what was called drops the start it owes and records why, never calls it")
    func anUnprovenStartUpDropsWhatItOwesInsteadOfCallingItAgain() {
        var first = VirtualDaemon(lunchAndTea(), now: instant("2026-06-01T08:00:00Z"), display: .away)
        first.run(until: instant("2026-06-01T11:59:50Z"))
        var second = VirtualDaemon(
            lunchAndTea(), now: instant("2026-06-01T12:02:00Z"), display: .away, persisted: first.machine.persisted,
            stateProven: false)
        #expect(second.posts.isEmpty)
        let dropped = second.events(.dropped)
        #expect(dropped.map(\.at) == [instant("2026-06-01T12:00:00Z")])
        #expect(dropped.first?.reason?.contains("never twice") == true, "\(dropped)")
        // Only what was owed from before the restart: the lay resumes and tea is called at its minute.
        #expect(second.machine.currentLay?.number == 1)
        second.run(until: instant("2026-06-01T18:31:00Z"))
        #expect(second.posts.map(\.start.title) == ["Tea"])
    }
}
