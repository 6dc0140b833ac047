/* The dump files this host leaves on a device when it is stopped mid-dump (SIGKILL, Ctrl-C, a
 * lost connection): each remote file names the host and the hprofkit process that made it, and
 * the next dump of that device removes those whose process has ended.  Files of a dump still
 * running (here or on another host) are left alone. */
#include "device.h"
#include "util/hk_report.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define LEFTOVER_DIR "/data/local/tmp"

/* The host's tag: a hash of its name, so two hosts sharing a device keep apart. */
static uint32_t host_tag(void)
{
    char name[256] = "";
    gethostname(name, sizeof name - 1);
    uint32_t h = 2166136261u;
    for (const char *p = name; *p; p++) h = (h ^ (unsigned char)*p) * 16777619u;
    return h;
}

void hk_device_dump_remote_name(int app_pid, char *out, size_t outlen)
{
    snprintf(out, outlen, LEFTOVER_DIR "/hprofkit-%d-%lld-%08x-%d.hprof", app_pid, (long long)time(NULL),
             (unsigned)host_tag(), (int)getpid());
}

/* 1 when name is a dump file of this host whose hprofkit process has ended. */
static int is_leftover(const char *name)
{
    int app_pid, host_pid, used = 0;
    long long stamp;
    unsigned tag;
    if (sscanf(name, "hprofkit-%d-%lld-%8x-%d.hprof%n", &app_pid, &stamp, &tag, &host_pid, &used) != 4 ||
        name[used] != 0 || tag != host_tag() || host_pid <= 0)
        return 0;
    return host_pid != getpid() && kill(host_pid, 0) != 0 && errno == ESRCH;
}

void hk_device_remove_leftovers(hk_device *dev)
{
    char *out = NULL, err[256];
    int code;
    if (hk_device_shell(dev, "ls " LEFTOVER_DIR, &out, NULL, &code, err, sizeof err) != 0) return;
    for (char *save = NULL, *l = strtok_r(out, "\r\n", &save); l; l = strtok_r(NULL, "\r\n", &save)) {
        if (!is_leftover(l)) continue;
        char cmd[600], *o2 = NULL;
        snprintf(cmd, sizeof cmd, "rm -f " LEFTOVER_DIR "/%s", l);
        if (hk_device_shell(dev, cmd, &o2, NULL, &code, err, sizeof err) == 0)
            hk_report(HK_REPORT_NOTE, "removed %s/%s from %s, left by a dump that was stopped", LEFTOVER_DIR, l,
                      dev->serial);
        free(o2);
    }
    free(out);
}
