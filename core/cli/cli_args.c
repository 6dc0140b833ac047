/* --KEY VALUE parsing, typed by a query's declared defaults. */
#include "cli/cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void key_of(const char *opt, char *key, size_t n)
{
    size_t i = 0;
    for (; opt[i] && i + 1 < n; i++) key[i] = opt[i] == '-' ? '_' : opt[i];
    key[i] = 0;
}

int cli_parse_args(lua_State *L, const char *cmd, int defaults_idx, int aliases_idx, int positional_idx,
                   int argc, char **argv, const char **format, const char **outfile, int *help)
{
    int args = lua_gettop(L);
    int npos = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) { *help = 1; continue; }
        if (!strcmp(a, "--json")) { *format = "json"; continue; }
        if ((!strcmp(a, "--format") || !strcmp(a, "-f")) && i + 1 < argc) { *format = argv[++i]; continue; }
        int own_output = 0;
        if (defaults_idx) {
            own_output = lua_getfield(L, defaults_idx, "output") != LUA_TNIL;
            lua_pop(L, 1);
        }
        if (!own_output && (!strcmp(a, "-o") || !strcmp(a, "--output"))) {
            if (i + 1 >= argc) { fprintf(stderr, "hprofkit %s: %s needs a file name\n", cmd, a); return -1; }
            *outfile = argv[++i];
            continue;
        }
        if (a[0] != '-' || !strcmp(a, "-") || (a[1] >= '0' && a[1] <= '9')) {
            /* positional */
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
            lua_pushstring(L, a);
            lua_setfield(L, args, pname);
            npos++;
            continue;
        }
        char key[128];
        const char *opt = a[1] == '-' ? a + 2 : a + 1;
        const char *eq = strchr(opt, '=');
        char optbuf[128];
        if (eq) {
            snprintf(optbuf, sizeof optbuf, "%.*s", (int)(eq - opt), opt);
            opt = optbuf;
        }
        key_of(opt, key, sizeof key);
        if (!strcmp(key, "o") && own_output) snprintf(key, sizeof key, "output");
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
                if (t == LUA_TBOOLEAN) { negate = 1; memmove(key, key + 3, strlen(key + 3) + 1); }
                else t = LUA_TNIL;
            }
            if (t == LUA_TNIL) {
                fprintf(stderr, "hprofkit %s: unknown option '%s' (see hprofkit %s --help)\n", cmd, a, cmd);
                return -1;
            }
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
        else { fprintf(stderr, "hprofkit %s: option '%s' needs a value\n", cmd, a); return -1; }
        if (t == LUA_TNUMBER) {
            if (!lua_stringtonumber(L, val)) {
                fprintf(stderr, "hprofkit %s: option '%s' needs a number, got '%s'\n", cmd, a, val);
                return -1;
            }
        } else {
            lua_pushstring(L, val);
        }
        lua_setfield(L, args, key);
    }
    return 0;
}
