/* Devices, their processes, and taking a heap dump off one — on top of the adb host protocol.
 * Only devices in state "device" are asked anything: a shell on an unauthorized device would
 * block until someone taps the dialog. */
#ifndef HK_DEVICE_H
#define HK_DEVICE_H

#include <stddef.h>
#include <stdint.h>

#include "adb_conn.h"
#include "adb_services.h"

typedef struct hk_device_info {
    char serial[128];
    char state[64];  /* device, unauthorized, offline, ... as the server says it */
    char model[128]; /* ro.product.model ("" when not asked) */
    int sdk;         /* ro.build.version.sdk (0 when not asked) */
    int debuggable;  /* ro.debuggable=1 or ro.build.type userdebug/eng; -1 when not asked */
    char hint[160];  /* what to do when the state is not "device"; "" otherwise */
} hk_device_info;

/* Lists the devices (host:devices-l, falling back to host:devices).  *out is malloc'd. */
int hk_device_list(hk_adb *adb, hk_device_info **out, size_t *count, char *err, size_t errlen);

/* An opened device: in state "device", with its properties read. */
typedef struct hk_device {
    hk_adb *adb;
    char serial[128];
    char model[128];
    int sdk;
    int debuggable;
    int shell_v2; /* the device offers the shell protocol (exit codes) */
} hk_device;

/* Opens `serial`, or the only device when serial is NULL or "" (an error names them when there
 * are several). */
int hk_device_open(hk_adb *adb, const char *serial, hk_device *dev, char *err, size_t errlen);

/* Runs a shell command; *exit_code is -1 when the device has no shell_v2. */
int hk_device_shell(hk_device *dev, const char *cmd, char **out, size_t *outlen, int *exit_code, char *err,
                    size_t errlen);

/* Pulls a file (size checked, the local file appears only when complete). */
int hk_device_pull(hk_device *dev, const char *remote, const char *local, hk_adb_progress_fn progress, void *ctx,
                   char *err, size_t errlen);

typedef struct hk_process {
    int pid;
    char name[256];
    int is_app; /* the name (before any ':') is an installed package */
} hk_process;

/* Lists processes, apps first.  *out is malloc'd. */
int hk_device_processes(hk_device *dev, hk_process **out, size_t *count, char *err, size_t errlen);

/* --- heap dumps --- */

/* The GC before a dump on API < 27 (no `am dumpheap -g`): a plugin that can GC over JDWP gives it. */
typedef int (*hk_device_gc_fn)(void *ctx, hk_device *dev, int pid, char *err, size_t errlen);

typedef struct hk_dump_opts {
    const char *process;   /* name or pid */
    const char *output;    /* local path; NULL: PROCESS-YYYYmmdd-HHMMSS.hprof in the current directory */
    int gc;                /* run a GC first (default 1) */
    int bitmaps;           /* -1: default (yes on API 35+), 0: no, 1: yes (-b png; needs API 35) */
    int progress;          /* 0: no progress reports; otherwise through hk_report (the sink decides) */
    int timeout_s;         /* for the dump to be written (default 300) */
    hk_device_gc_fn gc_fn; /* the GC on API < 27; NULL: none (the dump says it ran without) */
    void *gc_ctx;
} hk_dump_opts;

void hk_dump_opts_init(hk_dump_opts *o);

/* device_leftovers.c: the remote file of a dump (it names this host and process), and the
 * removal of such files whose hprofkit process has ended (a dump stopped midway). */
void hk_device_dump_remote_name(int app_pid, char *out, size_t outlen);
void hk_device_remove_leftovers(hk_device *dev);

typedef struct hk_dump_result {
    char path[4096];
    uint64_t bytes;
    int gc;      /* a GC ran before the dump */
    int bitmaps; /* the dump was taken with -b png */
    int pid;
    char note[256]; /* e.g. why no GC was run; "" when nothing to say */
} hk_dump_result;

/* am dumpheap into /data/local/tmp, wait for the file to stop growing, pull it (size checked),
 * remove the remote file.  Errors from am (read whatever its exit code) become one clear line. */
int hk_device_dump_heap(hk_device *dev, const hk_dump_opts *opts, hk_dump_result *res, char *err, size_t errlen);

#endif
