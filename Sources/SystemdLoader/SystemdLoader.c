// libsystemd for daysomectl, loaded on the first call into it rather than at every start.
//
// Most of daysomectl's verbs never touch the bus (`pending` on the wheel reads one file), yet a
// program linked against libsystemd.so.0 pays for loading it and its six dependencies (libcap,
// libgcrypt, libgpg-error, liblzma, libzstd, liblz4) at each exec: about 0.45 ms and 65 page
// faults, as much as all of `pending`'s own work. daysomectl links this file instead of
// -lsystemd: each function SystemdKit calls is defined here and forwards to the real one, found
// with dlsym in libsystemd.so.0, opened the first time any of them is called. The daemon, which
// needs the bus at once, links libsystemd as before (Package.swift) and never uses this file.
//
// The package still Depends on libsystemd0 (daysomed links it; dpkg-shlibdeps reads daysomed).
// A function SystemdKit starts calling must be added below, or daysomectl fails to link.

// The real sd_journal_sendv, as Swift calls it (the header otherwise renames it to a macro).
#define SD_JOURNAL_SUPPRESS_LOCATION
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-event.h>
#include <systemd/sd-journal.h>

#include "SystemdLoader.h"

static void *library;
static pthread_once_t opened = PTHREAD_ONCE_INIT;

static void open_library(void) {
    void *handle = dlopen("libsystemd.so.0", RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        fprintf(stderr, "daysomectl: cannot load libsystemd.so.0 (package libsystemd0): %s\n", dlerror());
        abort();
    }
    __atomic_store_n(&library, handle, __ATOMIC_RELEASE);
}

static void *resolve(const char *name) {
    pthread_once(&opened, open_library);
    void *function = dlsym(__atomic_load_n(&library, __ATOMIC_ACQUIRE), name);
    if (function == NULL) {
        fprintf(stderr, "daysomectl: libsystemd.so.0 has no %s: %s\n", name, dlerror());
        abort();
    }
    return function;
}

int daysome_systemd_loaded(void) { return __atomic_load_n(&library, __ATOMIC_ACQUIRE) != NULL; }

// One forwarding definition a function: the real one is looked up once, on its first call.
#define REAL(name)                                                                  \
    static __typeof__(&name) real;                                                  \
    __typeof__(&name) function = __atomic_load_n(&real, __ATOMIC_ACQUIRE);          \
    if (function == NULL) {                                                         \
        function = (__typeof__(&name))resolve(#name);                               \
        __atomic_store_n(&real, function, __ATOMIC_RELEASE);                        \
    }
#define STUB(type, name, params, args) \
    type name params {                 \
        REAL(name)                     \
        return function args;          \
    }
#define STUB_VOID(name, params, args) \
    void name params {                \
        REAL(name)                    \
        function args;                \
    }

STUB(int, sd_bus_add_match, (sd_bus *bus, sd_bus_slot **slot, const char *match, sd_bus_message_handler_t callback, void *userdata), (bus, slot, match, callback, userdata))
STUB(int, sd_bus_attach_event, (sd_bus *bus, sd_event *e, int priority), (bus, e, priority))
STUB(int, sd_bus_call, (sd_bus *bus, sd_bus_message *m, uint64_t usec, sd_bus_error *ret_error, sd_bus_message **reply), (bus, m, usec, ret_error, reply))
STUB(int, sd_bus_call_async, (sd_bus *bus, sd_bus_slot **slot, sd_bus_message *m, sd_bus_message_handler_t callback, void *userdata, uint64_t usec), (bus, slot, m, callback, userdata, usec))
STUB_VOID(sd_bus_close, (sd_bus *bus), (bus))
STUB_VOID(sd_bus_error_free, (sd_bus_error *e), (e))
STUB(int, sd_bus_error_get_errno, (const sd_bus_error *e), (e))
STUB(int, sd_bus_error_is_set, (const sd_bus_error *e), (e))
STUB(int, sd_bus_error_set_errno, (sd_bus_error *e, int error), (e, error))
STUB(int, sd_bus_flush, (sd_bus *bus), (bus))
STUB(sd_bus*, sd_bus_flush_close_unref, (sd_bus *bus), (bus))
STUB(int, sd_bus_get_bus_id, (sd_bus *bus, sd_id128_t *id), (bus, id))
STUB(int, sd_bus_get_unique_name, (sd_bus *bus, const char **unique), (bus, unique))
STUB(int, sd_bus_is_open, (sd_bus *bus), (bus))
STUB(int, sd_bus_process, (sd_bus *bus, sd_bus_message **r), (bus, r))
STUB(int, sd_bus_message_append_basic, (sd_bus_message *m, char type, const void *p), (m, type, p))
STUB(int, sd_bus_message_close_container, (sd_bus_message *m), (m))
STUB(int, sd_bus_message_enter_container, (sd_bus_message *m, char type, const char *contents), (m, type, contents))
STUB(int, sd_bus_message_exit_container, (sd_bus_message *m), (m))
STUB(const sd_bus_error*, sd_bus_message_get_error, (sd_bus_message *m), (m))
STUB(const char*, sd_bus_message_get_interface, (sd_bus_message *m), (m))
STUB(const char*, sd_bus_message_get_member, (sd_bus_message *m), (m))
STUB(const char*, sd_bus_message_get_path, (sd_bus_message *m), (m))
STUB(const char*, sd_bus_message_get_sender, (sd_bus_message *m), (m))
STUB(const char*, sd_bus_message_get_signature, (sd_bus_message *m, int complete), (m, complete))
STUB(int, sd_bus_message_is_method_error, (sd_bus_message *m, const char *name), (m, name))
STUB(int, sd_bus_message_new_method_call, (sd_bus *bus, sd_bus_message **m, const char *destination, const char *path, const char *interface, const char *member), (bus, m, destination, path, interface, member))
STUB(int, sd_bus_message_open_container, (sd_bus_message *m, char type, const char *contents), (m, type, contents))
STUB(int, sd_bus_message_peek_type, (sd_bus_message *m, char *type, const char **contents), (m, type, contents))
STUB(int, sd_bus_message_read_basic, (sd_bus_message *m, char type, void *p), (m, type, p))
STUB(sd_bus_message*, sd_bus_message_ref, (sd_bus_message *m), (m))
STUB(int, sd_bus_message_rewind, (sd_bus_message *m, int complete), (m, complete))
STUB(int, sd_bus_message_seal, (sd_bus_message *m, uint64_t cookie, uint64_t timeout_usec), (m, cookie, timeout_usec))
STUB(int, sd_bus_message_set_auto_start, (sd_bus_message *m, int b), (m, b))
STUB(int, sd_bus_message_skip, (sd_bus_message *m, const char *types), (m, types))
STUB(sd_bus_message*, sd_bus_message_unref, (sd_bus_message *m), (m))
STUB(int, sd_bus_new, (sd_bus **ret), (ret))
STUB(int, sd_bus_open_system, (sd_bus **ret), (ret))
STUB(int, sd_bus_open_user, (sd_bus **ret), (ret))
STUB(int, sd_bus_set_address, (sd_bus *bus, const char *address), (bus, address))
STUB(int, sd_bus_set_bus_client, (sd_bus *bus, int b), (bus, b))
STUB(int, sd_bus_slot_set_destroy_callback, (sd_bus_slot *s, sd_bus_destroy_t callback), (s, callback))
STUB(int, sd_bus_slot_set_floating, (sd_bus_slot *slot, int b), (slot, b))
STUB(sd_bus_slot*, sd_bus_slot_unref, (sd_bus_slot *slot), (slot))
STUB(int, sd_bus_start, (sd_bus *bus), (bus))
STUB(int, sd_event_add_child_pidfd, (sd_event *e, sd_event_source **s, int pidfd, int options, sd_event_child_handler_t callback, void *userdata), (e, s, pidfd, options, callback, userdata))
STUB(int, sd_event_add_defer, (sd_event *e, sd_event_source **s, sd_event_handler_t callback, void *userdata), (e, s, callback, userdata))
STUB(int, sd_event_add_inotify, (sd_event *e, sd_event_source **s, const char *path, uint32_t mask, sd_event_inotify_handler_t callback, void *userdata), (e, s, path, mask, callback, userdata))
STUB(int, sd_event_add_io, (sd_event *e, sd_event_source **s, int fd, uint32_t events, sd_event_io_handler_t callback, void *userdata), (e, s, fd, events, callback, userdata))
STUB(int, sd_event_add_time, (sd_event *e, sd_event_source **s, clockid_t clock, uint64_t usec, uint64_t accuracy, sd_event_time_handler_t callback, void *userdata), (e, s, clock, usec, accuracy, callback, userdata))
STUB(int, sd_event_add_time_relative, (sd_event *e, sd_event_source **s, clockid_t clock, uint64_t usec, uint64_t accuracy, sd_event_time_handler_t callback, void *userdata), (e, s, clock, usec, accuracy, callback, userdata))
STUB(int, sd_event_exit, (sd_event *e, int code), (e, code))
STUB(int, sd_event_loop, (sd_event *e), (e))
STUB(int, sd_event_new, (sd_event **e), (e))
STUB(int, sd_event_now, (sd_event *e, clockid_t clock, uint64_t *usec), (e, clock, usec))
STUB(int, sd_event_run, (sd_event *e, uint64_t usec), (e, usec))
STUB(int, sd_event_set_signal_exit, (sd_event *e, int b), (e, b))
STUB(int, sd_event_set_watchdog, (sd_event *e, int b), (e, b))
STUB(sd_event_source*, sd_event_source_disable_unref, (sd_event_source *s), (s))
STUB(int, sd_event_source_get_description, (sd_event_source *s, const char **description), (s, description))
STUB(int, sd_event_source_get_enabled, (sd_event_source *s, int *enabled), (s, enabled))
STUB(int, sd_event_source_get_time, (sd_event_source *s, uint64_t *usec), (s, usec))
STUB(sd_event_source*, sd_event_source_ref, (sd_event_source *s), (s))
STUB(int, sd_event_source_set_description, (sd_event_source *s, const char *description), (s, description))
STUB(int, sd_event_source_set_destroy_callback, (sd_event_source *s, sd_event_destroy_t callback), (s, callback))
STUB(int, sd_event_source_set_enabled, (sd_event_source *s, int enabled), (s, enabled))
STUB(int, sd_event_source_set_floating, (sd_event_source *s, int b), (s, b))
STUB(int, sd_event_source_set_priority, (sd_event_source *s, int64_t priority), (s, priority))
STUB(int, sd_event_source_set_time, (sd_event_source *s, uint64_t usec), (s, usec))
STUB(int, sd_event_source_set_time_accuracy, (sd_event_source *s, uint64_t usec), (s, usec))
STUB(int, sd_event_source_set_time_relative, (sd_event_source *s, uint64_t usec), (s, usec))
STUB(sd_event_source*, sd_event_source_unref, (sd_event_source *s), (s))
STUB(sd_event*, sd_event_unref, (sd_event *e), (e))
STUB(int, sd_journal_sendv, (const struct iovec *iov, int n), (iov, n))
STUB(int, sd_notify, (int unset_environment, const char *state), (unset_environment, state))
STUB(int, sd_watchdog_enabled, (int unset_environment, uint64_t *usec), (unset_environment, usec))
