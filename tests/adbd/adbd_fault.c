/* Faults the test device injects (the config's `fault` file, re-read for every service): lines
 * "SUBSTRING ACTION"; the first line whose SUBSTRING is part of an OPENed service's name (for
 * example `am dumpheap`, `stat -c`, `sync:`, `jdwp:`, `dumpsys meminfo`) decides what that
 * service does:
 *   drop     the device goes away: the transport closes its TCP connection at that step
 *   stall    the service opens and never answers (the host's timeout must end the wait)
 *   garbage  the service answers 4 KiB of noise instead of its output, then closes
 *   short    a shell answers the first half of its output and closes without an exit code; a
 *            pull (sync RECV) sends the first half of the file and then DONE
 * Each service that meets a fault is logged as "FAULT ACTION SERVICE". */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "adbd.h"

static const char *const k_actions[] = {"", "drop", "stall", "garbage", "short"};

int adbd_fault(const char *service)
{
    char *s = slurp(cfg_path("fault"));
    int action = FAULT_NONE;
    for (char *save = NULL, *l = strtok_r(s, "\n", &save); l && !action; l = strtok_r(NULL, "\n", &save)) {
        char *sp = strrchr(l, ' ');
        if (!sp) continue;
        *sp = 0;
        if (!strstr(service, l)) continue;
        for (int a = FAULT_DROP; a <= FAULT_SHORT; a++)
            if (!strcmp(sp + 1, k_actions[a])) action = a;
    }
    free(s);
    if (action) {
        FILE *f = fopen(cfg_path("log"), "a");
        if (f) {
            fprintf(f, "FAULT %s %s\n", k_actions[action], service);
            fclose(f);
        }
    }
    return action;
}

/* The host's end of a service that stalls or answers noise. */
int adbd_fault_stream(int action)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) return -1;
    pid_t c = fork();
    if (c < 0) return -1;
    if (c == 0) {
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        close(sv[0]);
        if (action == FAULT_STALL) pause();
        unsigned char noise[4096];
        unsigned x = 36;
        for (size_t i = 0; i < sizeof noise; i++) noise[i] = (unsigned char)((x = x * 1103515245u + 12345u) >> 16);
        if (write(sv[1], noise, sizeof noise) < 0) _exit(1);
        _exit(0);
    }
    close(sv[1]);
    return sv[0];
}
