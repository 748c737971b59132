// The world, read into events: the wheel's one realtime timer, the display state file and the
// display's process, the household file, and the system zone.

import DaysomeCore
import DaysomeFiles
import Glibc
import SystemdKit

extension Manager {
    /// sd-event's SD_EVENT_PRIORITY_IDLE: dispatched only when nothing else is ready.
    static let idlePriority: Int64 = 100
    /// The deferred publication: after every ordinary source, before the idle one.
    static let publishPriority: Int64 = 50

    func watch() throws {
        let paths = self.options.paths
        self.wheelTimer = try self.loop.timer(
            clock: CLOCK_REALTIME, at: UInt64.max, accuracy: 1_000, description: "wheel"
        ) {
            [weak self] in self?.wheelTimerFired()
        }
        try self.wheelTimer?.setEnabled(.off)
        let changes: InotifyMask = [.closeWrite, .movedTo, .movedFrom, .delete, .create]
        let displayName = basename(of: paths.displayState)
        do {
            self.displayWatch = try self.loop.inotify(
                path: directory(of: paths.displayState), mask: changes, description: "display-state"
            ) {
                [weak self] event in
                // Nameless is the kernel's IN_Q_OVERFLOW (sd-event hands it to every source of the
                // instance): the write it lost may be her return, so the file is read again.
                if event.name == displayName || event.name == nil { self?.displayFileChanged() }
            }
        } catch {
            // EMFILE here is the per-user inotify limit (fs.inotify.max_user_instances), not a file.
            throw DaemonError.setup(
                "Failed to watch '\(directory(of: paths.displayState))' for the display state: \(error)")
        }
        // The display's return must be seen before a start that is due in the same iteration.
        try self.displayWatch?.setPriority(-10)
        self.reloadHousehold = try self.loop.deferred(description: "household-reload") { [weak self] in
            self?.householdChanged()
        }
        try self.reloadHousehold?.setEnabled(.off)
        self.publication = try self.loop.deferred(description: "publish") { [weak self] in
            self?.publishNow()
        }
        try self.publication?.setEnabled(.off)
        // After what is ready now, so that a burst is published once; before the judgement of
        // starts held in a stall, which publishes what it decided.
        try self.publication?.setPriority(Self.publishPriority)
        self.caughtUp = try self.loop.deferred(description: "caught-up") { [weak self] in
            self?.handle(.caughtUp)
        }
        try self.caughtUp?.setEnabled(.off)
        // Last of all that is ready: a lock read in the same wake-up as a return counts.
        try self.caughtUp?.setPriority(Self.idlePriority)
        self.watchHouseholdDirectory()
        self.watchHouseholdTargets()
        self.clockWatch = try self.loop.clockJumps(description: "clock-jump") { [weak self] in
            self?.handle(.clockChanged(reason: "the clock jumped"))
        }
        // The system zone: /etc/localtime is replaced by a new symlink when it changes.
        self.zoneWatch = try? self.loop.inotify(
            path: "/etc", mask: [.closeWrite, .movedTo, .create, .delete], description: "zone"
        ) {
            [weak self] event in
            // Nameless: the queue overflowed and a change of the zone may be among what it lost.
            if event.name == "localtime" || event.name == "timezone" || event.name == nil { self?.zoneChanged() }
        }
    }

    func wheelTimerFired() {
        // Read the display first: a return written a moment ago wins over the start (rule 1).
        if let display = self.readDisplay(startup: false), display != self.machine.display {
            self.handle(.display(display))
        }
        self.handle(.timer)
    }

    func displayFileChanged() {
        let hadProblem = self.displayFileProblem != nil
        guard let display = self.readDisplay(startup: false) else {
            // Nothing changes for the machine, but status now names the unusable line; and a
            // restart must not take this write, which this daemon read, for a return.
            self.execute(self.machine.displayWritten(at: self.displayStateWritten()))
            self.publish()
            return
        }
        self.handle(.display(display))
        // A good line clears the unreadable-line note now, also when it says what the daemon
        // already acts on (nothing else changed, so nothing else published).
        if hadProblem { self.publish() }
    }

    /// Reads the display state file. Missing means away; an unreadable line is foreground at
    /// start-up and keeps the previous state later (nil), and is kept for `status` until a good
    /// line is read. Arms the pid watch when a pid is named.
    func readDisplay(startup: Bool) -> DisplayState? {
        let path = self.options.paths.displayState
        let keeping = startup ? DisplayState.foreground : self.machine.screenLock.file
        let line: DisplayStateLine
        do {
            // A symlink planted in place of the state file is refused (ELOOP), not followed.
            let bytes = try self.disk.read(path, limit: 4_096, followLinks: false, regularOnly: true)
            guard let parsed = DisplayStateLine(parsing: String(decoding: bytes, as: UTF8.self)) else {
                let message = "Display state file '\(path)' holds neither 'foreground' nor 'away'"
                self.logger.log(
                    .warning,
                    "\(message); \(startup ? "treating it as foreground" : "keeping \(self.machine.display.rawValue)")")
                self.displayFileProblem = DisplayFileProblem(
                    line: DisplayFileProblem.shownLine(bytes), message: message, keeping: keeping)
                return startup ? .foreground : nil
            }
            line = parsed
        } catch {
            if error.errno == ENOENT {
                self.displayFileProblem = nil
                return self.setDisplayLine(DisplayStateLine(state: .away))
            }
            self.logger.log(
                .warning,
                "\(error); \(startup ? "treating the display as foreground" : "keeping \(self.machine.display.rawValue)")"
            )
            self.displayFileProblem = DisplayFileProblem(line: nil, message: error.description, keeping: keeping)
            return startup ? .foreground : nil
        }
        self.displayFileProblem = nil
        return self.setDisplayLine(line)
    }

    /// When the display state file was last written (its mtime), or nil when it is missing.
    func displayStateWritten() -> Instant? {
        guard let info = self.disk.status(self.options.paths.displayState, followLinks: false) else { return nil }
        // Whole seconds, rounded down as st_mtim's tv_sec is (also before 1970).
        let seconds = info.modified / 1_000_000_000
        return Instant(seconds: info.modified % 1_000_000_000 < 0 ? seconds - 1 : seconds)
    }

    func setDisplayLine(_ line: DisplayStateLine) -> DisplayState {
        self.lastDisplayLine = line
        let file = self.displayFileStamp()
        switch self.displayProcesses.read(line, writtenAt: file?.modified, file: file) {
        case .decided(let state, let note):
            self.followDisplayProcess(opened: nil)
            if let note { self.logger.log(.notice, note) }
            return state
        case .lookAt(let pid):
            var opened: Pidfd?
            let process: DisplayProcessRule.Process
            do {
                let fd = try Pidfd.open(pid: pid)
                // A zombie still has a pidfd, already readable: it has exited.
                process = fd.hasExited ? .exited : .running
                opened = fd
            } catch {
                process = .gone("\(error)")
            }
            let (state, note) = self.displayProcesses.found(process, pid, at: self.clock.nanoseconds, file: file)
            if let note { self.logger.log(.notice, note) }
            return self.followDisplayProcess(opened: opened) ? state : .away
        }
    }

    /// Keeps the exit watch on the pid the rule watches: dropped when it watches another or none,
    /// started on `opened` when that is the pid it now watches. False where that watch could not
    /// start: unwatched, the display would stay in front after its process died, so it is away.
    @discardableResult
    func followDisplayProcess(opened: Pidfd?) -> Bool {
        let watched = self.displayProcesses.watched
        guard self.displayPid?.pid != watched else { return true }
        self.displayPid?.source.cancel()
        self.displayPid = nil
        guard let watched, let fd = opened else { return true }
        do {
            let source = try self.loop.pidfdExit(fd.rawValue, description: "display-pid") { [weak self] in
                self?.displayProcessExited(watched)
            }
            self.displayPid = (watched, fd, source)
            return true
        } catch {
            self.logger.log(
                .notice, "The display's process \(watched) cannot be watched (\(error)); the display is away")
            _ = self.displayProcesses.watchedExited(
                watched, at: self.clock.nanoseconds, last: nil, file: self.displayFileStamp())
            return false
        }
    }

    /// Which display state file is in place (its inode and mtime); nil when missing.
    func displayFileStamp() -> DisplayFileStamp? {
        guard let info = self.disk.status(self.options.paths.displayState, followLinks: false) else { return nil }
        return DisplayFileStamp(inode: info.inode, modified: info.modified)
    }

    /// The display's exits an earlier daemon of this boot kept (none after a boot: the runtime
    /// directory is new), so its crashed display's line stays away when its pid was taken since.
    static func readDisplayExits(_ paths: Paths, disk: any StateDisk) -> DisplayProcessRule {
        // Not followed, and only a regular file: a pipe planted there must not block the start.
        let read = try? disk.read(paths.displayExitsFile, limit: 1 << 16, followLinks: false, regularOnly: true)
        guard let bytes = read else { return DisplayProcessRule() }
        return DisplayProcessRule(
            remembering: DisplayProcessRule.exits(fromText: String(decoding: bytes, as: UTF8.self)))
    }

    /// Keeps the display's exits in the runtime directory; where it refuses them (full, out of
    /// inodes), in the lock file's record, which needs no new space, so a restart of this boot
    /// still knows them.
    func keepDisplayExits() {
        do {
            try self.disk.writeAtomically(self.options.paths.displayExitsFile, self.displayProcesses.exitsText)
            self.writes.keepDisplayExitsInRecord(nil)
        } catch {
            self.logger.log(
                .notice, "The display's exits could not be kept in their file, so the lock file keeps them: \(error)")
            self.writes.keepDisplayExitsInRecord(self.displayProcesses.exitsText)
        }
    }

    func displayProcessExited(_ pid: Int32) {
        let note = self.displayProcesses.watchedExited(
            pid, at: self.clock.nanoseconds, last: self.lastDisplayLine, file: self.displayFileStamp())
        self.followDisplayProcess(opened: nil)
        guard let note else { return }
        self.logger.log(.notice, note)
        self.handle(.display(.away))
    }

    func loadHousehold() -> Result<LoadedHousehold, HouseholdFileError> {
        let path = self.options.paths.household
        let now = self.now()
        // One read: the digest is that of the bytes parsed, even while the file is being replaced.
        let read = HouseholdFile.loadWithDigest(path, environment: self.environment, regularOnly: true, disk: self.disk)
        return read.map {
            self.lastReadHousehold = (bytes: $0.bytes, digest: $0.digest)
            return LoadedHousehold(load: $0.load, digest: $0.digest, loadedAt: now)
        }
    }

    /// The kept copy of the last good household, parsed; nil when there is none or it cannot be
    /// trusted (reported, and set aside). The runtime directory's copy, which the state directory
    /// refused, is newer than the state directory's, and read first.
    func loadKeptHousehold() -> LoadedHousehold? {
        // Newest of all: the household in force that neither directory could keep a copy of, in
        // the earlier daemon's record (RuntimeRecord.swift).
        if let copy = self.recordedHousehold,
            let household = self.loaded(copy, from: DaemonLock.path(in: self.options.paths.runtimeDirectory))
        {
            self.logger.log(
                .notice, "Read the household in force no directory could keep from the earlier daemon's record")
            self.saveKeptCopy()
            return household
        }
        let unsaved = LastGoodHousehold.unsavedPath(in: self.options.paths)
        if let household = self.loadKeptHousehold(from: unsaved) {
            self.unsavedCopyDigest = household.digest
            self.logger.log(.notice, "Read the household copy the state directory could not keep from '\(unsaved)'")
            self.saveKeptCopy()
            return household
        }
        return self.loadKeptHousehold(from: LastGoodHousehold.path(in: self.options.paths))
    }

    private func loadKeptHousehold(from path: String) -> LoadedHousehold? {
        let (copy, problem) = LastGoodHousehold.load(from: path, disk: self.disk)
        if let problem {
            let aside = (try? self.disk.setAside(path, now: self.now())).map { "set aside as '\($0)'" } ?? "kept"
            let reported = HouseholdProblem(
                file: path, itemId: nil, field: problem.field, message: "\(problem.message); \(aside)")
            self.stateProblems.append(reported)
            self.logger.log(.error, reported.description)
            return nil
        }
        guard let copy else { return nil }
        if copy.readFormat < LastGoodHousehold.format {
            // An older daemon's copy held the whole file, the PIN and note among them.
            do {
                try copy.save(to: path, disk: self.disk)
            } catch {
                self.logger.log(.warning, "\(error): the kept household copy stays in its older format")
            }
        }
        return self.loaded(copy, from: path)
    }

    /// A kept copy parsed, and remembered as the copy in force; nil when it cannot be laid from.
    private func loaded(_ copy: LastGoodHousehold, from path: String) -> LoadedHousehold? {
        switch HouseholdFile.parse(copy.bytes, file: path, environment: self.environment) {
        case .success(let parsed):
            // Its digest is the file's, so a lay made from that file resumes under its number.
            self.keptDigest = copy.fileDigest
            self.keptCopy = copy
            return LoadedHousehold(load: parsed.load, digest: copy.fileDigest, loadedAt: copy.since, fromKeptCopy: true)
        case .failure(let error):
            // A zone that vanished from the system, say: the copy cannot be laid from any more.
            self.logger.log(.warning, "The kept household copy '\(path)' cannot be used: \(error)")
            return nil
        }
    }

    /// Keeps the household the machine now lays from in the state directory, when it came from
    /// the file and differs from the copy kept (rule 9 across restarts and reboots).
    func keepHousehold() {
        guard let household = self.machine.household, !household.fromKeptCopy, household.digest != self.keptDigest,
            let read = self.lastReadHousehold, read.digest == household.digest,
            let copy = LastGoodHousehold.keeping(
                fileBytes: read.bytes, source: self.options.paths.household, since: household.loadedAt)
        else { return }
        self.keptDigest = household.digest
        self.keptCopy = copy
        self.saveKeptCopy()
    }

    /// Writes the kept copy into the state directory. While that refuses it, the copy goes to
    /// the runtime directory too: a daemon restarted meanwhile with a broken household file
    /// lays from the family's last good words, not from the older copy the state directory holds.
    func saveKeptCopy() {
        guard let copy = self.keptCopy else { return }
        let path = LastGoodHousehold.path(in: self.options.paths)
        let unsaved = LastGoodHousehold.unsavedPath(in: self.options.paths)
        do {
            try self.publisher.faults.check(path)
            try LastGoodHousehold.save(self.keptCopyFile.bytes(of: copy) { $0.file }, to: path, disk: self.disk)
            self.keptCopyFile.forget()
            try? self.disk.removeFile(unsaved)
            self.unsavedCopyDigest = nil
            self.writes.keepInRecord(nil)
            self.writes.kept(path, nil, now: self.now())
        } catch {
            // Written again by the retry (StateWrites.swift).
            self.writes.kept(path, error, now: self.now())
            guard self.unsavedCopyDigest != copy.fileDigest else { return }
            do {
                try self.publisher.faults.check(unsaved)
                try LastGoodHousehold.save(
                    self.keptCopyFile.bytes(of: copy) { $0.file }, to: unsaved, durable: false, disk: self.disk)
                self.unsavedCopyDigest = copy.fileDigest
                self.writes.keepInRecord(nil)
            } catch {
                // The runtime directory is full too: the lock file's record keeps it, written in
                // place, so a restart with a broken file still lays the family's last good words.
                self.writes.keepInRecord(copy)
                self.logger.log(
                    .warning,
                    "\(error); the household in force is kept in the daemon's record until '\(path)' is written")
            }
        }
    }

    func scheduleHouseholdReload() {
        // Editors write in bursts: one reload on the next iteration covers them all.
        try? self.reloadHousehold?.setEnabled(.oneshot)
    }

    func householdChanged() {
        // The app may have just created the directory the daemon was waiting for.
        if self.householdWatchedPath != directory(of: self.options.paths.household) || self.householdWatch == nil {
            self.watchHouseholdDirectory()
        }
        // The link may lead elsewhere now: watched again before the read, so no edit falls between.
        self.watchHouseholdTargets()
        self.handle(.household(self.loadHousehold()))
    }

    /// Watches the household file's directory for the app's renames. On a first boot that
    /// directory may not exist yet (the app has not run, and the unit's home is read-only, so the
    /// daemon cannot make it): the nearest existing ancestor is watched instead, moving down as the
    /// path is created, and the household is read the moment it appears. Never an error that ends
    /// the daemon; the missing path is reported as the household's error.
    func watchHouseholdDirectory() {
        let target = directory(of: self.options.paths.household)
        let (watched, wanted, atTarget) = Self.watchPoint(for: self.options.paths.household, on: self.disk)
        guard watched != self.householdWatchedPath else { return }
        self.householdWatch?.cancel()
        self.householdWatch = nil
        self.householdWatchedPath = nil
        let mask = Self.householdMask(atTarget: atTarget)
        do {
            self.householdWatch = try self.loop.inotify(path: watched, mask: mask, description: "household") {
                [weak self] event in
                // The watched directory itself went: watch again from where the path now ends.
                if !event.mask.isDisjoint(with: [.deleteSelf, .moveSelf]) { self?.householdWatchedPath = nil }
                if event.name == wanted || event.name == nil { self?.scheduleHouseholdReload() }
            }
            self.householdWatchedPath = watched
            if !atTarget {
                // Created between the look and the watch: look again on the next iteration.
                self.scheduleHouseholdReload()
                self.logger.log(
                    .notice,
                    "The household directory '\(target)' does not exist yet; watching '\(watched)' until the display app creates it"
                )
            }
        } catch {
            self.logger.log(.error, "Failed to watch '\(watched)' for the household file: \(error), ignoring")
        }
    }

    /// Where to watch for `path`: its directory, named by its own name, or while that directory
    /// does not exist its nearest existing ancestor, named by the next directory down the path
    /// (only that name matters there: ~/.config is busy with other apps' files).
    /// Asked of the state disk, so that a simulated tablet's directories are the ones looked at.
    static func watchPoint(
        for path: String, on disk: any StateDisk
    ) -> (directory: String, name: String, atTarget: Bool) {
        let target = directory(of: path)
        var watched = target
        while watched != "/" && watched != "." && !disk.isDirectory(watched) {
            watched = directory(of: watched)
        }
        guard watched != target else { return (watched, basename(of: path), true) }
        return (watched, String(target.dropFirst(watched == "/" ? 1 : watched.count + 1).prefix { $0 != "/" }), false)
    }

    /// What a household watch listens for: the file's writes and renames in its own directory,
    /// the next directory made in an ancestor; the directory itself going away (the app removed
    /// it) sends the watch back up the path.
    static func householdMask(atTarget: Bool) -> InotifyMask {
        atTarget
            ? [.closeWrite, .movedTo, .movedFrom, .delete, .create, .deleteSelf, .moveSelf]
            : [.create, .movedTo, .deleteSelf, .moveSelf]
    }

    /// A household behind a symlink (an app that keeps its file elsewhere and links it): the
    /// watch on the link's directory sees the link change, never an edit of its target, so each
    /// target along the chain is watched in its own directory too (first-boot's rule for one that
    /// does not exist yet). The chain is resolved again at every reload, so a link changed moves
    /// the watches with it; the new ones are added before the old go, so an inode watched by both
    /// is never unwatched in between.
    func watchHouseholdTargets() {
        var wanted: [String: Set<String>] = [:]
        var masks: [String: InotifyMask] = [:]
        var waitsForADirectory = false
        var path = self.options.paths.household
        // SYMLOOP_MAX: a longer chain does not open either.
        for _ in 0..<40 {
            guard let target = self.disk.linkTarget(path) else { break }
            path = target.hasPrefix("/") ? target : directory(of: path) + "/" + target
            let point = Self.watchPoint(for: path, on: self.disk)
            // Canonical: the same directory reached by two spellings is watched once.
            let watched = Self.canonical(point.directory)
            wanted[watched, default: []].insert(point.name)
            masks[watched, default: []].formUnion(Self.householdMask(atTarget: point.atTarget))
            waitsForADirectory = waitsForADirectory || !point.atTarget
        }
        var watches: [String: any LoopSource] = [:]
        for (watched, names) in wanted {
            do {
                watches[watched] = try self.loop.inotify(
                    path: watched, mask: masks[watched] ?? [], description: "household-target"
                ) { [weak self] event in
                    if event.name.map({ names.contains($0) }) ?? true { self?.scheduleHouseholdReload() }
                }
            } catch {
                self.logger.log(
                    .error, "Failed to watch '\(watched)' for the household's link target: \(error), ignoring")
            }
        }
        let moved = Set(watches.keys) != Set(self.householdTargetWatches.keys)
        for old in self.householdTargetWatches.values { old.cancel() }
        self.householdTargetWatches = watches
        // A target's directory made between the look and the watch: look again once it moved.
        if moved && waitsForADirectory { self.scheduleHouseholdReload() }
    }

    /// `path` with every link and `..` resolved, or as it is where it cannot be.
    static func canonical(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    func zoneChanged() {
        self.handle(.household(self.loadHousehold()))
        self.handle(.clockChanged(reason: "the system zone changed"))
    }
}
