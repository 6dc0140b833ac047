/* The CLI's steps: resources, plugins, scripts; run a query or a one-off script. */
#include "cli/cli.h"
#include "util/hk_mem.h"
#include "hk_config.h"
#include "util/hk_file.h"

#include <ctype.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* out = a/b/c (c may be ""); a path too long for out becomes "" (nothing is found there) */
static void path3(char *out, size_t n, const char *a, const char *b, const char *c)
{
    int k = snprintf(out, n, "%s/%s%s%s", a, b, *c ? "/" : "", c);
    if (k < 0 || (size_t)k >= n) out[0] = 0;
}

/* Count the components of a relative path ("bin" -> 1, "lib/x86_64-linux-gnu" -> 2). */
static int depth_of(const char *rel)
{
    int n = 1;
    for (const char *p = rel; *p; p++)
        if (*p == '/' && p[1]) n++;
    return n;
}

/* Run from the build tree (build/hprofkit) or installed: pick resources accordingly.  An
 * installed binary finds them relative to its own place, so a moved tree still works. */
static void find_resources(cli_ctx *cx)
{
    char exe[PATH_MAX], build[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    char *dir = NULL;
    if (n > 0) {
        exe[n] = 0;
        dir = dirname(exe);
    }
    if (dir && realpath(HK_BUILD_ROOT, build) && !strcmp(dir, build)) {
        path3(cx->scripts_dir, sizeof cx->scripts_dir, HK_SOURCE_ROOT, "scripts", "");
        path3(cx->plugin_dir, sizeof cx->plugin_dir, HK_BUILD_ROOT, "plugins", "");
        path3(cx->plugins_ini, sizeof cx->plugins_ini, HK_SOURCE_ROOT, "plugins.ini", "");
    } else if (dir) {
        char prefix[PATH_MAX];
        snprintf(prefix, sizeof prefix, "%s", dir);
        for (int i = depth_of(HK_REL_BINDIR); i > 0; i--) {
            char *slash = strrchr(prefix, '/');
            if (slash && slash != prefix) *slash = 0;
        }
        path3(cx->scripts_dir, sizeof cx->scripts_dir, prefix, HK_REL_DATADIR, "scripts");
        path3(cx->plugin_dir, sizeof cx->plugin_dir, prefix, HK_REL_PLUGINDIR, "");
        path3(cx->plugins_ini, sizeof cx->plugins_ini, prefix, HK_REL_SYSCONFDIR, "plugins.ini");
        if (access(cx->plugins_ini, R_OK) != 0) /* sysconfdir outside the prefix (/etc) */
            path3(cx->plugins_ini, sizeof cx->plugins_ini, HK_SYSCONFDIR, "plugins.ini", "");
    } else {
        path3(cx->scripts_dir, sizeof cx->scripts_dir, HK_DATADIR, "scripts", "");
        snprintf(cx->plugin_dir, sizeof cx->plugin_dir, "%s", HK_PLUGINDIR);
        path3(cx->plugins_ini, sizeof cx->plugins_ini, HK_SYSCONFDIR, "plugins.ini", "");
    }
}

static void load_plugins(cli_ctx *cx)
{
    char err[512];
    cx->plugins = hk_plugins_new();
    hk_plugins_add_ini(cx->plugins, cx->plugins_ini, cx->plugin_dir, 0, err, sizeof err);
    for (int i = 0; i < cx->g.nplugin_files; i++)
        hk_plugins_add_ini(cx->plugins, cx->g.plugin_files[i], cx->plugin_dir, 1, err, sizeof err);
    hk_plugins_add_env(cx->plugins, cx->plugin_dir, err, sizeof err);
    hk_plugins_load(cx->plugins);
    const char *const *lines;
    size_t n = hk_plugins_errors(cx->plugins, &lines);
    for (size_t i = 0; i < n; i++) fprintf(stderr, "hprofkit: warning: %s\n", lines[i]);
}

/* Each directory once, however it is spelled: loading one twice would replace its own
 * queries and repeat every note. */
static void load_dir_once(cli_ctx *cx, const char *dir, char **seen, int *nseen, int max)
{
    char *real = realpath(dir, NULL);
    if (!real) return; /* a directory that does not exist has no scripts */
    for (int i = 0; i < *nseen; i++)
        if (!strcmp(seen[i], real)) {
            free(real);
            return;
        }
    hkl_host_load_dir(cx->host, real);
    if (*nseen < max) seen[(*nseen)++] = real;
    else free(real);
}

static void load_scripts(cli_ctx *cx)
{
    char *seen[64];
    int nseen = 0, max = (int)(sizeof seen / sizeof seen[0]);
    load_dir_once(cx, cx->scripts_dir, seen, &nseen, max);
    char path[4096];
    const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
    if (xdg && *xdg) snprintf(path, sizeof path, "%s/hprofkit/scripts", xdg);
    else if (home && *home) snprintf(path, sizeof path, "%s/.config/hprofkit/scripts", home);
    else path[0] = 0;
    if (path[0]) load_dir_once(cx, path, seen, &nseen, max);
    const char *dirs = getenv("HPROFKIT_SCRIPTS");
    if (dirs && *dirs) {
        char *copy = hk_xstrdup(dirs), *save = NULL;
        for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save))
            if (*d) load_dir_once(cx, d, seen, &nseen, max);
        free(copy);
    }
    for (int i = 0; i < nseen; i++) free(seen[i]);
}

int cli_setup(cli_ctx *cx, const char *argv0)
{
    (void)argv0;
    char err[512];
    find_resources(cx);
    cx->host = hkl_host_new(err, sizeof err);
    if (!cx->host) {
        fprintf(stderr, "hprofkit: %s\n", err);
        return 1;
    }
    hkl_use_chunk_cache(hkl_host_state(cx->host), cx->scripts_dir);
    load_plugins(cx);
    hkl_open_plugin_modules(hkl_host_state(cx->host), cx->plugins);
    lua_State *L = hkl_host_state(cx->host);
    lua_getglobal(L, "hk");
    cli_push_globals(L, &cx->g);
    lua_setfield(L, -2, "options");
    lua_pop(L, 1);
    load_scripts(cx);
    return 0;
}

void cli_teardown(cli_ctx *cx)
{
    hkl_host_free(cx->host);
    hk_plugins_free(cx->plugins);
}

int cli_run_script(cli_ctx *cx, int argc, char **argv)
{
    if (argc < 1) {
        fprintf(stderr, "usage: hprofkit run FILE.lua|- [DUMP] [--KEY VALUE]...\n");
        return 2;
    }
    if (strcmp(argv[0], "-") && access(argv[0], R_OK) != 0) { /* a pipe or /dev/stdin is fine too */
        fprintf(stderr, "hprofkit run: script %s: %s\n", argv[0], strerror(errno));
        return 2;
    }
    lua_State *L = hkl_host_state(cx->host);
    lua_newtable(L);
    int args = lua_gettop(L);
    lua_createtable(L, 1, 0);
    lua_pushstring(L, "dump");
    lua_rawseti(L, -2, 1);
    int positional = lua_gettop(L);
    cli_common c = {0};
    lua_pushvalue(L, args);
    if (cli_parse_args(L, "run", 0, 0, positional, argc - 1, argv + 1, &c) < 0) return 2;
    lua_pop(L, 2);
    if (c.format) {
        lua_pushstring(L, c.format);
        lua_setfield(L, args, "format");
    }
    if (c.outfile) {
        lua_pushstring(L, c.outfile);
        lua_setfield(L, args, "output");
    }
    const char *map = cli_map_path(&cx->g, NULL); /* the script decides whether to use it */
    if (map) {                                    /* for hk.open(arg.dump, {map = arg.map}): --no-map is false */
        if (*map) lua_pushstring(L, map);
        else lua_pushboolean(L, 0);
        lua_setfield(L, args, "map");
    }
    /* the script sees its arguments as `...` and as the global `arg` */
    lua_pushvalue(L, args);
    lua_setglobal(L, "arg");
    if (hkl_host_run_file(cx->host, argv[0]) == 0) return 0;
    return cli_report_error(L, "run", cx->g.debug);
}

void cli_push_sorted_keys(lua_State *L, int idx)
{
    idx = lua_absindex(L, idx);
    lua_newtable(L);
    int names = lua_gettop(L);
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_pop(L, 1);
        lua_pushvalue(L, -1);
        lua_rawseti(L, names, (lua_Integer)lua_rawlen(L, names) + 1);
    }
    lua_getglobal(L, "table");
    lua_getfield(L, -1, "sort");
    lua_pushvalue(L, names);
    lua_call(L, 1, 0);
    lua_pop(L, 1);
}

int cli_list_queries(cli_ctx *cx, int argc, char **argv)
{
    lua_State *L = hkl_host_state(cx->host);
    int json = argc > 0 && !strcmp(argv[0], "--json");
    hkl_push_queries(L);
    int q = lua_gettop(L);
    cli_push_sorted_keys(L, q);
    int names = lua_gettop(L);
    lua_Integer n = (lua_Integer)lua_rawlen(L, names);
    hk_buf out;
    hk_buf_init(&out);
    if (json) hk_buf_puts(&out, "[");
    for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(L, names, i);
        const char *name = lua_tostring(L, -1);
        lua_getfield(L, q, name);
        lua_getfield(L, -1, "help");
        const char *help = lua_isstring(L, -1) ? lua_tostring(L, -1) : "";
        lua_getfield(L, -2, "source");
        const char *src = lua_tostring(L, -1);
        if (json) {
            hk_buf_puts(&out, i > 1 ? ",\n {\"name\": " : "\n {\"name\": ");
            hk_buf_json_string(&out, name, strlen(name));
            hk_buf_puts(&out, ", \"help\": ");
            hk_buf_json_string(&out, help, strlen(help));
            hk_buf_puts(&out, ", \"source\": ");
            hk_buf_json_string(&out, src ? src : "", src ? strlen(src) : 0);
            hk_buf_puts(&out, "}");
        } else {
            const char *nl = strchr(help, '\n');
            hk_buf_printf(&out, "  %-22s %.*s\n", name, nl ? (int)(nl - help) : (int)strlen(help), help);
        }
        lua_pop(L, 4);
    }
    if (json) hk_buf_puts(&out, "\n]\n");
    int rc = cli_emit("queries", &out, NULL);
    hk_buf_free(&out);
    return rc;
}
