/* Which queries the explorer and the MCP server offer, and a run of one from name=value pairs:
 * the pairs become the command line `hprofkit QUERY DUMP --KEY=VALUE... --json` would have, so
 * an answer over HTTP or MCP is the CLI's own. */
#include "serve/serve_app.h"
#include "util/hk_mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Commands that talk to a device, write files as their job, or read many dumps. */
static const char *const not_offered[] = {"convert", "dump", "fetch-bitmaps", "watch", "devices", "processes", NULL};

/* Arguments a client may not give: they write files, or name files the server chose. */
static const char *const refused[] = {"o",       "output",   "export",   "report",  "trace",   "hprof", "dump",
                                      "base",    "baseline", "base_map", "meminfo", "samples", "map",   "sidecar",
                                      "plugins", "help",     "h",        "dir",     "native",  NULL};

static int in_list(const char *const *list, const char *s)
{
    for (int i = 0; list[i]; i++)
        if (!strcmp(list[i], s)) return 1;
    return 0;
}

int sv_offered(lua_State *L, const sv_app *a, const char *name, int def)
{
    if (in_list(not_offered, name) || !strncmp(name, "fleet-", 6)) return 0;
    if (!strcmp(name, "diff")) return a->baseline != NULL;
    lua_getfield(L, def, "needs_dump");
    int needs = !lua_isboolean(L, -1) || lua_toboolean(L, -1);
    lua_pop(L, 1);
    return needs;
}

/* The command line being built; its strings are owned here. */
typedef struct argv_b {
    char **v;
    int n, cap;
} argv_b;

static void push_arg(argv_b *b, const char *fmt, const char *k, const char *v)
{
    if (b->n + 1 >= b->cap) {
        b->cap = b->cap ? 2 * b->cap : 16;
        b->v = hk_xrealloc(b->v, (size_t)b->cap * sizeof *b->v);
    }
    size_t n = strlen(fmt) + strlen(k) + (v ? strlen(v) : 0) + 1;
    b->v[b->n] = hk_xmalloc(n);
    snprintf(b->v[b->n], n, fmt, k, v ? v : "");
    b->v[++b->n] = NULL;
}

static void free_argv(argv_b *b)
{
    for (int i = 0; i < b->n; i++) free(b->v[i]);
    free(b->v);
}

/* An argument's name: a letter, then letters, digits, '-' and '_' (so no '=' can carry a value
 * past the checks below). */
static int is_name(const char *k)
{
    if (!((*k >= 'a' && *k <= 'z') || (*k >= 'A' && *k <= 'Z'))) return 0;
    for (; *k; k++)
        if (!((*k >= 'a' && *k <= 'z') || (*k >= 'A' && *k <= 'Z') || (*k >= '0' && *k <= '9') || *k == '-' ||
              *k == '_'))
            return 0;
    return 1;
}

/* key as the query declares it: "min-pixels" is min_pixels */
static void norm_key(const char *k, char *out, size_t n)
{
    size_t i = 0;
    for (; k[i] && i + 1 < n; i++) out[i] = k[i] == '-' ? '_' : k[i];
    out[i] = 0;
}

/* Is k one of the query's positional names (then it is not an option)? */
static int is_positional(lua_State *L, int pos, const char *k)
{
    for (lua_Integer i = 1; pos && lua_rawgeti(L, pos, i) == LUA_TSTRING; i++) {
        int same = !strcmp(lua_tostring(L, -1), k);
        lua_pop(L, 1);
        if (same) return 1;
    }
    if (pos) lua_pop(L, 1);
    return 0;
}

static const char *param(const sv_param *ps, int n, const char *key)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(ps[i].key, key)) return ps[i].value;
    return NULL;
}

/* The options: --KEY=VALUE for each pair, --KEY for a flag given without a value. */
static int add_options(lua_State *L, int def, int pos, const sv_param *ps, int n, argv_b *b, sv_result *r)
{
    for (int i = 0; i < n; i++) {
        char k[128];
        norm_key(ps[i].key, k, sizeof k);
        if (!is_name(ps[i].key) || strlen(ps[i].key) >= sizeof k) {
            snprintf(r->msg, sizeof r->msg, "'%.100s' is not an argument name", ps[i].key);
            return -1;
        }
        if (in_list(refused, k)) {
            snprintf(r->msg, sizeof r->msg,
                     "--%s is not offered here: the server writes no files and reads only its dumps", ps[i].key);
            return -1;
        }
        if (!strcmp(k, "format") || !strcmp(k, "json")) continue; /* always JSON */
        if (is_positional(L, pos, k)) continue;
        lua_getfield(L, def, "args");
        int flag = lua_istable(L, -1) && lua_getfield(L, -1, k) == LUA_TBOOLEAN;
        lua_settop(L, pos ? pos : def);
        if ((flag || !strcmp(k, "bytes")) && !*ps[i].value) push_arg(b, "--%s", ps[i].key, NULL);
        else push_arg(b, "--%s=%s", ps[i].key, ps[i].value);
    }
    return 0;
}

/* The positionals in order: the open dump, the baseline, the rest from the pairs. */
static int add_positionals(lua_State *L, const sv_app *a, int pos, const sv_param *ps, int n, argv_b *b, sv_result *r)
{
    push_arg(b, "--", "", NULL);
    for (lua_Integer i = 1; lua_rawgeti(L, pos, i) == LUA_TSTRING; i++) {
        const char *p = lua_tostring(L, -1), *v;
        if (!strcmp(p, "dump")) v = a->dump_path;
        else if (!strcmp(p, "base")) v = a->baseline;
        else v = param(ps, n, p);
        lua_pop(L, 1);
        if (!v) break; /* the CLI says what is missing */
        push_arg(b, "%s%s", v, NULL);
    }
    lua_pop(L, 1);
    return 0;
}

/* Does the query (its definition at def) declare the argument k? */
static int declares(lua_State *L, int def, const char *k)
{
    int top = lua_gettop(L);
    int yes = lua_getfield(L, def, "args") == LUA_TTABLE && lua_getfield(L, -1, k) != LUA_TNIL;
    lua_settop(L, top);
    return yes;
}

static void build_argv(lua_State *L, const sv_app *a, const char *name, const sv_param *ps, int n, argv_b *b,
                       sv_result *r)
{
    int top = lua_gettop(L);
    hkl_push_queries(L);
    lua_getfield(L, -1, name);
    int def = lua_gettop(L);
    if (!lua_istable(L, def) || !sv_offered(L, a, name, def)) {
        snprintf(r->msg, sizeof r->msg, "hprofkit: '%s' is not a query offered here (/api/queries lists them)", name);
        r->rc = 404;
        lua_settop(L, top);
        return;
    }
    if (lua_getfield(L, def, "positional") != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_createtable(L, 1, 0);
        lua_pushstring(L, "dump");
        lua_rawseti(L, -2, 1);
    }
    int pos = lua_gettop(L);
    if (add_options(L, def, pos, ps, n, b, r) < 0) r->rc = 2;
    else {
        if (!strcmp(name, "diff") && a->base_map) push_arg(b, "--base-map=%s", a->base_map, NULL);
        /* diff mode: every query that can show the baseline beside the dump does */
        if (a->baseline && declares(L, def, "baseline")) push_arg(b, "--baseline=%s", a->baseline, NULL);
        if (!strcmp(name, "triage") && a->meminfo) push_arg(b, "--meminfo=%s", a->meminfo, NULL);
        if (!strcmp(name, "triage") && a->native) push_arg(b, "--native=%s", a->native, NULL);
        push_arg(b, "--json", "", NULL);
        add_positionals(L, a, pos, ps, n, b, r);
    }
    lua_settop(L, top);
}

void sv_run_query(sv_app *a, const char *name, const sv_param *ps, int n, sv_result *r)
{
    lua_State *L = hkl_host_state(a->cx->host);
    argv_b b = {0};
    r->rc = 0;
    r->msg[0] = 0;
    build_argv(L, a, name, ps, n, &b, r);
    if (r->rc) {
        free_argv(&b);
        return;
    }
    int top = lua_gettop(L);
    hk_buf err;
    hk_buf_init(&err);
    sv_capture_begin();
    r->rc = cli_run_query(a->cx, name, b.n, b.v);
    sv_capture_end(&r->out, &err);
    lua_settop(L, top);
    if (r->rc && r->rc != 3) sv_error_line(hk_buf_cstr(&err), name, r->msg, sizeof r->msg);
    hk_buf_free(&err);
    free_argv(&b);
}

int sv_status(const sv_result *r)
{
    if (r->rc == 0 || r->rc == 3) return 200;
    if (r->rc == 404 || strstr(r->msg, "no object with id") || strstr(r->msg, "no class")) return 404;
    return r->rc == 2 ? 400 : 422;
}
