// The C heap's free memory given back to the kernel. glibc keeps what a large transient buffer
// freed (a dense week's 2.5 MB queue, built and written once per lay) at the top of the heap or
// in its bins, where it counts as the daemon's resident memory until the next lay reuses it.

import CSystemd

public enum Heap {
    /// Returns the heap's free pages to the kernel (`malloc_trim(0)`). Cheap when nothing is free.
    public static func releaseFreeMemory() {
        _ = malloc_trim(0)
    }
}
