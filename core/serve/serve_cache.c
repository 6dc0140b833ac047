/* The answers that cost seconds on a big dump, kept once given: triage (the overview), diff
 * (every diff-mode page) and leaks.  A query's answer is a function of the open dump and its
 * arguments, so the key is the query and its arguments as given.  At most CACHED answers, the
 * oldest dropped first.  Used with the Lua lock held. */
#include "serve/serve_app.h"
#include "util/hk_mem.h"

#include <stdlib.h>
#include <string.h>

#define CACHED 8

static struct {
    char *key;
    size_t keylen;
    hk_buf body;
} kept[CACHED];
static int next_slot;

static int cacheable(const char *name)
{
    return !strcmp(name, "triage") || !strcmp(name, "diff") || !strcmp(name, "leaks");
}

static void make_key(hk_buf *k, const char *name, const sv_param *ps, int n)
{
    hk_buf_puts(k, name);
    for (int i = 0; i < n; i++) {
        hk_buf_putc(k, 0);
        hk_buf_puts(k, ps[i].key);
        hk_buf_putc(k, '=');
        hk_buf_puts(k, ps[i].value);
    }
    hk_buf_putc(k, 0);
}

int sv_cache_get(const char *name, const sv_param *ps, int n, hk_buf *out)
{
    if (!cacheable(name)) return 0;
    hk_buf k;
    hk_buf_init(&k);
    make_key(&k, name, ps, n);
    int found = 0;
    for (int i = 0; i < CACHED && !found; i++)
        if (kept[i].key && kept[i].keylen == k.len && !memcmp(kept[i].key, k.data, k.len)) {
            hk_buf_append(out, kept[i].body.data, kept[i].body.len);
            found = 1;
        }
    hk_buf_free(&k);
    return found;
}

void sv_cache_put(const char *name, const sv_param *ps, int n, const hk_buf *body)
{
    if (!cacheable(name)) return;
    hk_buf k;
    hk_buf_init(&k);
    make_key(&k, name, ps, n);
    int s = next_slot;
    next_slot = (next_slot + 1) % CACHED;
    free(kept[s].key);
    hk_buf_free(&kept[s].body);
    kept[s].key = hk_xmalloc(k.len);
    memcpy(kept[s].key, k.data, k.len);
    kept[s].keylen = k.len;
    hk_buf_init(&kept[s].body);
    hk_buf_append(&kept[s].body, body->data, body->len);
    hk_buf_free(&k);
}
