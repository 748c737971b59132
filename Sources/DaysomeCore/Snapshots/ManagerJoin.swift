// The systemd backend's queue as `pending` prints it: the manager's daysome- timers (each entry an
// expression naming starts, CalendarSpec, and its next elapse) joined with the lay record the
// daemon published. A timer that belongs to no lay is shown, not hidden. Pure: `daysomectl` joins
// what the manager or the daemon's relay said, and the daemon joins what the manager last said
// with its own record, by this one function, so both print the same bytes.

extension ManagerTimers {
    /// Every start these timers still hold, with its lay record's items and title: what `pending`
    /// prints for the systemd backend, joined by `daysomectl` or by the daemon that relays it.
    public func queue(joinedWith published: QueueSnapshot, running: Bool, now: Instant) -> QueueSnapshot {
        var pending: [QueueSnapshot.Entry] = []
        var known = PublishedStarts(published.pending)
        let currentLay = published.lay
        for unit in self.units.sorted(by: { $0.name < $1.name }) {
            let lay = Self.layNumber(of: unit.name)
            for entry in unit.entries {
                // 0 or UInt64.max: the entry will not elapse again.
                guard entry.nextElapse != 0, entry.nextElapse != UInt64.max else { continue }
                let next = Instant(seconds: Int64(entry.nextElapse / 1_000_000))
                // An entry is an expression naming several starts (CalendarSpec); the manager's
                // next elapse says which are still ahead. systemd 252 leaves an entry that elapsed
                // for the last time at that instant, so only those after now are pending. A spec
                // this daemon did not write stands for its next elapse.
                let ahead = (CalendarSpec.instants(of: entry.spec) ?? [next]).filter { $0 >= next && $0 > now }
                for at in ahead {
                    // Each start at that instant once: two entries naming it elapse once.
                    let records = lay == currentLay ? known.take(at) : []
                    guard !records.isEmpty else {
                        pending.append(
                            QueueSnapshot.Entry(
                                lay: lay, at: at, local: at.rfc3339, itemIds: [],
                                title: lay == currentLay ? "(not in the lay record)" : "(belongs to no current lay)",
                                handle: unit.name))
                        continue
                    }
                    for record in records {
                        pending.append(
                            QueueSnapshot.Entry(
                                lay: lay, at: at, local: record.local, itemIds: record.itemIds, title: record.title,
                                handle: unit.name))
                    }
                }
            }
        }
        return QueueSnapshot(
            backend: "systemd", display: published.display, lay: published.lay, daemonRunning: running,
            publisher: nil, pending: pending.sorted { $0.at < $1.at })
    }

    /// The lay record's entries by instant, each instant's taken once. Ordered and searched, not
    /// hashed: a dense week joins 10,080 entries, and a hashed table's first use (its type made at
    /// run time) cost `pending` more than the join itself.
    private struct PublishedStarts {
        private let entries: [QueueSnapshot.Entry]
        private var taken: [Bool]

        init(_ published: [QueueSnapshot.Entry]) {
            // Stable: entries at one instant keep the record's order.
            self.entries = published.indices.sorted {
                (published[$0].at, $0) < (published[$1].at, $1)
            }.map { published[$0] }
            self.taken = [Bool](repeating: false, count: published.count)
        }

        /// The entries at `at`, in the record's order; none once taken.
        mutating func take(_ at: Instant) -> ArraySlice<QueueSnapshot.Entry> {
            var low = 0
            var high = self.entries.count
            while low < high {
                let middle = (low + high) / 2
                if self.entries[middle].at < at { low = middle + 1 } else { high = middle }
            }
            var end = low
            while end < self.entries.count && self.entries[end].at == at { end += 1 }
            guard low < end, !self.taken[low] else { return [] }
            self.taken[low] = true
            return self.entries[low..<end]
        }
    }

    /// `daysome-lay12-3.timer` → 12.
    public static func layNumber(of unit: String) -> UInt64? {
        guard unit.hasPrefix("daysome-lay") else { return nil }
        let digits = unit.dropFirst("daysome-lay".count).prefix { $0.isNumber }
        return UInt64(digits)
    }
}
