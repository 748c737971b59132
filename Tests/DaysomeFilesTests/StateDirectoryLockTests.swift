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

@Suite("The state directory as a file, and its lock before it exists")
struct StateDirectoryIdentityTests {
    @Test func oneDirectoryNamedWithASlashWithDotsOrThroughALinkIsOneDirectoryAndOneMissingIsItsCanonicalPath() throws {
        let directory = try TestDirectory()
        let state = try directory.makeDirectory("state")
        #expect(symlink(state, directory.path + "/link") == 0)
        let named = FileIdentity.of(state)
        for other in [state + "/", directory.path + "/./state", directory.path + "/link", directory.path + "/link/"] {
            #expect(FileIdentity.of(other).isSame(as: named), "\(other) is not '\(state)'")
        }
        #expect(!FileIdentity.of(directory.path).isSame(as: named))
        // Not there yet: its canonical path, through the link, names it.
        let missing = FileIdentity.of(directory.path + "/link/daysome/")
        #expect(missing.node == nil)
        #expect(missing.isSame(as: FileIdentity.of(FileIdentity.canonical(state) + "/daysome")))
    }

    @Test func aStateDirectoryThatCannotBeCreatedIsHeldThroughTheNearestDirectoryAboveUntilItIs() throws {
        let directory = try TestDirectory()
        // A file where a parent should be: nothing under it can be made.
        try FileIO.writeAtomically(directory.path + "/blocked", "a file\n")
        let state = directory.path + "/blocked/daysome"
        let standIn = try StateDirectoryLock(standingInFor: state)
        #expect(standIn.lockedPath == FileIdentity.canonical(directory.path))
        do {
            _ = try StateDirectoryLock(standingInFor: state)
            Issue.record("a second daemon on the missing state directory was let run")
        } catch .taken(let taken) {
            #expect(taken.description.contains("holds '\(FileIdentity.canonical(directory.path))'"), "\(taken)")
        } catch {
            Issue.record("refused for another reason: \(error)")
        }
    }
}
