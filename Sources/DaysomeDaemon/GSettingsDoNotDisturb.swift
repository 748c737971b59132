// Following GNOME Shell's and Phosh's Do Not Disturb: GSettings `org.gnome.desktop.notifications`
// `show-banners` false. Neither shell says it on the bus; the settings backend announces each
// write: dconf-service's `ca.desrt.dconf.Writer.Notify` signal on the session bus (after the
// database is written), or, for GLib's keyfile backend, the key file rewritten (inotify on its
// directory). The file is read again then, never on a timer.

import DaysomeCore
import DaysomeFiles
import Glibc
import SystemdKit

/// The watch on the `show-banners` key, while a GNOME Shell or Phosh server answers.
final class GSettingsDoNotDisturb {
    private let store: GSettingsStore
    private var slot: BusSlot?
    private var watch: EventSource?
    private let changed: (ServerDoNotDisturb) -> Void

    /// Subscribes to the store's change announcement and reads the key once; nil where GLib keeps
    /// the settings in no file the daemon can read (`GSETTINGS_BACKEND=memory`), or the
    /// announcement cannot be followed.
    init?(bus: Bus, loop: EventLoop, environment: [String: String], changed: @escaping (ServerDoNotDisturb) -> Void) {
        guard let store = GSettingsStore.locate(environment: environment) else { return nil }
        self.store = store
        self.changed = changed
        do throws(Errno) {
            switch store {
            case .dconf:
                // Any path: the user database's writer is `/ca/desrt/dconf/Writer/user`.
                self.slot = try bus.addMatch("type='signal',interface='ca.desrt.dconf.Writer',member='Notify'") {
                    [weak self] _ in self?.read()
                }
            case .keyfile(let file):
                // GLib rewrites the key file by rename; its directory is made as GLib makes it.
                let directory = String(file[..<(file.lastIndex(of: "/") ?? file.endIndex)])
                try? FileIO.makeDirectories(directory, mode: 0o700)
                self.watch = try loop.addInotify(
                    path: directory, mask: [.closeWrite, .movedTo, .delete], description: "GSettings key file"
                ) { [weak self] _, event in
                    if event.name == "keyfile" { self?.read() }
                }
            }
        } catch {
            return nil
        }
        self.read()
    }

    /// Reads the key and says what the switch is now.
    func read() {
        let bytes: [UInt8]?
        do {
            bytes = try FileIO.read(self.store.file, limit: 16 << 20, regularOnly: true)
        } catch {
            // No file yet: nothing was ever set, so every key has its default.
            guard error.cause == .system(Errno(rawValue: ENOENT)) else {
                self.changed(.unknown)
                return
            }
            bytes = nil
        }
        guard let showBanners = GSettingsKey.showBanners.value(in: self.store, bytes: bytes) else {
            self.changed(.unknown)
            return
        }
        self.changed(showBanners ? .off : .on)
    }
}
