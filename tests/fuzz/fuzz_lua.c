/* libFuzzer target: the Lua host with every built-in script loaded, driven by a Lua script
 * (HK_FUZZ_DRIVER, tests/fuzz/drive_*.lua) whose fuzz_one(bytes) turns each input into calls:
 * a sequence of Lua API calls on an open dump (drive_api.lua), facts JSON into the fleet ingest
 * (drive_facts.lua).  A Lua error is an answer; only a crash, a sanitizer report or a Lua stack
 * left unbalanced is a finding.  Built by tests/fuzz/targets.sh from every source of hprofkit
 * but main.c; scripts from HPROFKIT_SCRIPTS (the source tree's scripts/). */
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "lua/lua_host.h"

static cli_ctx g_cx;
static lua_State *g_L;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *driver = getenv("HK_FUZZ_DRIVER");
    if (!driver || !getenv("HPROFKIT_SCRIPTS")) {
        fputs("fuzz_lua: set HK_FUZZ_DRIVER=tests/fuzz/drive_NAME.lua and HPROFKIT_SCRIPTS=SRC/scripts\n", stderr);
        exit(2);
    }
    if (cli_setup(&g_cx, "fuzz_lua") != 0) exit(2);
    g_L = hkl_host_state(g_cx.host);
    if (luaL_dofile(g_L, driver) != LUA_OK) {
        fprintf(stderr, "fuzz_lua: %s\n", lua_tostring(g_L, -1));
        exit(2);
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    static unsigned runs;
    int top = lua_gettop(g_L);
    lua_getglobal(g_L, "fuzz_one");
    lua_pushlstring(g_L, (const char *)data, size);
    if (lua_pcall(g_L, 1, 0, 0) != LUA_OK) lua_pop(g_L, 1); /* an error is an answer */
    if (lua_gettop(g_L) != top) __builtin_trap();
    if (++runs % 64 == 0) lua_gc(g_L, LUA_GCCOLLECT, 0); /* dumps closed by __gc, as a script's are */
    return 0;
}
