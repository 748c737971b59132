// One daemon per state directory: the lock on the directory itself, given up the moment its
// holder lets go. (A read-only disk is locked too: StateDirectoryFaultTests restarts the real
// daemon on a tmpfs remounted read-only.)

import DaysomeFiles
import DaysomeTestSupport
import Glibc
import Testing

@Suite("The state directory's lock")
struct StateDirectoryLockTests {
    @Test func aStateDirectoryIsHeldByOneLockAtATimeAndFreeOnceItsHolderLetsGo() throws {
        let directory = try TestDirectory()
        let state = try directory.makeDirectory("state")
        var first: StateDirectoryLock? = try StateDirectoryLock(stateDirectory: state)
        #expect(first?.holds(state) == true)
        do {
            _ = try StateDirectoryLock(stateDirectory: state)
            Issue.record("a second lock on a held state directory was granted")
        } catch .taken(let taken) {
            #expect(taken.stateDirectory == state)
            #expect(taken.description.contains("already uses the state directory '\(state)'"))
        } catch {
            Issue.record("refused for another reason: \(error)")
        }
        first = nil
        let again = try StateDirectoryLock(stateDirectory: state)
        #expect(again.holds(state))
    }

    @Test func aLockIsOnTheDirectoryNotItsNameSoOneMadeAgainUnderItIsNotHeld() throws {
        let directory = try TestDirectory()
        let state = try directory.makeDirectory("state")
        let lock = try StateDirectoryLock(stateDirectory: state)
        #expect(rmdir(state) == 0)
        #expect(mkdir(state, 0o700) == 0)
        #expect(!lock.holds(state), "a directory made anew under the same name counted as held")
        // Nothing holds the new one: it is free to take.
        #expect(throws: Never.self) { _ = try StateDirectoryLock(stateDirectory: state) }
    }

    @Test func aMissingStateDirectoryIsAFileErrorNotATakenOne() {
        #expect {
            _ = try StateDirectoryLock(stateDirectory: "/nonexistent-daysome-state")
        } throws: { error in
            guard case .file(let file) = error as? StateDirectoryLockError else { return false }
            return file.errno == ENOENT
        }
    }
}
