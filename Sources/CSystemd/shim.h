// The C surface SystemdKit needs, in one header. No code: libsystemd's public headers plus the
// glibc headers the Glibc module leaves out (pidfd_open, timerfd_*, TFD_*, malloc_trim).
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
#include <malloc.h>

#endif
