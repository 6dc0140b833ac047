/* The dump's SHA-256 (the fleet's key for it), optionally made on a thread of its own while the
 * caller goes on: hashing a 1 GB dump takes half a second of one core, and the phases after
 * the index (the instance lists, the leak finders, the shortest paths) leave the other core
 * idle for longer than that. */
#include "hprof/hprof.h"
#include "util/hk_jobs.h"
#include "util/hk_mem.h"
#include "util/hk_sha.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char sha_key;

/* The thread hashes a piece at a time, so that a dump closed before anyone reads the answer
 * stops it within a piece rather than waiting for the whole file. */
enum { PIECE = 64 << 20 };

typedef struct sha_state {
    const uint8_t *data; /* what the thread hashes */
    size_t size;
    pthread_t th;
    int running; /* a thread was started and not joined yet */
    int have;    /* hex and rc hold the answer */
    int rc;
    int fault;          /* the signal a fault (a mapped file cut short) ended the thread's hash with, or 0 */
    atomic_int stop;    /* nobody will read the answer: the thread ends at its next piece */
    hk_sha256_run *run; /* made and freed outside the guarded call, which a fault leaves midway */
    char hex[65];
} sha_state;

static void hash_call(void *ctx, int k)
{
    (void)k;
    sha_state *s = ctx;
    for (size_t at = 0; at < s->size && !atomic_load(&s->stop); at += PIECE)
        if (hk_sha256_update(s->run, s->data + at, s->size - at < PIECE ? s->size - at : PIECE) < 0) {
            s->rc = -1;
            return;
        }
}

static void *hash_thread(void *arg)
{
    sha_state *s = arg;
    s->run = hk_sha256_begin();
    s->rc = s->run ? 0 : -1;
    if (s->run) s->fault = hk_guarded(hash_call, s, 0);
    int whole = !s->rc && !s->fault && !atomic_load(&s->stop);
    int rc = hk_sha256_end(s->run, whole ? s->hex : NULL);
    s->run = NULL;
    if (whole) s->rc = rc;
    return NULL;
}

/* The answer of a started thread, waited for (the thread reads the dump's bytes: it ends
 * before they are unmapped or replaced).  want: the answer is read next; a fault that ended
 * the hash is raised again here, on the thread that asks, as if it had hashed there.
 * Otherwise (a dump closing, its bytes replaced) the thread is stopped and what it made is
 * dropped. */
static void join(sha_state *s, int want)
{
    if (!s->running) return;
    if (!want) atomic_store(&s->stop, 1);
    pthread_join(s->th, NULL);
    s->running = 0;
    s->have = want && !s->fault;
    int sig = s->fault;
    s->fault = 0;
    atomic_store(&s->stop, 0);
    if (sig && want) raise(sig);
}

static void state_free(void *p)
{
    join(p, 0);
    free(p);
}

static sha_state *state_of(hk_dump *d)
{
    sha_state *s = hk_dump_attached(d, &sha_key);
    if (s) return s;
    s = hk_xcalloc(1, sizeof *s);
    hk_dump_attach(d, &sha_key, s, state_free);
    return s;
}

void hk_dump_sha256_start(hk_dump *d)
{
    sha_state *s = state_of(d);
    if (s->running || s->have) return;
    s->data = hk_dump_bytes(d, &s->size);
    /* no thread to be had: hk_dump_sha256 hashes on the caller's */
    if (pthread_create(&s->th, NULL, hash_thread, s) == 0) s->running = 1;
}

int hk_dump_sha256(hk_dump *d, char hex[65], char *err, size_t errlen)
{
    sha_state *s = state_of(d);
    join(s, 1);
    if (!s->have) {
        size_t size;
        const uint8_t *data = hk_dump_bytes(d, &size);
        s->rc = hk_sha256_hex(data, size, s->hex);
        s->have = 1;
    }
    if (s->rc < 0) {
        snprintf(err, errlen, "SHA-256 failed in libcrypto");
        hex[0] = 0;
        return -1;
    }
    memcpy(hex, s->hex, sizeof s->hex);
    return 0;
}

void hk_dump_sha256_forget(hk_dump *d)
{
    sha_state *s = hk_dump_attached(d, &sha_key);
    if (!s) return;
    join(s, 0);
    s->have = 0;
}
