// One screensaver interface followed as a locker: org.freedesktop.ScreenSaver or
// org.gnome.ScreenSaver on the session bus. Its `ActiveChanged` signal, and `GetActive` when
// followed and whenever its name gets an owner. An interface nobody offers, or one that refuses
// GetActive (gsd's proxy answers NotSupported under Phosh), says nothing: it is not a locker.

import DaysomeCore
import SystemdKit

/// Follows one screensaver interface on a session bus connection; `said` gets each word.
final class ScreenSaverWatch {
    /// A locker's word (nil: it says nothing), and why, for status.
    typealias Said = (Bool?, String) -> Void

    private let saver: any ScreenSaverPeer
    private let said: Said
    private let name: String
    private let label: String
    private var activeMatch: AnyObject?
    private var ownerMatch: AnyObject?

    /// Installs the matches and asks `GetActive`: on the loop, or, with `blockingFor`, here
    /// before returning (start-up, so the first decision knows the lock).
    /// - Parameters:
    ///   - name: its interface's name, which status gives as the locker's word.
    ///   - label: what status calls it ("screensaver", "GNOME screensaver").
    init(_ saver: any ScreenSaverPeer, name: String, label: String, blockingFor: UInt64?, said: @escaping Said) {
        self.saver = saver
        self.said = said
        self.name = name
        self.label = label
        // Installed before the first GetActive, so that no change falls between the two.
        self.activeMatch = try? self.saver.onActiveChanged { active in said(active, name) }
        // A locker that crashed while active must not hold the display away for ever.
        self.ownerMatch = try? self.saver.onOwnerChanged { [weak self] owner in
            if owner == nil {
                said(nil, "the \(label) went away")
            } else {
                self?.askActive(blockingFor: nil)
            }
        }
        self.askActive(blockingFor: blockingFor)
    }

    private func askActive(blockingFor: UInt64?) {
        let name = self.name
        let label = self.label
        let said = self.said
        self.saver.getActive(blockingFor: blockingFor) { result in
            switch result {
            case .success(let active):
                said(active, name)
            case .failure(let error)
            where error.name == BusError.serviceUnknown || error.name == BusError.nameHasNoOwner:
                said(nil, "no \(label) on the session bus")
            case .failure(let error) where error.name == BusError.notSupported || error.name == BusError.unknownMethod:
                said(nil, "the \(label) does not say whether it is active (\(error.name)): no locker there")
            case .failure(let error):
                said(nil, "the \(label) did not answer (\(error))")
            }
        }
    }
}

@available(*, unavailable)
extension ScreenSaverWatch: Sendable {}
