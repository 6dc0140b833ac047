/* The CLI's steps: resources, plugins, scripts; run a query or a one-off script. */
#include "cli/cli.h"
#include "hk_config.h"
#include "host/fetch_lua.h"
#include "util/hk_file.h"

#include <ctype.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void cli_add_plugins_file(cli_ctx *cx, const char *path)
{
    if (cx->nplugin_files < (int)(sizeof cx->plugin_files / sizeof cx->plugin_files[0]))
        cx->plugin_files[cx->nplugin_files++] = path;
}

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
    for (const char *p = rel; *p; p++) if (*p == '/' && p[1]) n++;
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
        if (access(cx->plugins_ini, R_OK) != 0)   /* sysconfdir outside the prefix (/etc) */
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
    for (int i = 0; i < cx->nplugin_files; i++)
        hk_plugins_add_ini(cx->plugins, cx->plugin_files[i], cx->plugin_dir, 1, err, sizeof err);
    hk_plugins_add_env(cx->plugins, cx->plugin_dir, err, sizeof err);
    hk_plugins_load(cx->plugins);
    const char *const *lines;
    size_t n = hk_plugins_errors(cx->plugins, &lines);
    for (size_t i = 0; i < n; i++) fprintf(stderr, "hprofkit: warning: %s\n", lines[i]);
}

static void load_scripts(cli_ctx *cx)
{
    hkl_host_load_dir(cx->host, cx->scripts_dir);
    char path[4096];
    const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
    if (xdg && *xdg) snprintf(path, sizeof path, "%s/hprofkit/scripts", xdg);
    else if (home && *home) snprintf(path, sizeof path, "%s/.config/hprofkit/scripts", home);
    else path[0] = 0;
    if (path[0]) hkl_host_load_dir(cx->host, path);
    const char *dirs = getenv("HPROFKIT_SCRIPTS");
    if (dirs && *dirs) {
        char *copy = strdup(dirs), *save = NULL;
        for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save))
            if (*d) hkl_host_load_dir(cx->host, d);
        free(copy);
    }
}

int cli_setup(cli_ctx *cx, const char *argv0)
{
    (void)argv0;
    char err[512];
    find_resources(cx);
    cx->host = hkl_host_new(err, sizeof err);
    if (!cx->host) { fprintf(stderr, "hprofkit: %s\n", err); return 1; }
    load_plugins(cx);
    hk_plugins_lua_open(hkl_host_state(cx->host), cx->plugins);
    hk_fetch_lua_open(hkl_host_state(cx->host), cx->plugins);   /* needs the loaded plugins */
    load_scripts(cx);
    return 0;
}

void cli_teardown(cli_ctx *cx)
{
    hkl_host_free(cx->host);
    hk_plugins_free(cx->plugins);
}

/* Writes the rendered output: stdout, or atomically to outfile. */
static int emit(const char *cmd, hk_buf *b, const char *outfile)
{
    if (outfile && strcmp(outfile, "-")) {
        char err[512];
        if (hk_file_write_atomic(outfile, b->data ? b->data : (const unsigned char *)"", b->len, err, sizeof err) < 0) {
            fprintf(stderr, "hprofkit %s: %s\n", cmd, err);
            return 1;
        }
        return 0;
    }
    if (b->len && fwrite(b->data, 1, b->len, stdout) != b->len) {
        fprintf(stderr, "hprofkit %s: cannot write the output: %s\n", cmd, strerror(errno));
        return 1;
    }
    return fflush(stdout) == 0 ? 0 : 1;
}

static void print_query_help(lua_State *L, const char *name, int def)
{
    int needs_dump = 1;
    lua_getfield(L, def, "needs_dump");
    if (lua_isboolean(L, -1)) needs_dump = lua_toboolean(L, -1);
    lua_pop(L, 1);
    printf("usage: hprofkit %s", name);
    if (lua_getfield(L, def, "positional") == LUA_TTABLE) {
        for (lua_Integer i = 1; lua_rawgeti(L, -1, i) == LUA_TSTRING; i++) {
            printf(" ");
            for (const char *c = lua_tostring(L, -1); *c; c++) putchar(toupper((unsigned char)*c));
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
    } else if (needs_dump) {
        printf(" DUMP");
    }
    lua_pop(L, 1);
    printf(" [options]\n\n");
    lua_getfield(L, def, "help");
    if (lua_isstring(L, -1)) printf("%s\n", lua_tostring(L, -1));
    lua_pop(L, 1);
    printf("\noptions:\n");
    if (lua_getfield(L, def, "args") == LUA_TTABLE) {
        lua_pushnil(L);
        while (lua_next(L, -2)) {
            char k[128];   /* shown as typed: --no-gc, not --no_gc */
            snprintf(k, sizeof k, "%s", lua_tostring(L, -2));
            for (char *c = k; *c; c++) if (*c == '_') *c = '-';
            if (!lua_isboolean(L, -1)) {
                printf("  --%s VALUE   (default: %s)\n", k, luaL_tolstring(L, -1, NULL));
                lua_pop(L, 1);
            } else if (lua_toboolean(L, -1)) {
                printf("  --%s   (on by default; --no-%s turns it off)\n", k, k);
            } else {
                printf("  --%s\n", k);
            }
            lua_pop(L, 1);
        }
    }
    lua_pop(L, 1);
    if (lua_getfield(L, def, "options_help") == LUA_TSTRING) printf("%s\n", lua_tostring(L, -1));
    lua_pop(L, 1);
    int own_output = 0;
    if (lua_getfield(L, def, "args") == LUA_TTABLE) {
        own_output = lua_getfield(L, -1, "output") != LUA_TNIL;
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    printf("  --format table|json|csv|...  (--json for json)%s\n",
           own_output ? "" : "   -o FILE  write to FILE (atomically)");
    lua_getfield(L, def, "source");
    printf("\ndefined in %s\n", lua_tostring(L, -1));
    lua_pop(L, 1);
}

/* Calls the renderer for format with (rows, out, meta) and writes the result. */
static int render(lua_State *L, const char *cmd, const char *format, int rows, int meta, const char *outfile)
{
    hkl_push_renderers(L);
    if (lua_getfield(L, -1, format) != LUA_TTABLE) {
        fprintf(stderr, "hprofkit %s: no renderer '%s' (available:", cmd, format);
        lua_pop(L, 1);
        lua_pushnil(L);
        while (lua_next(L, -2)) { fprintf(stderr, " %s", lua_tostring(L, -2)); lua_pop(L, 1); }
        fprintf(stderr, ")\n");
        lua_pop(L, 1);
        return 2;
    }
    lua_getfield(L, -1, "render");
    hk_buf out;
    hk_buf_init(&out);
    lua_pushvalue(L, rows);
    hkl_push_writer(L, &out);
    int writer = lua_gettop(L);
    lua_pushvalue(L, meta);
    lua_pushvalue(L, writer);
    lua_remove(L, writer);
    lua_insert(L, -2);
    /* stack: render rows out meta */
    int w = lua_gettop(L) - 1;
    lua_pushvalue(L, w);
    int wref = luaL_ref(L, LUA_REGISTRYINDEX);
    int rc = hkl_pcall(L, 3, 0);
    lua_rawgeti(L, LUA_REGISTRYINDEX, wref);
    hkl_writer_detach(L, -1);
    lua_pop(L, 1);
    luaL_unref(L, LUA_REGISTRYINDEX, wref);
    if (rc != LUA_OK) {
        fprintf(stderr, "hprofkit %s: renderer '%s' failed:\n%s\n", cmd, format, lua_tostring(L, -1));
        lua_pop(L, 1);
        hk_buf_free(&out);
        return 1;
    }
    lua_pop(L, 2);
    rc = emit(cmd, &out, outfile);
    hk_buf_free(&out);
    return rc;
}

int cli_run_query(cli_ctx *cx, const char *name, int argc, char **argv)
{
    lua_State *L = hkl_host_state(cx->host);
    hkl_push_queries(L);
    if (lua_getfield(L, -1, name) != LUA_TTABLE) {
        fprintf(stderr, "hprofkit: unknown command '%s' ('hprofkit queries' lists them)\n", name);
        return 2;
    }
    int def = lua_gettop(L);
    int needs_dump = 1;
    lua_getfield(L, def, "needs_dump");
    if (lua_isboolean(L, -1)) needs_dump = lua_toboolean(L, -1);
    lua_pop(L, 1);
    /* args start as a copy of the defaults */
    lua_newtable(L);
    int args = lua_gettop(L);
    int defaults = 0, aliases = 0, positional = 0;
    if (lua_getfield(L, def, "args") == LUA_TTABLE) {
        defaults = lua_gettop(L);
        lua_pushnil(L);
        while (lua_next(L, defaults)) { lua_pushvalue(L, -2); lua_insert(L, -2); lua_rawset(L, args); }
    } else lua_pop(L, 1), lua_newtable(L), defaults = lua_gettop(L);
    if (lua_getfield(L, def, "aliases") == LUA_TTABLE) aliases = lua_gettop(L);
    if (lua_getfield(L, def, "positional") == LUA_TTABLE) positional = lua_gettop(L);
    else if (needs_dump) {
        lua_pop(L, 1);
        lua_createtable(L, 1, 0);
        lua_pushstring(L, "dump");
        lua_rawseti(L, -2, 1);
        positional = lua_gettop(L);
    }
    lua_pushvalue(L, args);
    const char *format = "table", *outfile = NULL;
    int help = 0;
    if (cli_parse_args(L, name, defaults, aliases, positional, argc, argv, &format, &outfile, &help) < 0) return 2;
    lua_pop(L, 1);
    if (help) { print_query_help(L, name, def); return 0; }
    /* positional arguments are required unless the query gives a default */
    if (positional) {
        for (lua_Integer i = 1; lua_rawgeti(L, positional, i) == LUA_TSTRING; i++) {
            const char *p = lua_tostring(L, -1);
            if (lua_getfield(L, args, p) == LUA_TNIL) {
                fprintf(stderr, "hprofkit %s: missing %s (usage: see hprofkit %s --help)\n", name, p, name);
                return 2;
            }
            lua_pop(L, 2);
        }
        lua_pop(L, 1);
    }
    lua_getfield(L, def, "run");
    if (needs_dump) {
        lua_getfield(L, args, "dump");
        char err[1024], what[300];
        const char *path = lua_tostring(L, -1);
        snprintf(what, sizeof what, "indexing %s", path);
        hk_dump *d = hk_dump_open(path, hk_progress_index, what, err, sizeof err);
        lua_pop(L, 1);
        if (!d) { fprintf(stderr, "hprofkit %s: %s\n", name, err); return 1; }
        hkl_push_dump(L, d, 0);
    } else {
        lua_pushnil(L);
    }
    lua_pushvalue(L, args);
    if (hkl_pcall(L, 2, 2) != LUA_OK) {
        if (lua_istable(L, -1)) {   /* error{message=, exit_code=} */
            lua_getfield(L, -1, "message");
            lua_getfield(L, -2, "exit_code");
            fprintf(stderr, "hprofkit %s: %s\n", name, lua_isstring(L, -2) ? lua_tostring(L, -2) : "failed");
            return lua_isinteger(L, -1) ? (int)lua_tointeger(L, -1) : 1;
        }
        /* error("...", 0) is a query talking to its user: the message alone.  Anything else
         * is a bug in a script: where it happened, and how it got there. */
        const char *msg = lua_tostring(L, -1);
        const char *nl = msg ? strchr(msg, '\n') : NULL;
        int located = 0;
        if (msg) {
            const char *colon = strstr(msg, ".lua:");
            located = colon && (!nl || colon < nl);
        }
        if (!msg) msg = "(no message)";
        if (located || !nl) fprintf(stderr, "hprofkit %s: error: %s\n", name, msg);
        else fprintf(stderr, "hprofkit %s: %.*s\n", name, (int)(nl - msg), msg);
        return 1;
    }
    int rows = lua_gettop(L) - 1;
    /* meta: what the renderer may use, extended by the query's second return value */
    int extra = rows + 1;
    lua_newtable(L);
    int meta = lua_gettop(L);
    lua_pushstring(L, name);
    lua_setfield(L, meta, "query");
    static const char *const copy[] = {"columns", "shape", "title"};
    for (size_t i = 0; i < sizeof copy / sizeof copy[0]; i++) {
        lua_getfield(L, def, copy[i]);
        lua_setfield(L, meta, copy[i]);
    }
    lua_pushvalue(L, args);
    lua_setfield(L, meta, "args");
    if (lua_istable(L, extra)) {
        lua_pushnil(L);
        while (lua_next(L, extra)) { lua_pushvalue(L, -2); lua_insert(L, -2); lua_rawset(L, meta); }
    }
    if (lua_isnil(L, rows)) { lua_newtable(L); lua_replace(L, rows); }
    int rc = render(L, name, format, rows, meta, outfile);
    if (rc == 0) {
        lua_getfield(L, meta, "exit_code");
        if (lua_isinteger(L, -1)) rc = (int)lua_tointeger(L, -1);
        lua_pop(L, 1);
    }
    return rc;
}

int cli_run_script(cli_ctx *cx, int argc, char **argv)
{
    if (argc < 1) { fprintf(stderr, "usage: hprofkit run FILE.lua [DUMP] [--KEY VALUE]...\n"); return 2; }
    lua_State *L = hkl_host_state(cx->host);
    lua_newtable(L);
    int args = lua_gettop(L);
    lua_createtable(L, 1, 0);
    lua_pushstring(L, "dump");
    lua_rawseti(L, -2, 1);
    int positional = lua_gettop(L);
    const char *format = NULL, *outfile = NULL;
    int help = 0;
    lua_pushvalue(L, args);
    if (cli_parse_args(L, "run", 0, 0, positional, argc - 1, argv + 1, &format, &outfile, &help) < 0) return 2;
    lua_pop(L, 2);
    if (format) { lua_pushstring(L, format); lua_setfield(L, args, "format"); }
    if (outfile) { lua_pushstring(L, outfile); lua_setfield(L, args, "output"); }
    /* the script sees its arguments as `...` and as the global `arg` */
    lua_pushvalue(L, args);
    lua_setglobal(L, "arg");
    return hkl_host_run_file(cx->host, argv[0]) == 0 ? 0 : 1;
}

int cli_list_queries(cli_ctx *cx, int argc, char **argv)
{
    lua_State *L = hkl_host_state(cx->host);
    int json = argc > 0 && !strcmp(argv[0], "--json");
    hkl_push_queries(L);
    int q = lua_gettop(L);
    /* sorted names */
    lua_newtable(L);
    int names = lua_gettop(L);
    lua_Integer n = 0;
    lua_pushnil(L);
    while (lua_next(L, q)) { lua_pop(L, 1); lua_pushvalue(L, -1); lua_rawseti(L, names, ++n); }
    lua_getglobal(L, "table");
    lua_getfield(L, -1, "sort");
    lua_pushvalue(L, names);
    lua_call(L, 1, 0);
    lua_pop(L, 1);
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
    int rc = emit("queries", &out, NULL);
    hk_buf_free(&out);
    return rc;
}
