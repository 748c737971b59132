// The tablet's edges as steps (issue 45): a display write lost in an inotify overflow, the
// daemon's loop stalled while the world goes on, a household saved behind a symlink, a runtime
// directory out of inodes or read-only, the state directory named `STATE/` or through a link.
// The embedded world plays each on the real Manager and its simulated disk; the model sees each
// as the plain step it amounts to where nothing at the edge fails.

extension SimStep {
    /// The step as the model plays it: it has no inotify queue, no loop to stall, no links and no
    /// names of its state directory, and a runtime directory that takes nothing is a full one.
    var modelled: SimStep {
        switch self {
        case .displayLostInOverflow(let word): .display(word)
        case .stall: .advance(seconds: 0)
        case .householdThroughLink(let variant): .household(variant)
        case .runtimeRefuses: .runtimeFull(true)
        case .startNamed: .start
        default: self
        }
    }

    /// One of the edges' steps, drawn by the seed.
    static func edge(_ random: inout SimRandom) -> SimStep {
        switch Int.random(in: 0..<8, using: &random) {
        case 0, 1:
            let words: [FileWord] = [.foreground, .foreground, .away, .foregroundPid, .garbage]
            return .displayLostInOverflow(words[Int.random(in: 0..<words.count, using: &random)])
        case 2, 3: return .stall(random.chance(50))
        case 4:
            return .householdThroughLink(random.chance(50) ? 0 : Int.random(in: 1..<Households.count, using: &random))
        case 5: return .runtimeRefuses(inodes: random.chance(50))
        default: return .startNamed(random.chance(50) ? .slash : .link)
        }
    }
}
