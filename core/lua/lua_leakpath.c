/* dump:leak_paths(targets, refs, root_rules): the Lua face of hk_graph_leak_paths.
 *
 * targets: an array of Objects.  refs: an array of {class=, field= | static=, ignore=bool};
 * a class the dump lacks makes its entry a no-op.  root_rules: {[root record index, 1-based, as
 * in dump:roots()] = k} marks a library-leak root matched by the caller's rule k (a number), or
 * false for a root to ignore.  Returns an array parallel to targets: false when no path, else
 * {root = {index, type, thread, frame}, steps = {{object, via}...}, rule = i, rule_root = bool,
 * rule_step = n}, where rule is the refs index (or the root_rules value when rule_root) of the
 * library-leak reference the path crosses, and rule_step the step (1-based) whose reference
 * matched it. */
#include "graph/graph_leakpath.h"
#include "lua/lua_host.h"
#include "util/hk_mem.h"
#include "lua/lua_open.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void push_path(lua_State *L, hk_dump *d, const hk_leak_query *q, const hk_leak_path *p, const int *ref_lua)
{
    if (!p->found) {
        lua_pushboolean(L, 0);
        return;
    }
    lua_createtable(L, 0, 5);
    if (p->root >= 0) {
        uint32_t nroots;
        const hk_root *r = &hk_dump_roots(d, &nroots)[p->root];
        lua_createtable(L, 0, 4);
        hkl_set_int(L, "index", p->root + 1);
        hkl_set_str(L, "type", hk_root_type_name(r->type));
        if (r->thread) hkl_set_int(L, "thread", r->thread);
        if (r->frame) hkl_set_int(L, "frame", r->frame);
        lua_setfield(L, -2, "root");
    }
    lua_createtable(L, (int)p->nsteps, 0);
    for (uint32_t k = 0; k < p->nsteps; k++) {
        lua_createtable(L, 0, 2);
        hkl_push_object(L, 1, p->objs[k]);
        lua_setfield(L, -2, "object");
        char via[160] = "";
        if (k + 1 < p->nsteps) {
            if (!p->rule_is_root && p->rule >= 0 && (uint32_t)p->rule_step == k) {
                const hk_leak_ref *r = &q->refs[p->rule];
                snprintf(via, sizeof via, "%s%s", r->is_static ? "static " : "", r->field);
            } else if (hk_graph_edge_name(d, p->objs[k], p->objs[k + 1], via, sizeof via)) {
                snprintf(via, sizeof via, "?");
            }
        }
        hkl_set_str(L, "via", via);
        lua_rawseti(L, -2, (lua_Integer)k + 1);
    }
    lua_setfield(L, -2, "steps");
    if (p->rule >= 0) {
        hkl_set_int(L, "rule", p->rule_is_root ? p->rule : ref_lua[p->rule]);
        hkl_set_bool(L, "rule_root", p->rule_is_root);
        if (!p->rule_is_root) hkl_set_int(L, "rule_step", p->rule_step + 1);
    }
}

static int dump_leak_paths(lua_State *L)
{
    hk_dump *d = hkl_check_dump(L, 1);
    uint32_t nroots;
    hk_dump_roots(d, &nroots);
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_Integer nt = luaL_len(L, 2);
    lua_Integer nr = lua_istable(L, 3) ? luaL_len(L, 3) : 0;
    /* scratch memory lives in userdata so a Lua error cannot leak it */
    uint32_t *targets = lua_newuserdatauv(L, (size_t)(nt + 1) * sizeof *targets, 0);
    hk_leak_ref *refs = lua_newuserdatauv(L, (size_t)(nr + 1) * sizeof *refs, 0);
    int *ref_lua = lua_newuserdatauv(L, (size_t)(nr + 1) * sizeof *ref_lua, 0);
    int32_t *root_rule = lua_newuserdatauv(L, (size_t)(nroots + 1) * sizeof *root_rule, 0);
    for (lua_Integer k = 1; k <= nt; k++) {
        lua_geti(L, 2, k);
        hkl_ref *o = hkl_check_object(L, -1);
        if (o->d != d) return luaL_error(L, "leak_paths: target %d is from another dump", (int)k);
        targets[k - 1] = o->index;
        lua_pop(L, 1);
    }
    uint32_t n = 0;
    for (lua_Integer k = 1; k <= nr; k++) {
        lua_geti(L, 3, k);
        if (!lua_istable(L, -1)) return luaL_error(L, "leak_paths: refs[%d] is not a table", (int)k);
        lua_getfield(L, -1, "class");
        lua_getfield(L, -2, "field");
        lua_getfield(L, -3, "static");
        lua_getfield(L, -4, "ignore");
        const char *cname = lua_tostring(L, -4);
        const char *field = lua_tostring(L, -3);
        const char *st = lua_tostring(L, -2);
        if (!cname || (!field && !st))
            return luaL_error(L, "leak_paths: refs[%d] needs class and field or static", (int)k);
        hk_class *c = hk_class_by_name(d, cname);
        if (c) {
            /* the strings stay alive: refs[k] is still referenced from the argument table */
            refs[n] = (hk_leak_ref){c->index, field ? field : st, !field, lua_toboolean(L, -1)};
            ref_lua[n++] = (int)k;
        }
        lua_pop(L, 5);
    }
    for (uint32_t k = 0; k < nroots; k++) root_rule[k] = -1;
    if (lua_istable(L, 4)) {
        lua_pushnil(L);
        while (lua_next(L, 4)) {
            lua_Integer idx = lua_tointeger(L, -2);
            if (idx >= 1 && (uint64_t)idx <= nroots)
                root_rule[idx - 1] = lua_isinteger(L, -1) ? (int32_t)lua_tointeger(L, -1) : -2;
            lua_pop(L, 1);
        }
    }
    hk_leak_query q = {targets, (uint32_t)nt, refs, n, root_rule};
    hk_leak_path *paths = hk_xcalloc((size_t)nt + 1, sizeof *paths);
    char err[256];
    if (hk_graph_leak_paths(d, &q, paths, err, sizeof err)) {
        free(paths);
        return hkl_fail(L, "%s", err);
    }
    lua_createtable(L, (int)nt, 0);
    for (lua_Integer k = 0; k < nt; k++) {
        push_path(L, d, &q, &paths[k], ref_lua);
        lua_rawseti(L, -2, k + 1);
    }
    hk_leak_paths_free(paths, (uint32_t)nt);
    free(paths);
    return 1;
}

/* dump:root_columns(): the GC roots' types and thread serials (false: none), two lists by
 * root record index.  The leak search's root rules look at every root's type and thread but
 * at few roots' objects (dump:root_object): a hundred thousand root tables, each with its
 * Object and id string (dump:roots()), cost more than the search itself. */
static int dump_root_columns(lua_State *L)
{
    hk_dump *d = hkl_check_dump(L, 1);
    uint32_t nroots;
    const hk_root *roots = hk_dump_roots(d, &nroots);
    lua_createtable(L, (int)nroots, 0);
    lua_createtable(L, (int)nroots, 0);
    for (uint32_t k = 0; k < nroots; k++) {
        lua_pushstring(L, hk_root_type_name(roots[k].type));
        lua_rawseti(L, -3, (lua_Integer)k + 1);
        if (roots[k].thread) lua_pushinteger(L, (lua_Integer)roots[k].thread);
        else lua_pushboolean(L, 0);
        lua_rawseti(L, -2, (lua_Integer)k + 1);
    }
    return 2;
}

/* dump:root_object(k): the object of root record k (1-based), nil when the dump lacks it. */
static int dump_root_object(lua_State *L)
{
    hk_dump *d = hkl_check_dump(L, 1);
    uint32_t nroots;
    const hk_root *roots = hk_dump_roots(d, &nroots);
    lua_Integer k = luaL_checkinteger(L, 2);
    luaL_argcheck(L, k >= 1 && (uint64_t)k <= nroots, 2, "no root with that index");
    hkl_push_object(L, 1, hk_obj_find(d, roots[k - 1].id));
    return 1;
}

static const luaL_Reg dump_methods[] = {
    {"leak_paths", dump_leak_paths},
    {"root_columns", dump_root_columns},
    {"root_object", dump_root_object},
    {NULL, NULL},
};

void hkl_open_leakpath(lua_State *L)
{
    hkl_add_methods(L, HKL_DUMP, dump_methods);
}
