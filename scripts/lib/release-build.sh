# Sourced by scripts/build-deb and scripts/bench: the one way the shipped programs are built, so
# the benchmark measures what users install. docs/layout.md ("What ships") says why each flag.
# release_build SCRATCH LOG: builds daysomed and daysomectl (only the shipped products: not the
# simulator, not the test support) in release into SCRATCH, output to LOG; returns swift's status.
# release_bin SCRATCH: prints the directory the programs are in.
#
# - The Swift runtime linked in (--static-swift-stdlib), and libstdc++ too: libstdc++.so costs a
#   process start about 0.4 ms of loading and relocation (a C hello world linked against it: 0.69
#   -> 1.11 ms), more than any of our own work for `pending`. A directory holding only
#   libstdc++.a, searched before the compiler's own, makes the runtime's -lstdc++ resolve to it.
# - libgcc linked in too (-static-libgcc: libgcc.a and libgcc_eh.a, for the runtime's unwinder),
#   not libgcc_s.so.1: loading it, binding its symbols and its constructor, which asks the CPU
#   for its features with cpuid (a trap to the hypervisor on a virtual machine), was 9 % of a
#   bare Swift program's start (bench/hello.swift, paired: 1.17 -> 1.06 ms).
# - No $ORIGIN RUNPATH (--disable-local-rpath): with it every shared library was first looked
#   for in the program's own directory and its glibc-hwcaps/tls subdirectories (24 failed
#   openat/stat calls a start); nothing is installed beside /usr/bin/daysomed.
# - lld with packed relative relocations (DT_RELR, glibc 2.36): the position-independent
#   executable's 21,000 relative relocations took 510 KB of .rela.dyn, all of it read at every
#   start and resident in the daemon; packed, a few KB.
# - No exported dynamic symbol table (--no-export-dynamic after the runtime's -export-dynamic):
#   nothing dlsym()s into the programs; the table was 316 KB read and resident.
# - Full RELRO (-z now) and PIE are kept: hardening, and -z now measured at under 0.1 ms here.
# - The shipped modules but the core compiled for size (-Osize, Package.swift's `small`): the
#   idle daemon about 0.4 MB smaller resident. Not the core: -Osize made planning the dense week
#   14% slower (`daysomectl plan`, paired), and the lay must stay quick (issue 44).
# - The functions a program runs laid out together, in the order it first runs them
#   (--symbol-ordering-file, scripts/lib/link-order/PRODUCT.order, made by scripts/gen-link-order):
#   the kernel maps a file's pages 64 KB around each fault, so code scattered over the 5.8 MB
#   .text kept 5.1 MB of the idle daemon's binary resident; packed, 4.0 MB (issue 44). A stale
#   list only costs pages, never correctness: lld skips names it lacks. (--gc-sections was tried:
#   the stripped programs came out the same size to the byte, so it is not used.)
# swiftc_flags SCRATCH: sets `swiftc_flags` (the compiler driver's) and `linker_flags` (the
# linker's): also how scripts/bench builds its bare Swift programs, so the floor they show is
# built the same way.
swiftc_flags() {
    local scratch=$1 libstdcxx
    mkdir -p "$scratch/static-cxx"
    libstdcxx=$(g++ -print-file-name=libstdc++.a 2>/dev/null || true)
    if [ ! -f "$libstdcxx" ]; then
        libstdcxx=$(ls /usr/lib/gcc/*-linux-gnu/*/libstdc++.a 2>/dev/null | sort -V | tail -n 1)
    fi
    [ -f "$libstdcxx" ] || { echo "release-build: no libstdc++.a (apt-get install libstdc++-12-dev)" >&2; return 1; }
    ln -sfn "$libstdcxx" "$scratch/static-cxx/libstdc++.a"
    swiftc_flags=(-L"$(cd "$scratch/static-cxx" && pwd)" -use-ld=lld -Xclang-linker -static-libgcc)
    linker_flags=(-z now -z pack-relative-relocs --no-export-dynamic)
}

# release_flags SCRATCH: sets `flags`, swift build's arguments.
release_flags() {
    local flag
    swiftc_flags "$1" || return 1
    flags=(--scratch-path "$1" -c release --static-swift-stdlib --disable-local-rpath)
    for flag in "${swiftc_flags[@]}"; do flags+=(-Xswiftc "$flag"); done
    for flag in "${linker_flags[@]}"; do flags+=(-Xlinker "$flag"); done
}

# link_order PRODUCT: sets `order_flags`, the arguments that lay PRODUCT's functions out in the
# order it runs them (none when it has no list).
link_order() {
    local order
    order="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/link-order/$1.order"
    order_flags=()
    if [ -f "$order" ]; then
        order_flags=(-Xlinker "--symbol-ordering-file=$order" -Xlinker --no-warn-symbol-ordering)
    fi
}

release_build() {
    local scratch=$1 log=$2 product flags swiftc_flags linker_flags order_flags
    release_flags "$scratch" || return 1
    : >"$log"
    for product in daysomed daysomectl; do
        link_order "$product"
        # swift build does not know the list is an input of the link: a newer list relinks.
        if [ ${#order_flags[@]} -gt 0 ] && [ "${order_flags[1]#*=}" -nt "$scratch/release/$product" ]; then
            rm -f "$scratch/release/$product"
        fi
        swift build "${flags[@]}" "${order_flags[@]}" --product "$product" >>"$log" 2>&1 || return 1
    done
}

release_bin() {
    local flags swiftc_flags linker_flags
    release_flags "$1" >/dev/null || return 1
    swift build "${flags[@]}" --show-bin-path
}
