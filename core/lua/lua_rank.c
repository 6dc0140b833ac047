/* cls:ranked_instances{n, offset, heap, by}: a class's instances largest first, chosen in C
 * (hk_graph_rank_instances), so the instances query pages a class of millions in milliseconds. */
#include "graph/graph.h"
#include "lua/lua_host.h"
#include "util/hk_mem.h"
#include "lua/lua_open.h"

#include <stdlib.h>
#include <string.h>

static lua_Integer opt_int(lua_State *L, const char *k, lua_Integer def)
{
    lua_getfield(L, 2, k);
    lua_Integer v = luaL_optinteger(L, -1, def);
    lua_pop(L, 1);
    if (v < 0 || v > UINT32_MAX) luaL_error(L, "ranked_instances: %s must be from 0 to %u", k, UINT32_MAX);
    return v;
}

/* The heap's index by name: -1 for "" (every heap), -2 for a name no heap has. */
static int heap_index(hk_dump *d, const char *name)
{
    if (!*name) return -1;
    for (int h = 0; h < 256; h++)
        if (!strcmp(hk_heap_name(d, h), name)) return h;
    return -2;
}

/* -> array of Objects, total */
static int cls_ranked_instances(lua_State *L)
{
    hkl_ref *r = hkl_check_class(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    uint32_t n = (uint32_t)opt_int(L, "n", 100), offset = (uint32_t)opt_int(L, "offset", 0);
    lua_getfield(L, 2, "heap");
    int heap = heap_index(r->d, luaL_optstring(L, -1, ""));
    lua_getfield(L, 2, "by");
    const char *by = luaL_optstring(L, -1, "retained");
    if (strcmp(by, "retained") && strcmp(by, "shallow")) luaL_error(L, "ranked_instances: by is retained or shallow");
    lua_pop(L, 2);
    uint32_t *out = hk_xmalloc(((size_t)n + 1) * sizeof *out), got;
    uint64_t total;
    char err[256];
    int rc = hk_graph_rank_instances(r->d, r->index, heap, !strcmp(by, "shallow"), offset, n, out, &got, &total, err,
                                     sizeof err);
    if (rc < 0) {
        free(out);
        return hkl_fail(L, "%s", err);
    }
    lua_createtable(L, (int)got, 0);
    for (uint32_t i = 0; i < got; i++) {
        hkl_push_object(L, 1, out[i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    free(out);
    lua_pushinteger(L, (lua_Integer)total);
    return 2;
}

static const luaL_Reg class_methods[] = {
    {"ranked_instances", cls_ranked_instances},
    {NULL, NULL},
};

void hkl_open_rank(lua_State *L)
{
    hkl_add_methods(L, HKL_CLASS, class_methods);
}
