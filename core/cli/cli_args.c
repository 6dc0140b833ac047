/* --KEY VALUE parsing, typed by a query's declared defaults. */
#include "cli/cli.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void key_of(const char *opt, char *key, size_t n)
{
    size_t i = 0;
    for (; opt[i] && i + 1 < n; i++) key[i] = opt[i] == '-' ? '_' : opt[i];
    key[i] = 0;
}

/* Pushes val typed like the default at def_idx, or prints why it does not fit. */
static int push_number(lua_State *L, const char *cmd, const char *opt, int def_idx, const char *val)
{
    int whole = lua_isinteger(L, def_idx);
    int nonneg = lua_tonumber(L, def_idx) >= 0;
    if (!lua_stringtonumber(L, val)) {
        fprintf(stderr, "hprofkit %s: %s needs a number, got '%s'\n", cmd, opt, val);
        return -1;
    }
    if (whole && !lua_isinteger(L, -1)) {
        /* 1.5, 1e300: a count is a whole number a query can use as one */
        double v = lua_tonumber(L, -1);
        lua_pop(L, 1);
        if (v != floor(v) || fabs(v) > 9007199254740992.0) {
            fprintf(stderr, "hprofkit %s: %s needs a whole number, got '%s'\n", cmd, opt, val);
            return -1;
        }
        lua_pushinteger(L, (lua_Integer)v);
    }
    if (!whole && !isfinite(lua_tonumber(L, -1))) {
        lua_pop(L, 1);
        fprintf(stderr, "hprofkit %s: %s needs a finite number, got '%s'\n", cmd, opt, val);
        return -1;
    }
    if (nonneg && lua_tonumber(L, -1) < 0) {
        lua_pop(L, 1);
        fprintf(stderr, "hprofkit %s: %s needs a number of 0 or more, got '%s'\n", cmd, opt, val);
        return -1;
    }
    return 0;
}

/* The options every query takes when it does not declare the name itself:
 * 0 not one of them, 1 a flag, 2 one that takes a value. */
static int common_kind(const char *key)
{
    if (!strcmp(key, "bytes")) return 1;
    return !strcmp(key, "sort") || !strcmp(key, "class") || !strcmp(key, "fail_on") ? 2 : 0;
}

static int set_common(cli_common *c, const char *key, const char *val)
{
    if (!strcmp(key, "bytes")) c->raw_bytes = 1;
    else if (!strcmp(key, "sort")) c->sort = val;
    else if (!strcmp(key, "class")) c->class_glob = val;
    else if (c->nfail_on < (int)(sizeof c->fail_on / sizeof c->fail_on[0])) c->fail_on[c->nfail_on++] = val;
    else return -1;
    return 0;
}

/* The parse of one command line: where the query's declarations sit on the Lua stack and how far
 * the walk over argv has come. */
typedef struct argp {
    lua_State *L;
    const char *cmd;
    int defaults_idx, aliases_idx, positional_idx, args;
    int argc, i, npos;
    char **argv;
    cli_common *common;
} argp;

/* args[key] is a list: appends val to it (created on first use). */
static void append_to_list(lua_State *L, int args, const char *key, const char *val)
{
    if (lua_getfield(L, args, key) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_newtable(L);
        lua_pushvalue(L, -1);
        lua_setfield(L, args, key);
    }
    lua_pushstring(L, val);
    lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
    lua_pop(L, 1);
}

/* The value of option `shown`: after its '=', else the next argument. */
static int take_value(argp *p, const char *eq, const char *shown, const char **val)
{
    if (eq) *val = eq + 1;
    else if (p->i + 1 < p->argc) *val = p->argv[++p->i];
    else {
        fprintf(stderr, "hprofkit %s: %s needs a value\n", p->cmd, shown);
        return -1;
    }
    return 0;
}

/* --help, --json, --format, -o: 1 taken, 0 not one of them, -1 bad. */
static int output_option(argp *p, const char *a)
{
    cli_common *c = p->common;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) c->help = 1;
    else if (!strcmp(a, "--json")) c->format = "json";
    else if (!strcmp(a, "--format") || !strcmp(a, "-f") || !strcmp(a, "-o") || !strcmp(a, "--output")) {
        int fmt = a[1] == 'f' || a[2] == 'f';
        if (p->i + 1 >= p->argc) {
            fprintf(stderr, "hprofkit %s: %s needs %s\n", p->cmd, a, fmt ? "table, json or csv" : "a file name");
            return -1;
        }
        if (fmt) c->format = p->argv[++p->i];
        else c->outfile = p->argv[++p->i];
    } else return 0;
    return 1;
}

/* The next declared positional name takes a ("files...": the last one takes the rest, as a list). */
static int positional(argp *p, const char *a)
{
    lua_State *L = p->L;
    const char *pname = NULL;
    if (p->positional_idx) {
        lua_rawgeti(L, p->positional_idx, p->npos + 1);
        pname = lua_tostring(L, -1);
        lua_pop(L, 1);
    }
    if (!pname) {
        fprintf(stderr, "hprofkit %s: unexpected argument '%s' (see hprofkit %s --help)\n", p->cmd, a, p->cmd);
        return -1;
    }
    size_t plen = strlen(pname);
    if (plen > 3 && !strcmp(pname + plen - 3, "...")) {
        lua_pushlstring(L, pname, plen - 3);
        append_to_list(L, p->args, lua_tostring(L, -1), a);
        lua_pop(L, 1);
        return 0;
    }
    lua_pushstring(L, a);
    lua_setfield(L, p->args, pname);
    p->npos++;
    return 0;
}

/* The Lua type of key's declared default (a --no-KEY of a boolean is KEY, *negate set); every
 * option is a string for `hprofkit run`, which declares none. */
static int declared_type(argp *p, char *key, int *negate)
{
    lua_State *L = p->L;
    if (!p->defaults_idx) return LUA_TSTRING;
    int t = lua_getfield(L, p->defaults_idx, key);
    lua_pop(L, 1);
    if (t == LUA_TNIL && !strncmp(key, "no_", 3)) {
        t = lua_getfield(L, p->defaults_idx, key + 3);
        lua_pop(L, 1);
        if (t != LUA_TBOOLEAN) return LUA_TNIL;
        *negate = 1;
        memmove(key, key + 3, strlen(key + 3) + 1);
    }
    return t;
}

/* Stores args[key] from the option's value, typed by its declaration t. */
static int set_typed(argp *p, int t, const char *key, const char *eq, const char *shown, int negate)
{
    lua_State *L = p->L;
    const char *val;
    if (t == LUA_TBOOLEAN) {
        if (eq) lua_pushboolean(L, strcmp(eq + 1, "false") && strcmp(eq + 1, "no") && strcmp(eq + 1, "0"));
        else lua_pushboolean(L, !negate);
    } else if (take_value(p, eq, shown, &val) < 0) {
        return -1;
    } else if (t == LUA_TTABLE) {
        append_to_list(L, p->args, key, val); /* a list: every --KEY VALUE appends */
        return 0;
    } else if (t == LUA_TNUMBER) {
        lua_getfield(L, p->defaults_idx, key);
        int rc = push_number(L, p->cmd, shown, lua_gettop(L), val);
        lua_remove(L, rc == 0 ? -2 : -1);
        if (rc < 0) return -1;
    } else {
        lua_pushstring(L, val);
    }
    lua_setfield(L, p->args, key);
    return 0;
}

/* --KEY VALUE, --KEY=VALUE, -K VALUE (an alias), --flag, --no-flag. */
static int option(argp *p, const char *a)
{
    char key[128], optbuf[128], shown[160];
    const char *opt = a[1] == '-' ? a + 2 : a + 1;
    const char *eq = strchr(opt, '=');
    if (eq) {
        snprintf(optbuf, sizeof optbuf, "%.*s", (int)(eq - opt), opt);
        opt = optbuf;
    }
    snprintf(shown, sizeof shown, "%.*s", eq ? (int)(eq - a) : (int)strlen(a), a);
    key_of(opt, key, sizeof key);
    if (p->aliases_idx && a[1] != '-') {
        lua_getfield(p->L, p->aliases_idx, key);
        if (lua_isstring(p->L, -1)) snprintf(key, sizeof key, "%s", lua_tostring(p->L, -1));
        lua_pop(p->L, 1);
    }
    int negate = 0;
    int t = declared_type(p, key, &negate);
    int common_takes = t == LUA_TNIL && a[1] == '-' ? common_kind(key) : 0;
    if (common_takes) {
        const char *val = NULL;
        if (common_takes == 2 && take_value(p, eq, shown, &val) < 0) return -1;
        if (set_common(p->common, key, val) < 0) {
            fprintf(stderr, "hprofkit %s: too many %s options\n", p->cmd, shown);
            return -1;
        }
        return 0;
    }
    if (t == LUA_TNIL) {
        fprintf(stderr, "hprofkit %s: unknown option '%s' (see hprofkit %s --help)\n", p->cmd, shown, p->cmd);
        return -1;
    }
    return set_typed(p, t, key, eq, shown, negate);
}

int cli_parse_args(lua_State *L, const char *cmd, int defaults_idx, int aliases_idx, int positional_idx, int argc,
                   char **argv, cli_common *common)
{
    argp p = {L, cmd, defaults_idx, aliases_idx, positional_idx, lua_gettop(L), argc, 0, 0, argv, common};
    int only_positional = 0;
    for (; p.i < argc; p.i++) {
        const char *a = argv[p.i];
        if (!only_positional && !strcmp(a, "--")) {
            only_positional = 1; /* then -1 is an id */
            continue;
        }
        int is_positional = only_positional || a[0] != '-' || !strcmp(a, "-") || (a[1] >= '0' && a[1] <= '9');
        int rc = is_positional ? positional(&p, a) : output_option(&p, a);
        if (rc == 0 && !is_positional) rc = option(&p, a);
        if (rc < 0) return -1;
    }
    return 0;
}
