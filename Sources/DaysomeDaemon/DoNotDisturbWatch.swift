// Following a notification server's Do Not Disturb on the session bus: one subscription to the
// server's own change signal (`OnEveryDesktop.doNotDisturbFollow`), held while that server
// answers. No timer: the daemon learns a change when the server says it, and asks again only
// where the signal says "changed" without the value. GSettings' `show-banners` (GNOME Shell,
// Phosh) is followed by GSettingsDoNotDisturb.swift.

import DaysomeCore
import SystemdKit

/// The subscription to one server's Do Not Disturb signal.
final class DoNotDisturbWatch: DoNotDisturbFollowing {
    /// The server name it follows (`GetServerInformation`).
    let serverName: String
    private var slots: [BusSlot] = []
    /// Whether the signal is followed (for mako, once its `Modes` property was found).
    private(set) var followed = false

    /// Subscribes to the change signal of `serverName`'s Do Not Disturb, if it has one;
    /// `changed` gets the new value, or nil where the signal only says it changed (ask again);
    /// `settled` runs once it is known whether the signal is followed (at once, except where
    /// the server is asked whether it has the property first).
    init(
        bus: Bus, serverName: String, changed: @escaping (ServerDoNotDisturb?) -> Void,
        settled: @escaping () -> Void
    ) {
        self.serverName = serverName
        guard let follow = OnEveryDesktop.doNotDisturbFollow(serverName: serverName) else {
            settled()
            return
        }
        guard follow.followsOnlyIfPresent,
            case .propertyThenQuery(let sender, let path, let interface, let property) =
                follow.signal
        else {
            self.subscribe(bus, follow.signal, changed)
            settled()
            return
        }
        // mako 1.7 has no `Modes` property and sends nothing when its modes change: followed
        // only where the property is there. Asking never starts a server.
        bus.getProperty(
            destination: sender, path: path, interface: interface, name: property, autoStart: false,
            read: { reply throws(Errno) in try reply.skip("v") },
            completion: { [weak self] result in
                guard let self else { return }
                if case .success = result { self.subscribe(bus, follow.signal, changed) }
                settled()
            })
    }

    /// Installs the match for `signal`; `followed` says whether it took.
    private func subscribe(_ bus: Bus, _ signal: DoNotDisturbSignal, _ changed: @escaping (ServerDoNotDisturb?) -> Void)
    {
        do throws(Errno) {
            switch signal {
            case .booleanProperty(let sender, let path, let interface, let property):
                self.slots.append(
                    try bus.onPropertyChanged(
                        sender: sender, path: path, interface: interface, name: property,
                        // The whole variant is read, so that the entries after it still parse.
                        read: { message throws(Errno) -> Bool? in
                            guard case .bool(let value) = try message.readVariant() else { return nil }
                            return value
                        },
                        { value in changed(value.flatMap { $0 }.map { $0 ? .on : .off }) }))
            case .secondArgument(let sender, let path, let interface, let members):
                for member in members {
                    let rule =
                        "type='signal',sender='\(sender)',path='\(path)',interface='\(interface)',member='\(member)'"
                    self.slots.append(
                        try bus.addMatch(rule) { message in
                            guard (try? message.readUInt32()) != nil, let on = try? message.readBool() else {
                                changed(nil)
                                return
                            }
                            changed(on ? .on : .off)
                        })
                }
            case .xfconfProperty(let channel, let property):
                let base =
                    "type='signal',sender='org.xfce.Xfconf',path='/org/xfce/Xfconf',interface='org.xfce.Xfconf',"
                    + "arg0='\(channel)',arg1='\(property)',member="
                self.slots.append(
                    try bus.addMatch(base + "'PropertyChanged'") { message in
                        _ = try? message.readString()
                        _ = try? message.readString()
                        guard case .bool(let on)? = try? message.readVariant() else {
                            changed(nil)
                            return
                        }
                        changed(on ? .on : .off)
                    })
                // A reset puts the switch back to its default: off.
                self.slots.append(try bus.addMatch(base + "'PropertyRemoved'") { _ in changed(.off) })
            case .propertyThenQuery(let sender, let path, let interface, let property):
                self.slots.append(
                    try bus.onPropertyChanged(
                        sender: sender, path: path, interface: interface, name: property,
                        read: { message throws(Errno) in try message.skip("v") }, { _ in changed(nil) }))
            }
            self.followed = true
        } catch {
            self.slots = []
            self.followed = false
        }
    }
}
