// The daemon's writes to its state, as `StateWrites` makes them: lay.json first; when it cannot
// be written, a copy in the runtime directory; when that cannot be written either, the empty
// marker that tells a restart nothing can be proven. History lines are kept in memory until the
// disk takes them (a kill loses them).

import DaysomeCore

/// What one daemon has not written yet, and whether its runtime copy stands in for lay.json.
struct SimWrites: Sendable {
    private(set) var layBehind = false
    private(set) var unwritten: [HistoryRecord] = []
    private var unsavedKept: Bool

    init(disk: FakeStateDisk) {
        self.unsavedKept = disk.unsaved != nil || disk.unprovenMarker
    }

    var isBehind: Bool { self.layBehind || !self.unwritten.isEmpty }

    mutating func persist(_ state: PersistedState, disk: inout FakeStateDisk) {
        self.layBehind = true
        guard !disk.full else {
            if disk.runtimeFull {
                disk.unprovenMarker = true
            } else {
                disk.unsaved = state
            }
            self.unsavedKept = true
            return
        }
        disk.lay = state
        self.layBehind = false
        if self.unsavedKept {
            disk.unsaved = nil
            disk.unprovenMarker = false
            self.unsavedKept = false
        }
    }

    mutating func record(_ records: [HistoryRecord], disk: inout FakeStateDisk) {
        self.unwritten += records
        guard !disk.full, !self.unwritten.isEmpty else { return }
        disk.history += self.unwritten
        self.unwritten = []
    }

    mutating func retry(_ state: PersistedState, disk: inout FakeStateDisk) {
        if self.layBehind { self.persist(state, disk: &disk) }
        self.record([], disk: &disk)
    }
}
