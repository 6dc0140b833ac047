/*
 * plugin_check: drives the plugin host without the CLI, for tests/t_plugins.sh.
 *
 *   plugin_check [--ini FILE]... [--optional-ini FILE] [--dir PLUGIN_DIR] [--env]
 *                [--call FUNC ARG... | --image SOURCE PTR OUT.png]
 *   plugin_check --old-host PLUGIN.so    (its init with an ABI 1.0-sized host table)
 *
 * Prints the plugins as JSON rows, the same flat rows `hprofkit plugins --json` gives, then
 * runs the call (its JSON on stdout, an error on stderr and exit 1).  Every load problem is
 * a warning on stderr.
 */
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/plugin_host.h"
#include "util/hk_file.h"
#include "util/hk_png.h"

static const char *status_name(enum hk_plugin_status s)
{
    return s == HK_PLUGIN_OK         ? "ok"
           : s == HK_PLUGIN_ERROR    ? "error"
           : s == HK_PLUGIN_DISABLED ? "disabled"
                                     : "not loaded";
}

static void field(hk_buf *b, const char *k, const char *v, int first)
{
    hk_buf_printf(b, "%s\"%s\":", first ? "" : ",", k);
    hk_buf_json_string(b, v, strlen(v));
}

static void print_rows(hk_plugins *ps)
{
    hk_buf b, list;
    hk_buf_init(&b);
    hk_buf_init(&list);
    hk_buf_putc(&b, '[');
    for (size_t i = 0; i < hk_plugins_count(ps); i++) {
        const hk_plugin_info *p = hk_plugins_at(ps, i);
        hk_buf_puts(&b, i ? ",\n{" : "{");
        field(&b, "name", p->name, 1);
        field(&b, "version", p->version, 0);
        field(&b, "status", status_name(p->status), 0);
        static const enum hk_reg_kind kinds[] = {HK_REG_FUNCTION, HK_REG_BITMAP_SOURCE, HK_REG_FETCHER};
        static const char *const keys[] = {"functions", "bitmap_sources", "fetchers"};
        for (int k = 0; k < 3; k++) {
            const hk_reg_entry *const *es;
            size_t n = hk_registry_list(hk_plugins_registry(ps), kinds[k], &es);
            hk_buf_reset(&list);
            for (size_t e = 0; e < n; e++)
                if (es[e]->plugin == p->self) hk_buf_printf(&list, "%s%s", list.len ? ", " : "", es[e]->name);
            field(&b, keys[k], hk_buf_cstr(&list), 0);
        }
        field(&b, "summary", p->summary, 0);
        field(&b, "path", p->path, 0);
        field(&b, "error", p->error, 0);
        hk_buf_putc(&b, '}');
    }
    hk_buf_puts(&b, "]\n");
    fwrite(b.data, 1, b.len, stdout);
    hk_buf_free(&b);
    hk_buf_free(&list);
}

static int do_image(hk_plugins *ps, const char *name, const char *ptr, const char *outpath)
{
    const hk_reg_entry *e = hk_registry_find(hk_plugins_registry(ps), HK_REG_BITMAP_SOURCE, name);
    const hk_bitmap_source *src = e ? &e->as.src : NULL;
    void *ud = e ? e->ud : NULL;
    if (!src) {
        fprintf(stderr, "plugin_check: no bitmap source %s\n", name);
        return 1;
    }
    char err[512] = "", note[256] = "";
    void *state = ud; /* what a source without open() gets */
    if (src->open && src->open(ud, NULL, &state, err, sizeof err) < 0) {
        fprintf(stderr, "plugin_check: %s: %s\n", name, err);
        return 1;
    }
    hk_bitmap bm = {.native_ptr = strtoull(ptr, NULL, 0), .width = -1, .height = -1};
    hk_buf out;
    hk_buf_init(&out);
    int kind = src->image(state, &bm, &out, note, sizeof note);
    if (src->close) src->close(state);
    int w = 0, h = 0, rc = 0;
    if (kind == HK_IMAGE_ENCODED && hk_png_size(out.data, out.len, &w, &h) == 0) {
        if (hk_file_write_atomic(outpath, out.data, out.len, err, sizeof err) < 0) {
            fprintf(stderr, "plugin_check: %s\n", err);
            rc = 1;
        }
        printf("{\"kind\":\"png\",\"width\":%d,\"height\":%d}\n", w, h);
    } else {
        printf("{\"kind\":%d,\"note\":\"%s\"}\n", kind, note);
    }
    hk_buf_free(&out);
    return rc;
}

/* --old-host PLUGIN.so: its init, handed a host table as short as ABI 1.0's, must refuse it */
static int old_host(const char *path)
{
    void *dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    hk_plugin_init_fn init = NULL;
    if (dl) *(void **)&init = dlsym(dl, HK_PLUGIN_INIT_SYMBOL);
    if (!init) {
        fprintf(stderr, "plugin_check: %s: no %s\n", path, HK_PLUGIN_INIT_SYMBOL);
        if (dl) dlclose(dl);
        return 1;
    }
    hk_host old = *hk_host_table();
    old.size = (uint32_t)offsetof(hk_host, config_bool);
    char err[512] = "";
    int rc = init(&old, NULL, err, sizeof err);
    printf("%d %s\n", rc, err);
    dlclose(dl);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "--old-host")) return old_host(argv[2]);
    hk_plugins *ps = hk_plugins_new();
    const char *dir = NULL;
    int i = 1, rc = 0;
    char err[1024];
    for (; i < argc; i++) {
        if (!strcmp(argv[i], "--dir") && i + 1 < argc) dir = argv[++i];
        else if (!strcmp(argv[i], "--ini") && i + 1 < argc) hk_plugins_add_ini(ps, argv[++i], dir, 1, err, sizeof err);
        else if (!strcmp(argv[i], "--optional-ini") && i + 1 < argc)
            hk_plugins_add_ini(ps, argv[++i], dir, 0, err, sizeof err);
        else if (!strcmp(argv[i], "--env")) hk_plugins_add_env(ps, dir, err, sizeof err);
        else break;
    }
    hk_plugins_load(ps);
    const char *const *lines;
    size_t n = hk_plugins_errors(ps, &lines);
    for (size_t k = 0; k < n; k++) fprintf(stderr, "hprofkit: warning: %s\n", lines[k]);
    print_rows(ps);
    if (i < argc && !strcmp(argv[i], "--call") && i + 1 < argc) {
        const char *fn = argv[i + 1];
        int nargs = argc - i - 2;
        const char *const *args = (const char *const *)argv + i + 2;
        size_t *lens = calloc((size_t)nargs + 1, sizeof *lens);
        for (int k = 0; k < nargs; k++) lens[k] = strlen(args[k]);
        hk_buf out;
        hk_buf_init(&out);
        if (hk_plugins_call(ps, fn, nargs, args, lens, &out, err, sizeof err) < 0) {
            fprintf(stderr, "plugin_check: %s\n", err);
            rc = 1;
        } else {
            printf("%s\n", hk_buf_cstr(&out));
        }
        hk_buf_free(&out);
        free(lens);
    } else if (i + 3 < argc && !strcmp(argv[i], "--image")) {
        rc = do_image(ps, argv[i + 1], argv[i + 2], argv[i + 3]);
    } else if (i < argc) {
        fprintf(stderr, "usage: plugin_check [--dir DIR] [--ini FILE]... [--env] "
                        "[--call FUNC ARG... | --image SOURCE PTR OUT]\n");
        rc = 2;
    }
    hk_plugins_free(ps);
    return rc;
}
