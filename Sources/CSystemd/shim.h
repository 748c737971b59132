// The C surface SystemdKit needs, in one header: libsystemd's public headers plus the glibc headers
// the Glibc module leaves out (pidfd_open, timerfd_*, TFD_*, dl_iterate_phdr, malloc_trim), and one
// inline helper built on them (daysome_release_idle_memory).
#ifndef CSYSTEMD_SHIM_H
#define CSYSTEMD_SHIM_H

#include <systemd/sd-bus.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-event.h>
#include <systemd/sd-journal.h>
#include <sys/inotify.h>
#include <sys/pidfd.h>
#include <sys/timerfd.h>
#include <sys/uio.h>

#include <elf.h>
#include <malloc.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

// dl_iterate_phdr's object, as glibc lays out its first fields (<link.h> shows them only with
// _GNU_SOURCE, which a module header cannot set for the Glibc module): bound to the same symbol.
#if __SIZEOF_POINTER__ == 8
typedef Elf64_Phdr daysome_phdr;
#else
typedef Elf32_Phdr daysome_phdr;
#endif
struct daysome_object {
    uintptr_t address;
    const char *name;
    const daysome_phdr *segments;
    uint16_t count;
};
extern int daysome_each_object(int (*callback)(struct daysome_object *, size_t, void *), void *data) __asm__(
    "dl_iterate_phdr");

// Called for each loaded object: drops this process's page-table entries for the object's
// read-only segments (code and read-only data). Those pages are file-backed and were never
// written (a writable segment, RELRO included, is skipped), so the page cache keeps them and a
// later touch maps them again with a minor fault: nothing is lost, only the mapping.
static inline int daysome_unmap_read_only(struct daysome_object *object, size_t size, void *data) {
    (void)size;
    (void)data;
    if (object->name != NULL && strstr(object->name, "linux-vdso") != NULL) return 0;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    for (int i = 0; i < object->count; i++) {
        const daysome_phdr *segment = &object->segments[i];
        if (segment->p_type != PT_LOAD || (segment->p_flags & PF_W) != 0) continue;
        uintptr_t start = (object->address + segment->p_vaddr) & ~(page - 1);
        uintptr_t end = (object->address + segment->p_vaddr + segment->p_memsz + page - 1) & ~(page - 1);
        madvise((void *)start, end - start, MADV_DONTNEED);
    }
    return 0;
}

// What an idle daemon need not keep resident (EventLoop.releaseMemoryAfterWork): the read-only
// pages of the program and its libraries it touched at start-up or in its last burst of work, and
// the heap's free pages.
static inline void daysome_release_idle_memory(void) {
    daysome_each_object(daysome_unmap_read_only, NULL);
    malloc_trim(0);
}

#endif
