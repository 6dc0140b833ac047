/* How a command ends when it is stopped: Ctrl-C, SIGTERM or SIGHUP (and running out of memory)
 * remove the temporary files of writes under way, so no `FILE.tmp.XXXXXX` stays beside an output;
 * the output itself is the old file or none, since the new one is only renamed in place whole.
 * The signal then ends the process as it would have (status 128 + the signal's number). */
#include "cli/cli.h"
#include "util/hk_file.h"
#include "util/hk_mem.h"

#include <signal.h>
#include <string.h>

static void on_stop(int sig)
{
    hk_file_remove_temps();
    signal(sig, SIG_DFL);
    raise(sig);
}

void cli_trap_stops(void)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction old;
        /* a signal ignored by whoever started us (nohup, a shell's background job) stays ignored */
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN) continue;
        sigaction(sigs[i], &sa, NULL);
    }
    hk_mem_on_oom(hk_file_remove_temps);
}
