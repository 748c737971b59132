// daysomectl's libsystemd, loaded on first use: see SystemdLoader.c.
#ifndef SYSTEMD_LOADER_H
#define SYSTEMD_LOADER_H

/// 1 once a libsystemd function was called through the loader (the library is then loaded), else 0.
int daysome_systemd_loaded(void);

#endif
