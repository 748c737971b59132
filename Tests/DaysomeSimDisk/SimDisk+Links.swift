// What a symlink on the simulated disk points to, as readlink(2) says: the daemon resolves a
// household behind a link itself, to watch each target's directory.

import DaysomeFiles

extension SimDisk {
    public func linkTarget(_ path: String) -> String? {
        guard let node = try? self.resolve(path, followFinal: false).node,
            case .symlink(let target)? = self.nodes[node]?.kind
        else { return nil }
        return target
    }
}
