/* obj:retained_count() and obj:holding_roots([max]): the Lua face of graph_holders.h.
 *
 * obj:holding_roots returns {roots = {{index, type, object, thread}...}, total = n,
 * complete = bool}: the GC root records (index 1-based, as in dump:roots()) whose objects
 * strongly reach obj, at most max of them (default 100) in the order the walk back from obj
 * meets them (nearest first); total counts them all, complete is false when the walk stopped
 * after a million objects. */
#include "graph/graph_holders.h"
#include "lua/lua_host.h"
#include "hprof/hprof_view.h"
#include "util/hk_mem.h"
#include "lua/lua_open.h"

#include <stdlib.h>

static int obj_retained_count(lua_State *L)
{
    hkl_ref *r = hkl_check_object(L, 1);
    char err[256];
    if (hk_graph_ensure(r->d, HK_GRAPH_DOM, err, sizeof err)) hkl_fail(L, "%s", err);
    lua_pushinteger(L, (lua_Integer)hk_graph_retained_count(r->d, r->index));
    return 1;
}

static int obj_holding_roots(lua_State *L)
{
    hkl_ref *r = hkl_check_object(L, 1);
    lua_Integer max = luaL_optinteger(L, 2, 100);
    luaL_argcheck(L, max >= 1 && max <= 1000000, 2, "max must be 1 to 1000000");
    uint32_t *out = hk_xrealloc(NULL, (size_t)max * sizeof *out), n = 0;
    int complete = 1;
    char err[256];
    if (hk_graph_holding_roots(r->d, r->index, 1u << 20, out, (uint32_t)max, &n, &complete, err, sizeof err)) {
        free(out);
        hkl_fail(L, "%s", err);
    }
    uint32_t shown = n < (uint32_t)max ? n : (uint32_t)max;
    lua_createtable(L, 0, 3);
    lua_createtable(L, (int)shown, 0);
    for (uint32_t i = 0; i < shown; i++) {
        const hk_root *rt = &hk_view(r->d)->roots[out[i]];
        lua_createtable(L, 0, 4);
        hkl_set_int(L, "index", (lua_Integer)out[i] + 1);
        hkl_set_str(L, "type", hk_root_type_name(rt->type));
        hkl_push_object(L, 1, hk_obj_find(r->d, rt->id));
        lua_setfield(L, -2, "object");
        if (rt->thread) hkl_set_int(L, "thread", rt->thread);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_setfield(L, -2, "roots");
    hkl_set_int(L, "total", n);
    hkl_set_bool(L, "complete", complete);
    free(out);
    return 1;
}

static const luaL_Reg object_methods[] = {
    {"retained_count", obj_retained_count},
    {"holding_roots", obj_holding_roots},
    {NULL, NULL},
};

void hkl_open_holders(lua_State *L)
{
    hkl_add_methods(L, HKL_OBJECT, object_methods);
}
