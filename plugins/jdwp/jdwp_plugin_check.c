/* jdwp_plugin_check PLUGIN.so fetch|gc HOST:PORT [OUTDIR [budget_bytes]]
 * A minimal stand-in host for tests: loads the plugin the way the host does (ABI symbol first,
 * then init with a table), takes the fetcher it registered and runs it against a JVM on TCP.
 * The table holds what the plugin calls (the fetch writes its PNGs through write_file_atomic:
 * the host's own writer, linked from the core); an entry left NULL would crash the plugin.
 * Prints "fetcher=NAME fetched=N skipped=N failed=N stopped_by_budget=N bytes=N" or the error. */
#include "hprofkit.h"
#include "util/hk_file.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const hk_fetcher *check_fetcher;
static void *check_ud;
static const char *check_budget_bytes;

static int check_describe(hk_plugin *self, const char *name, const char *version, const char *summary)
{
    (void)self;
    fprintf(stderr, "plugin %s %s: %s\n", name, version, summary);
    return 0;
}

static int check_register_fetcher(hk_plugin *self, const hk_fetcher *f, void *ud)
{
    (void)self;
    check_fetcher = f;
    check_ud = ud;
    return 0;
}

static const char *check_config(hk_plugin *self, const char *key)
{
    (void)self;
    return !strcmp(key, "budget_bytes") ? check_budget_bytes : NULL;
}

/* the host's own parser is not linked here: a number or the default is all the plugin needs */
static int check_config_number(hk_plugin *self, const char *key, double def, double *out, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    const char *v = check_config(self, key);
    *out = v ? strtod(v, NULL) : def;
    return 0;
}

static void check_log(hk_plugin *self, int level, const char *fmt, ...)
{
    (void)self;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "log[%d]: ", level);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

static void check_progress(hk_plugin *self, const char *fmt, ...)
{
    (void)self;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "progress: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* The stand-in host's allocator (ABI 1.2): the C library's, ending the program when it fails. */
static void *check_nonnull(void *p)
{
    if (!p) {
        fputs("jdwp_plugin_check: out of memory\n", stderr);
        abort();
    }
    return p;
}
static void *check_alloc(size_t n)
{
    return check_nonnull(calloc(1, n ? n : 1));
}
static void *check_realloc(void *p, size_t n)
{
    return check_nonnull(realloc(p, n ? n : 1));
}
static char *check_strdup(const char *s)
{
    return check_nonnull(strdup(s));
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: jdwp_plugin_check PLUGIN.so fetch|gc HOST:PORT [OUTDIR [budget_bytes]]\n");
        return 2;
    }
    check_budget_bytes = argc > 5 ? argv[5] : NULL;
    void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        return 1;
    }
    const uint32_t *abi = dlsym(h, HK_PLUGIN_ABI_SYMBOL);
    hk_plugin_init_fn init = (hk_plugin_init_fn)dlsym(h, HK_PLUGIN_INIT_SYMBOL);
    if (!abi || !init || *abi != HK_ABI_VERSION) {
        fprintf(stderr, "not a plugin for ABI %u\n", HK_ABI_VERSION);
        dlclose(h);
        return 1;
    }
    hk_host host = {0};
    host.abi_version = HK_ABI_VERSION;
    host.size = sizeof host;
    host.describe = check_describe;
    host.register_fetcher = check_register_fetcher;
    host.config = check_config;
    host.config_number = check_config_number;
    host.log = check_log;
    host.progress = check_progress;
    host.mem_alloc = check_alloc;
    host.mem_realloc = check_realloc;
    host.mem_strdup = check_strdup;
    host.mem_free = free;
    host.write_file_atomic = hk_file_write_atomic;
    char err[512] = "";
    if (init(&host, (hk_plugin *)&host, err, sizeof err) < 0 || !check_fetcher) {
        fprintf(stderr, "init: %s\n", err[0] ? err : "no fetcher registered");
        dlclose(h);
        return 1;
    }
    hk_fetch_request req = {.jdwp_addr = argv[3], .out_dir = argc > 4 ? argv[4] : "."};
    int rc;
    if (!strcmp(argv[2], "gc")) {
        rc = check_fetcher->gc(check_ud, &req, err, sizeof err);
        if (rc == 0) printf("fetcher=%s gc=ok\n", check_fetcher->name);
    } else {
        hk_fetch_result res;
        rc = check_fetcher->fetch_bitmaps(check_ud, &req, &res, err, sizeof err);
        printf("fetcher=%s fetched=%d skipped=%d failed=%d stopped_by_budget=%d bytes=%llu\n", check_fetcher->name,
               res.fetched, res.skipped, res.failed, res.stopped_by_budget, (unsigned long long)res.bytes);
    }
    if (rc < 0) fprintf(stderr, "error: %s\n", err);
    dlclose(h);
    return rc < 0 ? 1 : 0;
}
