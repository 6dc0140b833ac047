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

int cli_parse_args(lua_State *L, const char *cmd, int defaults_idx, int aliases_idx, int positional_idx, int argc,
                   char **argv, cli_common *common)
{
    int args = lua_gettop(L);
    int npos = 0, only_positional = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!only_positional && !strcmp(a, "--")) {
            only_positional = 1;
            continue;
        } /* then -1 is an id */
        int is_positional = only_positional || a[0] != '-' || !strcmp(a, "-") || (a[1] >= '0' && a[1] <= '9');
        if (!is_positional && (!strcmp(a, "--help") || !strcmp(a, "-h"))) {
            common->help = 1;
            continue;
        }
        if (!is_positional && !strcmp(a, "--json")) {
            common->format = "json";
            continue;
        }
        if (!is_positional && (!strcmp(a, "--format") || !strcmp(a, "-f"))) {
            if (i + 1 >= argc) {
                fprintf(stderr, "hprofkit %s: %s needs table, json or csv\n", cmd, a);
                return -1;
            }
            common->format = argv[++i];
            continue;
        }
        if (!is_positional && (!strcmp(a, "-o") || !strcmp(a, "--output"))) {
            if (i + 1 >= argc) {
                fprintf(stderr, "hprofkit %s: %s needs a file name\n", cmd, a);
                return -1;
            }
            common->outfile = argv[++i];
            continue;
        }
        if (is_positional) {
            const char *pname = NULL;
            if (positional_idx) {
                lua_rawgeti(L, positional_idx, npos + 1);
                pname = lua_tostring(L, -1);
                lua_pop(L, 1);
            }
            if (!pname) {
                fprintf(stderr, "hprofkit %s: unexpected argument '%s' (see hprofkit %s --help)\n", cmd, a, cmd);
                return -1;
            }
            size_t plen = strlen(pname);
            if (plen > 3 && !strcmp(pname + plen - 3, "...")) {
                /* "files...": the last positional takes the rest, as a list */
                lua_pushlstring(L, pname, plen - 3);
                const char *list = lua_tostring(L, -1);
                if (lua_getfield(L, args, list) != LUA_TTABLE) {
                    lua_pop(L, 1);
                    lua_newtable(L);
                    lua_pushvalue(L, -1);
                    lua_setfield(L, args, list);
                }
                lua_pushstring(L, a);
                lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
                lua_pop(L, 2);
                continue;
            }
            lua_pushstring(L, a);
            lua_setfield(L, args, pname);
            npos++;
            continue;
        }
        char key[128];
        const char *opt = a[1] == '-' ? a + 2 : a + 1;
        const char *eq = strchr(opt, '=');
        char optbuf[128], shown[160];
        if (eq) {
            snprintf(optbuf, sizeof optbuf, "%.*s", (int)(eq - opt), opt);
            opt = optbuf;
        }
        snprintf(shown, sizeof shown, "%.*s", eq ? (int)(eq - a) : (int)strlen(a), a);
        key_of(opt, key, sizeof key);
        if (aliases_idx && a[1] != '-') {
            lua_getfield(L, aliases_idx, key);
            if (lua_isstring(L, -1)) snprintf(key, sizeof key, "%s", lua_tostring(L, -1));
            lua_pop(L, 1);
        }
        int negate = 0;
        int t = LUA_TNIL;
        if (defaults_idx) {
            t = lua_getfield(L, defaults_idx, key);
            lua_pop(L, 1);
            if (t == LUA_TNIL && !strncmp(key, "no_", 3)) {
                t = lua_getfield(L, defaults_idx, key + 3);
                lua_pop(L, 1);
                if (t == LUA_TBOOLEAN) {
                    negate = 1;
                    memmove(key, key + 3, strlen(key + 3) + 1);
                } else t = LUA_TNIL;
            }
        } else {
            t = LUA_TSTRING; /* hprofkit run: every option is a string */
        }
        int common_takes = t == LUA_TNIL && a[1] == '-' ? common_kind(key) : 0;
        if (common_takes) {
            const char *val = NULL;
            if (common_takes == 2) {
                if (eq) val = eq + 1;
                else if (i + 1 < argc) val = argv[++i];
                else {
                    fprintf(stderr, "hprofkit %s: %s needs a value\n", cmd, shown);
                    return -1;
                }
            }
            if (set_common(common, key, val) < 0) {
                fprintf(stderr, "hprofkit %s: too many %s options\n", cmd, shown);
                return -1;
            }
            continue;
        }
        if (t == LUA_TNIL) {
            fprintf(stderr, "hprofkit %s: unknown option '%s' (see hprofkit %s --help)\n", cmd, shown, cmd);
            return -1;
        }
        if (t == LUA_TBOOLEAN) {
            if (eq) lua_pushboolean(L, strcmp(eq + 1, "false") && strcmp(eq + 1, "no") && strcmp(eq + 1, "0"));
            else lua_pushboolean(L, !negate);
            lua_setfield(L, args, key);
            continue;
        }
        const char *val;
        if (eq) val = eq + 1;
        else if (i + 1 < argc) val = argv[++i];
        else {
            fprintf(stderr, "hprofkit %s: %s needs a value\n", cmd, shown);
            return -1;
        }
        if (t == LUA_TNUMBER) {
            lua_getfield(L, defaults_idx, key);
            int rc = push_number(L, cmd, shown, lua_gettop(L), val);
            lua_remove(L, rc == 0 ? -2 : -1);
            if (rc < 0) return -1;
        } else if (t == LUA_TTABLE) {
            /* a list: every --KEY VALUE appends */
            if (lua_getfield(L, args, key) != LUA_TTABLE) {
                lua_pop(L, 1);
                lua_newtable(L);
                lua_pushvalue(L, -1);
                lua_setfield(L, args, key);
            }
            lua_pushstring(L, val);
            lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
            lua_pop(L, 1);
            continue;
        } else {
            lua_pushstring(L, val);
        }
        lua_setfield(L, args, key);
    }
    return 0;
}
