/* Running a query from the command line: its args, its dump, its gates, its rows sorted or
 * filtered, then the renderer. */
#include "cli/cli.h"
#include "util/hk_mem.h"
#include "open/open.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* The gate names a query offers, sorted and joined with ", " (pushed). */
static void push_gate_names(lua_State *L, int gates)
{
    cli_push_sorted_keys(L, gates);
    int names = lua_gettop(L);
    lua_getglobal(L, "table");
    lua_getfield(L, -1, "concat");
    lua_pushvalue(L, names);
    lua_pushstring(L, ", ");
    lua_call(L, 2, 1);
    lua_replace(L, names);
    lua_pop(L, 1);
}

/* --fail-on a,b:P ... -> pushes an array of {name, param}, or prints why not and returns -1. */
static int parse_gates(lua_State *L, const char *cmd, int def, const cli_common *c)
{
    lua_newtable(L);
    int wanted = lua_gettop(L);
    if (!c->nfail_on) return 0;
    if (lua_getfield(L, def, "gates") != LUA_TTABLE || (lua_pushnil(L), !lua_next(L, -2))) {
        fprintf(stderr, "hprofkit %s: --fail-on: %s offers no gates\n", cmd, cmd);
        return -1;
    }
    lua_pop(L, 2);
    int gates = lua_gettop(L);
    for (int i = 0; i < c->nfail_on; i++) {
        char *list = hk_xstrdup(c->fail_on[i]), *save = NULL;
        for (char *g = strtok_r(list, ",", &save); g; g = strtok_r(NULL, ",", &save)) {
            char *param = strchr(g, ':');
            if (param) *param++ = 0;
            if (lua_getfield(L, gates, g) != LUA_TTABLE) {
                push_gate_names(L, gates);
                fprintf(stderr, "hprofkit %s: --fail-on: unknown gate '%s' (%s offers: %s)\n", cmd, g, cmd,
                        lua_tostring(L, -1));
                free(list);
                return -1;
            }
            lua_pop(L, 1);
            lua_createtable(L, 0, 2);
            lua_pushstring(L, g);
            lua_setfield(L, -2, "name");
            if (param) {
                lua_pushstring(L, param);
                lua_setfield(L, -2, "param");
            }
            lua_rawseti(L, wanted, (lua_Integer)lua_rawlen(L, wanted) + 1);
        }
        free(list);
    }
    lua_settop(L, wanted);
    return 0;
}

/* Calls each wanted gate's check(result, param); returns how many tripped and pushes the
 * array of their names, or returns minus the exit code after reporting a check's error. */
static int run_gates(lua_State *L, const char *cmd, int def, int wanted, int result, int debug)
{
    lua_newtable(L);
    int tripped = lua_gettop(L);
    lua_getfield(L, def, "gates");
    int gates = lua_gettop(L);
    lua_Integer n = (lua_Integer)lua_rawlen(L, wanted);
    for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(L, wanted, i);
        lua_getfield(L, -1, "name");
        const char *name = lua_tostring(L, -1);
        lua_getfield(L, gates, name);
        lua_getfield(L, -1, "check");
        lua_pushvalue(L, result);
        lua_getfield(L, -5, "param");
        if (hkl_pcall(L, 2, 2) != LUA_OK) {
            if (hkl_error_kind(L, -1) == HKL_ERR_SCRIPT) fprintf(stderr, "hprofkit %s: gate %s failed:\n", cmd, name);
            return -cli_report_error(L, cmd, debug);
        }
        if (lua_toboolean(L, -2)) {
            const char *msg = lua_isstring(L, -1) ? lua_tostring(L, -1) : "(no message)";
            fprintf(stderr, "hprofkit %s: gate %s tripped: %s\n", cmd, name, msg);
            lua_pushstring(L, name);
            lua_rawseti(L, tripped, (lua_Integer)lua_rawlen(L, tripped) + 1);
        }
        lua_pop(L, 5);
    }
    lua_pop(L, 1);
    return (int)lua_rawlen(L, tripped);
}

/* meta.finish(result): what a query writes only once the gates ran, so that it can show which
 * tripped (triage's report); -1 with the error on the stack when it fails. */
static int run_finish(lua_State *L, int result, int meta)
{
    if (lua_getfield(L, meta, "finish") != LUA_TFUNCTION) {
        lua_pop(L, 1);
        return 0;
    }
    lua_pushvalue(L, result);
    return hkl_pcall(L, 1, 0) == LUA_OK ? 0 : -1;
}

/* A record-shaped result: a table whose keys are strings (not an array of rows). */
static int is_record(lua_State *L, int result)
{
    if (!lua_istable(L, result)) return 0;
    lua_pushnil(L);
    if (!lua_next(L, result)) return 0;
    int rec = lua_type(L, -2) == LUA_TSTRING;
    lua_pop(L, 2);
    return rec;
}

/* Does the listing have column col (declared, or a key of some row)? */
static int has_column(lua_State *L, int rows, int meta, const char *col)
{
    int found = 0;
    if (lua_getfield(L, meta, "columns") == LUA_TTABLE) {
        lua_Integer n = (lua_Integer)lua_rawlen(L, -1);
        for (lua_Integer i = 1; i <= n && !found; i++) {
            lua_rawgeti(L, -1, i);
            found = lua_isstring(L, -1) && !strcmp(lua_tostring(L, -1), col);
            lua_pop(L, 1);
        }
    }
    lua_pop(L, 1);
    lua_Integer n = (lua_Integer)lua_rawlen(L, rows);
    for (lua_Integer i = 1; i <= n && !found; i++) {
        if (lua_rawgeti(L, rows, i) == LUA_TTABLE) found = lua_getfield(L, -1, col) != LUA_TNIL, lua_pop(L, 1);
        lua_pop(L, 1);
    }
    return found;
}

/* --sort order: numbers largest first, text A to Z, absent values last. */
static int sort_rank(lua_State *L, int idx)
{
    return lua_type(L, idx) == LUA_TNUMBER ? 0 : lua_type(L, idx) == LUA_TSTRING ? 1 : 2;
}

static int sort_less(lua_State *L)
{
    const char *col = lua_tostring(L, lua_upvalueindex(1));
    lua_getfield(L, 1, col);
    lua_getfield(L, 2, col);
    int ra = sort_rank(L, -2), rb = sort_rank(L, -1);
    int less = ra != rb  ? ra < rb
               : ra == 0 ? lua_compare(L, -1, -2, LUA_OPLT)
               : ra == 1 ? strcmp(lua_tostring(L, -2), lua_tostring(L, -1)) < 0
                         : 0;
    lua_pushboolean(L, less);
    return 1;
}

/* --sort on a column the query ranks by itself (it declares `sorts = {COLUMN, ...}`): the
 * query gets args.sort and keeps -n (top keeps only the n best instead of a row per object);
 * the CLI neither sorts again nor lifts -n for it. */
static void sort_by_query(lua_State *L, int def, int args, cli_common *c)
{
    if (!c->sort) return;
    if (lua_getfield(L, def, "sorts") == LUA_TTABLE) {
        for (lua_Integer i = 1; !c->sort_ranked && lua_rawgeti(L, -1, i) == LUA_TSTRING; i++) {
            c->sort_ranked = !strcmp(lua_tostring(L, -1), c->sort);
            lua_pop(L, 1);
        }
        if (!c->sort_ranked) lua_pop(L, 1); /* the value that ended the list */
    }
    lua_pop(L, 1);
    if (!c->sort_ranked) return;
    lua_pushstring(L, c->sort);
    lua_setfield(L, args, "sort");
}

static int listing_options(lua_State *L, const char *cmd, int rows, int meta, const cli_common *c)
{
    if (!c->sort && !c->class_glob) return 0;
    const char *opt = c->sort ? "--sort" : "--class";
    if (is_record(L, rows)) {
        fprintf(stderr, "hprofkit %s: %s applies to listings; %s gives one record\n", cmd, opt, cmd);
        return -1;
    }
    if (c->class_glob) {
        if (!has_column(L, rows, meta, "class")) {
            fprintf(stderr, "hprofkit %s: --class: %s's rows have no class column\n", cmd, cmd);
            return -1;
        }
        lua_newtable(L);
        lua_Integer k = 0;
        for (lua_Integer i = 1; lua_rawgeti(L, rows, i) == LUA_TTABLE; i++) {
            lua_getfield(L, -1, "class");
            const char *cls = lua_tostring(L, -1);
            int keep = cls && fnmatch(c->class_glob, cls, 0) == 0;
            lua_pop(L, 1);
            if (keep) lua_rawseti(L, -2, ++k);
            else lua_pop(L, 1);
        }
        lua_pop(L, 1);
        lua_replace(L, rows);
    }
    if (c->sort && !c->sort_ranked) {
        if (!has_column(L, rows, meta, c->sort)) {
            if (lua_rawlen(L, rows) == 0) return 0; /* nothing to sort */
            fprintf(stderr, "hprofkit %s: --sort: no column '%s' in %s's rows\n", cmd, c->sort, cmd);
            return -1;
        }
        lua_getglobal(L, "table");
        lua_getfield(L, -1, "sort");
        lua_pushvalue(L, rows);
        lua_pushstring(L, c->sort);
        lua_pushcclosure(L, sort_less, 1);
        if (hkl_pcall(L, 2, 0) != LUA_OK) return cli_report_error(L, cmd, 0), lua_pop(L, 1), -1;
        lua_pop(L, 1);
    }
    return 0;
}

/* A listing's -n with --class or --sort: the query declares `limit = "n"` (the argument that
 * caps its rows), runs with that argument 0 (every row) and the CLI keeps the first n rows
 * once they are filtered and sorted (README, "Listings"); `limited(row)` says which rows count
 * (dominators: the dominated ones).  Returns the cap (>= 0) taken from args, or -1. */
static lua_Integer take_limit(lua_State *L, int def, int args, const cli_common *c)
{
    lua_Integer n = -1;
    if ((!c->sort || c->sort_ranked) && !c->class_glob) return n;
    if (lua_getfield(L, def, "limit") == LUA_TSTRING) {
        const char *arg = lua_tostring(L, -1);
        if (lua_getfield(L, args, arg) == LUA_TNUMBER && lua_isinteger(L, -1)) {
            n = lua_tointeger(L, -1);
            lua_pushinteger(L, 0);
            lua_setfield(L, args, arg);
        }
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    return n;
}

/* Keeps the first `limit` rows that count (all do unless the query says `limited`); 0 keeps
 * every row.  -1 when `limited` raised (reported). */
static int cut_rows(lua_State *L, const char *cmd, int def, int rows, lua_Integer limit)
{
    if (limit <= 0 || is_record(L, rows)) return 0;
    int pick = lua_getfield(L, def, "limited") == LUA_TFUNCTION ? lua_gettop(L) : 0;
    lua_newtable(L);
    lua_Integer k = 0, counted = 0;
    for (lua_Integer i = 1; lua_rawgeti(L, rows, i) != LUA_TNIL; i++) {
        int counts = 1;
        if (pick) {
            lua_pushvalue(L, pick);
            lua_pushvalue(L, -2);
            if (hkl_pcall(L, 1, 1) != LUA_OK) return cli_report_error(L, cmd, 0), -1;
            counts = lua_toboolean(L, -1);
            lua_pop(L, 1);
        }
        if (!counts || counted < limit) {
            counted += counts;
            lua_rawseti(L, -2, ++k);
        } else lua_pop(L, 1);
    }
    lua_pop(L, 1);
    lua_replace(L, rows);
    lua_pop(L, 1); /* limited */
    return 0;
}

/* The terminal's width when the output goes to one, else 0 (never cut). */
static int terminal_width(const char *outfile)
{
    if ((outfile && strcmp(outfile, "-")) || !isatty(1)) return 0;
    struct winsize ws;
    if (ioctl(1, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
    const char *cols = getenv("COLUMNS");
    return cols && atoi(cols) > 0 ? atoi(cols) : 80;
}

int cli_push_dump(const cli_ctx *cx, const char *name, const char *path)
{
    lua_State *L = hkl_host_state(cx->host);
    char err[1024], who[300];
    snprintf(who, sizeof who, "hprofkit %s", name);
    const char *map = cli_map_path(&cx->g, who);
    /* a map named "" (--no-map) is none, and no map beside the dump either */
    const hk_open_opts o = {
        .map = map && *map ? map : NULL, .no_map_beside = map != NULL, .who = who, .label = "dump", .progress = 1};
    hk_open_fail fail;
    hk_dump *d = hk_open(path, &o, &fail, err, sizeof err);
    if (!d) {
        fprintf(stderr, "%s: %s\n", who, err);
        return fail == HK_OPEN_USER_ERROR ? 2 : 1;
    }
    hkl_push_dump(L, d, 0);
    return 0;
}

/* Pushes the dump args.dump names (or the one already open), or returns an exit code. */
static int push_dump(lua_State *L, const char *name, int args, const cli_ctx *cx)
{
    if (cx->dump_ref > 0) {
        lua_rawgeti(L, LUA_REGISTRYINDEX, cx->dump_ref);
        return 0;
    }
    lua_getfield(L, args, "dump");
    const char *path = lua_tostring(L, -1);
    lua_pop(L, 1); /* args holds the string */
    return cli_push_dump(cx, name, path);
}

/* meta: what the renderer may use, extended by the query's second return value */
static void push_meta(lua_State *L, const char *name, int def, int args, int extra, const cli_common *c)
{
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
        while (lua_next(L, extra)) {
            lua_pushvalue(L, -2);
            lua_insert(L, -2);
            lua_rawset(L, meta);
        }
    }
    lua_pushboolean(L, c->raw_bytes);
    lua_setfield(L, meta, "raw_bytes");
    lua_pushinteger(L, terminal_width(c->outfile));
    lua_setfield(L, meta, "width");
}

/* meta.columns gets col last (a copy: the query's declaration stays as it is) */
static void add_column(lua_State *L, int meta, const char *col)
{
    if (lua_getfield(L, meta, "columns") == LUA_TTABLE) {
        lua_Integer n = (lua_Integer)lua_rawlen(L, -1);
        lua_createtable(L, (int)n + 1, 0);
        for (lua_Integer i = 1; i <= n; i++) {
            lua_rawgeti(L, -2, i);
            lua_rawseti(L, -2, i);
        }
        lua_pushstring(L, col);
        lua_rawseti(L, -2, n + 1);
        lua_setfield(L, meta, "columns");
    }
    lua_pop(L, 1);
}

/* Pushes the query's declared defaults, aliases and positional names (a query on a dump takes
 * "dump" when it declares none); the indices are 0 for what it lacks. */
static void push_declarations(lua_State *L, int def, int needs_dump, int *defaults, int *aliases, int *positional)
{
    *aliases = *positional = 0;
    if (lua_getfield(L, def, "args") != LUA_TTABLE) lua_pop(L, 1), lua_newtable(L);
    *defaults = lua_gettop(L);
    if (lua_getfield(L, def, "aliases") == LUA_TTABLE) *aliases = lua_gettop(L);
    if (lua_getfield(L, def, "positional") == LUA_TTABLE) *positional = lua_gettop(L);
    else if (needs_dump) {
        lua_pop(L, 1);
        lua_createtable(L, 1, 0);
        lua_pushstring(L, "dump");
        lua_rawseti(L, -2, 1);
        *positional = lua_gettop(L);
    }
}

/* Positional arguments are required unless the query gives a default. */
static int check_positionals(lua_State *L, const char *name, int positional, int args)
{
    for (lua_Integer i = 1; lua_rawgeti(L, positional, i) == LUA_TSTRING; i++) {
        const char *p = lua_tostring(L, -1);
        size_t plen = strlen(p);
        int rest = plen > 3 && !strcmp(p + plen - 3, "...");
        lua_pushlstring(L, p, rest ? plen - 3 : plen);
        lua_replace(L, -2);
        p = lua_tostring(L, -1);
        if (lua_getfield(L, args, p) == LUA_TNIL) {
            fprintf(stderr, "hprofkit %s: missing %s (usage: see hprofkit %s --help)\n", name, p, name);
            return -1;
        }
        lua_pop(L, 2);
    }
    lua_pop(L, 1);
    return 0;
}

/* After the run: the listing options, the gates, the rendering; returns the exit status. */
static int finish_query(cli_ctx *cx, const char *name, int def, int args, int wanted, cli_common *c, lua_Integer limit)
{
    lua_State *L = hkl_host_state(cx->host);
    int rows = lua_gettop(L) - 1, extra = rows + 1;
    if (lua_isnil(L, rows)) {
        lua_newtable(L);
        lua_replace(L, rows);
    }
    push_meta(L, name, def, args, extra, c);
    int meta = lua_gettop(L);
    if (listing_options(L, name, rows, meta, c) < 0) return 2;
    if (cut_rows(L, name, def, rows, limit) < 0) return 1;
    int ntripped = 0;
    if (lua_rawlen(L, wanted)) {
        ntripped = run_gates(L, name, def, wanted, rows, cx->g.debug);
        if (ntripped < 0) return -ntripped;
        if (is_record(L, rows)) {
            lua_pushvalue(L, -1);
            lua_setfield(L, rows, "gates_tripped");
            add_column(L, meta, "gates_tripped");
        }
        lua_pop(L, 1);
    }
    if (run_finish(L, rows, meta) < 0) return cli_report_error(L, name, cx->g.debug);
    int rc = cli_render(L, name, c->format, rows, meta, c->outfile, cx->g.debug);
    if (rc == 0) {
        lua_getfield(L, meta, "exit_code");
        if (lua_isinteger(L, -1)) rc = (int)lua_tointeger(L, -1);
        lua_pop(L, 1);
        if (ntripped > 0) rc = 3;
    }
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
    hkl_query_args(L, def, 0);
    int args = lua_gettop(L);
    int defaults, aliases, positional;
    push_declarations(L, def, needs_dump, &defaults, &aliases, &positional);
    lua_pushvalue(L, args);
    cli_common c = {.format = "table"};
    if (cli_parse_args(L, name, defaults, aliases, positional, argc, argv, &c) < 0) return 2;
    lua_pop(L, 1);
    if (c.help) {
        cli_print_query_help(L, name, def);
        return 0;
    }
    if (positional && check_positionals(L, name, positional, args) < 0) return 2;
    if (cli_check_format(L, name, c.format) < 0) return 2; /* before the work */
    if (parse_gates(L, name, def, &c) < 0) return 2;
    int wanted = lua_gettop(L);
    sort_by_query(L, def, args, &c);
    lua_Integer limit = take_limit(L, def, args, &c);
    lua_getfield(L, def, "run");
    if (!needs_dump) lua_pushnil(L);
    else {
        int rc = push_dump(L, name, args, cx);
        if (rc) return rc;
    }
    lua_pushvalue(L, args);
    lua_pushstring(L, name); /* hk.run refuses to run it again from inside (lua_query.c) */
    lua_setfield(L, LUA_REGISTRYINDEX, "hk.cli_query");
    if (hkl_pcall(L, 2, 2) != LUA_OK) return cli_report_error(L, name, cx->g.debug);
    return finish_query(cx, name, def, args, wanted, &c, limit);
}
