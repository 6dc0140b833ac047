/* `perfetto` as a device runs it for a heap profile, the way Perfetto's tools/heap_profile
 * drives it: the config arrives on stdin (`echo CONFIG | perfetto --txt -c - -o FILE
 * --background`); in the background it prints the pid of the process that records, which
 * writes the trace to FILE once the config's duration_ms has passed (capped here at 2 s), or at
 * once on SIGTERM/SIGINT (`kill PID`), and exits; `kill -0 PID` tells whether it still runs.
 * Without --background it records in the foreground.  What the test scripts in the config
 * directory:
 *   perfetto_trace   the trace the recording writes (the test encodes it from Perfetto's
 *                    heap-profile textprotos); missing: perfetto fails as on a device where
 *                    the data source is unknown;
 *   perfetto_config  written: the config text received, for the test to read.
 * Below API 28 there is no perfetto binary ("not found", 127). */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/types.h>
#include <unistd.h>

#include "adbd.h"

static long config_number(const char *cfg, const char *key)
{
    const char *p = cfg ? strstr(cfg, key) : NULL;
    return p ? atol(p + strlen(key) + strspn(p + strlen(key), ": ")) : 0;
}

static volatile sig_atomic_t g_stop;
static void stop_early(int sig)
{
    (void)sig;
    g_stop = 1;
}

/* A process that exists and has not exited (a zombie no one reaped yet has). */
static int live(int pid)
{
    if (pid <= 0 || kill(pid, 0) != 0) return 0;
    char path[64], st[256] = "";
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    size_t n = fread(st, 1, sizeof st - 1, f);
    fclose(f);
    st[n] = 0;
    const char *rp = strrchr(st, ')');
    return !(rp && rp[1] == ' ' && rp[2] == 'Z');
}

static int write_trace(const char *outpath, buf_t *out, buf_t *errb)
{
    FILE *src = fopen(cfg_path("perfetto_trace"), "rb");
    if (!src) {
        bprintf(errb, "[perfetto] Unknown data source android.heapprofd\n");
        return 1;
    }
    FILE *dst = fopen(remote_to_local(outpath), "wb");
    if (!dst) {
        fclose(src);
        bprintf(errb, "[perfetto] Failed to open %s: Permission denied\n", outpath);
        return 1;
    }
    char b[65536];
    size_t n;
    while ((n = fread(b, 1, sizeof b, src)) > 0) fwrite(b, 1, n, dst);
    fclose(src);
    fclose(dst);
    bprintf(out, "[perfetto] Wrote %s\n", outpath);
    return 0;
}

int adbd_perfetto(char **argv, int argc, const buf_t *in, buf_t *out, buf_t *errb)
{
    if (adbd_sdk() < 28) {
        bprintf(errb, "/system/bin/sh: perfetto: inaccessible or not found\n");
        return 127;
    }
    const char *outpath = NULL;
    int from_stdin = 0, background = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--background") || !strcmp(argv[i], "-d")) background = 1;
        if ((!strcmp(argv[i], "-o") || !strcmp(argv[i], "--out")) && i + 1 < argc) outpath = argv[++i];
        else if ((!strcmp(argv[i], "-c") || !strcmp(argv[i], "--config")) && i + 1 < argc)
            from_stdin = !strcmp(argv[++i], "-");
    }
    if (!outpath || !from_stdin || !in || !in->len) {
        bprintf(errb, "[perfetto] Either --config or --query is required (a config on stdin with -c -)\n");
        return 1;
    }
    FILE *f = fopen(cfg_path("perfetto_config"), "w");
    if (f) {
        fwrite(in->p, 1, in->len, f);
        fclose(f);
    }
    char *cfg = strndup(in->p, in->len);
    long ms = config_number(cfg, "duration_ms");
    free(cfg);
    if (background) {
        fflush(NULL);
        pid_t child = fork();
        if (child < 0) {
            bprintf(errb, "[perfetto] fork failed\n");
            return 1;
        }
        if (child > 0) {
            bprintf(out, "%d\n", (int)child);
            return 0;
        }
        /* the recorder keeps no end of the shell's connection open, or the host would wait on it */
        for (int fd = 3; fd < 1024; fd++) close(fd);
        signal(SIGTERM, stop_early);
        signal(SIGINT, stop_early);
        setsid();
    }
    for (long t = 0; t < (ms > 2000 ? 2000 : ms) && !g_stop; t += 10) usleep(10000);
    int rc = write_trace(outpath, out, errb);
    if (background) _exit(rc);
    return rc;
}

int adbd_kill(char **argv, int argc, buf_t *errb)
{
    int sig = SIGTERM, rc = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-0")) sig = 0;
        else if (!strcmp(argv[i], "-INT") || !strcmp(argv[i], "-2")) sig = SIGINT;
        else if (!strcmp(argv[i], "-9") || !strcmp(argv[i], "-KILL")) sig = SIGKILL;
        else if (argv[i][0] != '-' && !live(atoi(argv[i]))) {
            bprintf(errb, "/system/bin/sh: kill: %s: No such process\n", argv[i]);
            rc = 1;
        } else if (argv[i][0] != '-' && sig && kill(atoi(argv[i]), sig) != 0) {
            rc = 1;
        }
    }
    return rc;
}
