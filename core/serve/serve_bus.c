/* The dump is memory-mapped: a file truncated under a running server faults (SIGBUS) on the
 * next page a request reads.  The request is failed with a message instead, and the dump is not
 * read again: its mapping can no longer be trusted, nor can the Lua state the fault interrupted. */
#include "serve/serve_app.h"
#include "util/hk_jobs.h"

#include <setjmp.h>
#include <signal.h>
#include <string.h>

static __thread sigjmp_buf *guard;

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
    (void)si;
    (void)uc;
    hk_fault_in_guard(sig); /* a part of parallel work, or a hash on its thread: raised again on the caller's */
    if (guard) siglongjmp(*guard, 1);
    signal(sig, SIG_DFL); /* a fault outside a guarded request: the usual crash */
    raise(sig);
}

void sv_install_sigbus(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigbus;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, NULL);
}

int sv_guarded(sv_app *a, void (*fn)(sv_app *a, void *arg), void *arg)
{
    sigjmp_buf jb;
    pthread_mutex_lock(&a->lock);
    if (a->broken) {
        pthread_mutex_unlock(&a->lock);
        return -1;
    }
    if (sigsetjmp(jb, 1)) {
        guard = NULL;
        a->broken = 1;
        sv_capture_end(NULL, NULL);
        pthread_mutex_unlock(&a->lock);
        return -1;
    }
    guard = &jb;
    fn(a, arg);
    guard = NULL;
    pthread_mutex_unlock(&a->lock);
    return 0;
}
