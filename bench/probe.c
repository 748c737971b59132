/*
 * probe: the timing end of scripts/bench. It writes the display state file the way the display
 * does (a temporary file, then rename) and measures, in one process, how long until the
 * daemon's work is visible where a user would look:
 *   - the wheel: <runtime-dir>/queue.json lists N starts (watched with inotify, no polling);
 *   - systemd: the user manager holds N starts across active timers matching a pattern: the
 *     instants their OnCalendar expressions name (the daemon writes few expressions, each a
 *     product of lists and ranges, `2026-12-01..06 00..23:00..59:00 UTC`), polled over the
 *     manager's private socket, as systemctl does;
 *   - optionally (--dunst): dunst displays nothing (the property `dunstctl count displayed` reads).
 * Connections are opened before the clock starts. Built by scripts/bench with
 *   cc -O2 -o probe probe.c $(pkg-config --cflags --libs libsystemd)
 *
 * probe wheel   STATE WORD QUEUE_JSON N TIMEOUT [--dunst]   prints seconds from the rename
 * probe systemd STATE WORD PATTERN    N TIMEOUT [--dunst]   N = 0: no active matching timer
 * probe count   PATTERN                                     prints "<timers> <starts>"
 * probe dunst                                               prints dunst's displayed count
 * probe race PAIRS A... -- B...                             runs A and B in turn PAIRS times (after one
 *                                                           warm-up each), stdout and stderr to /dev/null;
 *                                                           prints "<A seconds> <B seconds> <A status> <B status>"
 *                                                           a pair: exec to exit, without an interpreter's fork
 * Exit 0 when the condition was met, 1 on timeout (the last value seen goes to stderr), 2 on usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <systemd/sd-bus.h>

static double now_mono(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void die(const char *what, int r) {
    fprintf(stderr, "probe: %s: %s\n", what, strerror(r < 0 ? -r : r));
    exit(1);
}

/* The display's write: a temporary file beside STATE, then rename. Returns the time of the rename. */
static double write_state(const char *state, const char *word) {
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp.probe%d", state, (int)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) die("open state temp", errno);
    char line[64];
    int n = snprintf(line, sizeof line, "%s\n", word);
    if (write(fd, line, (size_t)n) != n) die("write state", errno);
    close(fd);
    double t0 = now_mono();
    if (rename(tmp, state) != 0) die("rename state", errno);
    return t0;
}

/* ---- the user manager ---- */

static sd_bus *manager_bus(void) {
    const char *rt = getenv("XDG_RUNTIME_DIR");
    if (!rt) { fprintf(stderr, "probe: XDG_RUNTIME_DIR is not set\n"); exit(2); }
    char address[4200];
    snprintf(address, sizeof address, "unix:path=%s/systemd/private", rt);
    sd_bus *bus = NULL;
    int r = sd_bus_new(&bus);
    if (r < 0) die("sd_bus_new", r);
    if ((r = sd_bus_set_address(bus, address)) < 0) die("sd_bus_set_address", r);
    if ((r = sd_bus_start(bus)) < 0) die("connect to the user manager", r);
    return bus;
}

/* The values of one component of a calendar expression (`*`, or a comma list of N, N..M, with an
 * optional /R), as a bit set over lo..hi; -1 when not of that form. */
static int component(const char *text, size_t len, int lo, int hi, unsigned char *set) {
    memset(set, 0, 64);
    if (len == 1 && text[0] == '*') {
        for (int v = lo; v <= hi; v++) set[v - lo] = 1;
        return 0;
    }
    char buf[512];
    if (len == 0 || len >= sizeof buf) return -1;
    memcpy(buf, text, len);
    buf[len] = 0;
    char *save = NULL;
    for (char *item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        char *end;
        long a = strtol(item, &end, 10), b = a, step = 1;
        if (end == item) return -1;
        if (strncmp(end, "..", 2) == 0) {
            char *from = end + 2;
            b = strtol(from, &end, 10);
            if (end == from) return -1;
        }
        if (*end == '/') {
            char *from = end + 1;
            step = strtol(from, &end, 10);
            if (end == from || step < 1) return -1;
            if (b == a) b = hi;
        }
        if (*end != 0 || a < lo || b > hi || a > b) return -1;
        for (long v = a; v <= b; v += step) set[v - lo] = 1;
    }
    return 0;
}

static int days_in(int year, int month) {
    static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    return month == 2 && leap ? 29 : days[month - 1];
}

/* The instants a `Y-M-D H:M:S UTC` expression names (days a month lacks name none); 1 for any other spec. */
static long spec_starts(const char *spec) {
    const char *space1 = strchr(spec, ' ');
    const char *space2 = space1 ? strchr(space1 + 1, ' ') : NULL;
    if (!space2 || strcmp(space2, " UTC") != 0) return 1;
    const char *d1 = memchr(spec, '-', (size_t)(space1 - spec));
    const char *d2 = d1 ? memchr(d1 + 1, '-', (size_t)(space1 - d1 - 1)) : NULL;
    const char *t1 = memchr(space1 + 1, ':', (size_t)(space2 - space1 - 1));
    const char *t2 = t1 ? memchr(t1 + 1, ':', (size_t)(space2 - t1 - 1)) : NULL;
    if (!d2 || !t2) return 1;
    char *end;
    long year = strtol(spec, &end, 10);
    if (end != d1) return 1;
    unsigned char months[64], days[64], hours[64], minutes[64], seconds[64];
    if (component(d1 + 1, (size_t)(d2 - d1 - 1), 1, 12, months) < 0 ||
        component(d2 + 1, (size_t)(space1 - d2 - 1), 1, 31, days) < 0 ||
        component(space1 + 1, (size_t)(t1 - space1 - 1), 0, 23, hours) < 0 ||
        component(t1 + 1, (size_t)(t2 - t1 - 1), 0, 59, minutes) < 0 ||
        component(t2 + 1, (size_t)(space2 - t2 - 1), 0, 59, seconds) < 0)
        return 1;
    long per_day = 0, h = 0, m = 0, sec = 0;
    for (int i = 0; i < 60; i++) { h += i < 24 && hours[i]; m += minutes[i]; sec += seconds[i]; }
    per_day = h * m * sec;
    long count = 0;
    for (int month = 1; month <= 12; month++)
        for (int day = 1; day <= 31; day++)
            if (months[month - 1] && days[day - 1] && day <= days_in((int)year, month)) count += per_day;
    return count;
}

/* Known start counts of timers already seen (a transient timer's calendars never change). */
#define CACHE 4096
static char *cache_name[CACHE];
static long cache_starts[CACHE];
static int cache_used;

static long calendar_starts(sd_bus *bus, const char *name, const char *path) {
    for (int i = 0; i < cache_used; i++)
        if (strcmp(cache_name[i], name) == 0) return cache_starts[i];
    sd_bus_error error = SD_BUS_ERROR_NULL;
    sd_bus_message *reply = NULL;
    int r = sd_bus_get_property(bus, "org.freedesktop.systemd1", path, "org.freedesktop.systemd1.Timer",
                                "TimersCalendar", &error, &reply, "a(sst)");
    if (r < 0) { sd_bus_error_free(&error); return -1; }
    long count = 0;
    if (sd_bus_message_enter_container(reply, 'a', "(sst)") < 0) { sd_bus_message_unref(reply); return -1; }
    const char *base, *spec;
    uint64_t next;
    while ((r = sd_bus_message_read(reply, "(sst)", &base, &spec, &next)) > 0) count += spec_starts(spec);
    sd_bus_message_unref(reply);
    if (r < 0) return -1;
    if (cache_used < CACHE) {
        cache_name[cache_used] = strdup(name);
        cache_starts[cache_used++] = count;
    }
    return count;
}

/* Active timers matching `pattern` and the starts their OnCalendar entries name. */
static int count_timers(sd_bus *bus, const char *pattern, long *timers, long *entries) {
    sd_bus_message *call = NULL, *reply = NULL;
    sd_bus_error error = SD_BUS_ERROR_NULL;
    int r = sd_bus_message_new_method_call(bus, &call, "org.freedesktop.systemd1", "/org/freedesktop/systemd1",
                                           "org.freedesktop.systemd1.Manager", "ListUnitsByPatterns");
    if (r < 0) return r;
    const char *states[] = {"active", NULL};
    const char *patterns[] = {pattern, NULL};
    sd_bus_message_append_strv(call, (char **)states);
    sd_bus_message_append_strv(call, (char **)patterns);
    r = sd_bus_call(bus, call, 0, &error, &reply);
    sd_bus_message_unref(call);
    if (r < 0) { fprintf(stderr, "probe: ListUnitsByPatterns: %s\n", error.message); sd_bus_error_free(&error); return r; }
    *timers = 0;
    *entries = 0;
    r = sd_bus_message_enter_container(reply, 'a', "(ssssssouso)");
    if (r < 0) { sd_bus_message_unref(reply); return r; }
    const char *name, *desc, *load, *active, *sub, *following, *path, *jobtype, *jobpath;
    uint32_t jobid;
    /* Names are copied: the message is read to its end before any property call. */
    char *names[CACHE], *paths[CACHE];
    int n = 0;
    while ((r = sd_bus_message_read(reply, "(ssssssouso)", &name, &desc, &load, &active, &sub, &following, &path,
                                    &jobid, &jobtype, &jobpath)) > 0) {
        size_t len = strlen(name);
        if (len < 6 || strcmp(name + len - 6, ".timer") != 0 || n >= CACHE) continue;
        names[n] = strdup(name);
        paths[n++] = strdup(path);
    }
    sd_bus_message_unref(reply);
    for (int i = 0; i < n; i++) {
        long c = calendar_starts(bus, names[i], paths[i]);
        if (c >= 0) { (*timers)++; *entries += c; }
        free(names[i]);
        free(paths[i]);
    }
    return 0;
}

/* ---- dunst ---- */

static sd_bus *session_bus(void) {
    sd_bus *bus = NULL;
    int r = sd_bus_open_user(&bus);
    if (r < 0) die("connect to the session bus", r);
    return bus;
}

static long dunst_displayed(sd_bus *bus) {
    /* No auto-start: asking must never make the bus activate a second notification server. */
    sd_bus_message *call = NULL, *reply = NULL;
    sd_bus_error error = SD_BUS_ERROR_NULL;
    uint32_t value = 0;
    int r = sd_bus_message_new_method_call(bus, &call, "org.freedesktop.Notifications", "/org/freedesktop/Notifications",
                                           "org.freedesktop.DBus.Properties", "Get");
    if (r < 0) return -1;
    sd_bus_message_set_auto_start(call, 0);
    sd_bus_message_append(call, "ss", "org.dunstproject.cmd0", "displayedLength");
    r = sd_bus_call(bus, call, 0, &error, &reply);
    sd_bus_message_unref(call);
    if (r < 0) { fprintf(stderr, "probe: dunst displayedLength: %s\n", error.message); sd_bus_error_free(&error); return -1; }
    r = sd_bus_message_read(reply, "v", "u", &value);
    sd_bus_message_unref(reply);
    return r < 0 ? -1 : (long)value;
}

/* ---- the wheel's queue.json ---- */

/* Pending entries in queue.json: one "handle" key per start; -1 when unreadable. */
static long queue_entries(const char *path, int *away) {
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    static char *buf;
    static size_t cap;
    size_t len = 0;
    for (;;) {
        if (len + 65536 > cap) { cap = (cap + 65536) * 2; buf = realloc(buf, cap); }
        size_t got = fread(buf + len, 1, cap - len - 1, f);
        if (got == 0) break;
        len += got;
    }
    fclose(f);
    buf[len] = 0;
    long count = 0;
    for (char *p = buf; (p = strstr(p, "\"handle\"")) != NULL; p += 8) count++;
    *away = strstr(buf, "\"display\": \"away\"") != NULL;
    return count;
}

static void usage(void) {
    fprintf(stderr, "usage: probe wheel|systemd STATE WORD TARGET N TIMEOUT [--dunst] | probe count PATTERN | probe dunst"
                    " | probe race PAIRS A... -- B...\n");
    exit(2);
}

/* One run of argv: the seconds from fork to its reaping, and its exit status in *status. */
static double timed_run(char **argv, int *status) {
    double t0 = now_mono();
    pid_t pid = fork();
    if (pid < 0) die("fork", -errno);
    if (pid == 0) {
        int null = open("/dev/null", O_RDWR);
        dup2(null, 0);
        dup2(null, 1);
        dup2(null, 2);
        execvp(argv[0], argv);
        _exit(127);
    }
    int raw;
    while (waitpid(pid, &raw, 0) < 0 && errno == EINTR) {}
    double t = now_mono() - t0;
    *status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
    return t;
}

static int race(int argc, char **argv) {
    long pairs = atol(argv[2]);
    int split = 0;
    for (int i = 3; i < argc; i++)
        if (strcmp(argv[i], "--") == 0) split = i;
    if (pairs < 1 || split <= 3 || split == argc - 1) usage();
    argv[split] = NULL;
    char **a = argv + 3, **b = argv + split + 1;
    int sa, sb;
    timed_run(a, &sa);
    timed_run(b, &sb);
    for (long i = 0; i < pairs; i++) {
        double ta = timed_run(a, &sa);
        double tb = timed_run(b, &sb);
        printf("%.9f %.9f %d %d\n", ta, tb, sa, sb);
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 2) usage();
    if (strcmp(argv[1], "race") == 0 && argc >= 6) return race(argc, argv);
    if (strcmp(argv[1], "count") == 0 && argc == 3) {
        sd_bus *bus = manager_bus();
        long timers, entries;
        if (count_timers(bus, argv[2], &timers, &entries) < 0) return 1;
        printf("%ld %ld\n", timers, entries);
        return 0;
    }
    if (strcmp(argv[1], "dunst") == 0 && argc == 2) {
        long d = dunst_displayed(session_bus());
        if (d < 0) return 1;
        printf("%ld\n", d);
        return 0;
    }
    if (argc < 7) usage();
    const char *mode = argv[1], *state = argv[2], *word = argv[3], *target = argv[4];
    long want = atol(argv[5]);
    double timeout = atof(argv[6]);
    int with_dunst = argc > 7 && strcmp(argv[7], "--dunst") == 0;
    sd_bus *dunst = with_dunst ? session_bus() : NULL;
    int is_wheel = strcmp(mode, "wheel") == 0;
    if (!is_wheel && strcmp(mode, "systemd") != 0) usage();
    sd_bus *manager = is_wheel ? NULL : manager_bus();

    int ino = -1;
    if (is_wheel) {
        char dir[4096];
        snprintf(dir, sizeof dir, "%s", target);
        char *slash = strrchr(dir, '/');
        if (slash) *slash = 0; else strcpy(dir, ".");
        ino = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
        if (ino < 0 || inotify_add_watch(ino, dir, IN_MOVED_TO | IN_CLOSE_WRITE) < 0) die("inotify", errno);
    }

    double t0 = write_state(state, word);
    double deadline = t0 + timeout;
    long last = -2, last_dunst = -2;
    for (;;) {
        /* The wheel: queue.json was renamed before this wakeup, so the time of the wakeup counts. */
        double seen = now_mono();
        int pending_ok;
        if (is_wheel) {
            int away = 0;
            last = queue_entries(target, &away);
            /* Laid: N starts listed while away. Cleared: nothing listed (the display line says foreground). */
            pending_ok = want > 0 ? (last == want && away) : (last == 0 && !away);
        } else {
            long timers = 0;
            if (count_timers(manager, target, &timers, &last) < 0) last = -1;
            pending_ok = want > 0 ? last == want : timers == 0;
            /* The manager's answer is what a client sees: the clock stops when it arrives. */
            seen = now_mono();
        }
        int dunst_ok = 1;
        if (with_dunst && pending_ok) {
            last_dunst = dunst_displayed(dunst);
            dunst_ok = last_dunst == 0;
            seen = now_mono();
        }
        if (pending_ok && dunst_ok) {
            printf("%.6f\n", seen - t0);
            return 0;
        }
        if (now_mono() > deadline) {
            fprintf(stderr, "probe: timed out after %.1f s: %s pending %ld (want %ld), dunst displayed %ld\n",
                    timeout, mode, last, want, last_dunst);
            return 1;
        }
        if (is_wheel && !(pending_ok && !dunst_ok)) {
            /* Wait for the daemon's next rename of queue.json (or 50 ms, in case one was missed). */
            struct pollfd p = {.fd = ino, .events = POLLIN};
            poll(&p, 1, 50);
            char events[8192];
            while (read(ino, events, sizeof events) > 0) {}
        } else {
            usleep(1000);
        }
    }
}
