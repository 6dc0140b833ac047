/* Lua bindings of the heap graph: Object and Dump methods over hk_graph_*. */
#include "graph/graph.h"
#include "lua/lua_host.h"
#include "hprof/hprof_view.h"
#include "lua/lua_open.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

/* Computes the phases or raises a Lua error naming what failed. */
static void need(lua_State *L, hk_dump *d, int mask)
{
    char err[256];
    if (hk_graph_ensure(d, mask, err, sizeof err)) hkl_fail(L, "%s", err);
}

static hkl_ref *obj_need(lua_State *L, int mask)
{
    hkl_ref *r = hkl_check_object(L, 1);
    need(L, r->d, mask);
    return r;
}

/* Pushes one of the object's sizes, after the phases it needs. */
static int push_size(lua_State *L, int mask, uint64_t (*size)(hk_dump *d, uint32_t obj))
{
    hkl_ref *r = obj_need(L, mask);
    lua_pushinteger(L, (lua_Integer)size(r->d, r->index));
    return 1;
}

static int obj_retained_size(lua_State *L)
{
    return push_size(L, HK_GRAPH_DOM, hk_graph_retained);
}

static int obj_retained_native(lua_State *L)
{
    return push_size(L, HK_GRAPH_DOM, hk_graph_retained_native);
}

static int obj_native_size(lua_State *L)
{
    return push_size(L, HK_GRAPH_NATIVE, hk_graph_native_size);
}

static int obj_reachability(lua_State *L)
{
    hkl_ref *r = obj_need(L, HK_GRAPH_REACH);
    lua_pushstring(L, hk_graph_reach_name(hk_graph_reach(r->d, r->index)));
    return 1;
}

static int obj_dominator(lua_State *L)
{
    hkl_ref *r = obj_need(L, HK_GRAPH_DOM);
    hkl_push_object(L, 1, hk_graph_idom(r->d, r->index));
    return 1;
}

static void push_objects(lua_State *L, int dump_idx, const uint32_t *v, uint32_t n)
{
    lua_createtable(L, (int)n, 0);
    for (uint32_t k = 0; k < n; k++) {
        hkl_push_object(L, dump_idx, v[k]);
        lua_rawseti(L, -2, (lua_Integer)k + 1);
    }
}

/* obj:dominated([n]): the objects obj immediately dominates, largest retained first. */
static int obj_dominated(lua_State *L)
{
    hkl_ref *r = obj_need(L, HK_GRAPH_DOM);
    lua_Integer max = luaL_optinteger(L, 2, 0);
    const uint32_t *v;
    uint32_t n;
    char err[256];
    if (hk_graph_dominated(r->d, r->index, &v, &n, err, sizeof err)) return hkl_fail(L, "%s", err);
    if (max > 0 && (lua_Integer)n > max) n = (uint32_t)max;
    push_objects(L, 1, v, n);
    return 1;
}

/* obj:referrers(): an array of every strong referrer, then every Reference object whose
 * referent obj is (no cap). */
static int obj_referrers(lua_State *L)
{
    hkl_ref *r = obj_need(L, HK_GRAPH_REFERRERS);
    uint32_t n;
    const uint32_t *v = hk_graph_referrers(r->d, r->index, &n);
    push_objects(L, 1, v, n);
    uint32_t nw = hk_graph_weak_referrers(r->d, r->index, NULL, 0);
    if (nw) {
        uint32_t *w = lua_newuserdatauv(L, (size_t)nw * sizeof *w, 0); /* freed by the GC */
        hk_graph_weak_referrers(r->d, r->index, w, nw);
        for (uint32_t k = 0; k < nw; k++) {
            hkl_push_object(L, 1, w[k]);
            lua_rawseti(L, -3, (lua_Integer)n + k + 1);
        }
        lua_pop(L, 1);
    }
    return 1;
}

/* How a path step is reached, as {type, name}: the first step from its root ("local" for a
 * thread's stack or a native local, "root" otherwise, named by the root type), each later one
 * by the previous step's outgoing via: "static X", "[12]" or a field name. */
static void push_reference(lua_State *L, const hk_graph_path *p, uint32_t k)
{
    lua_createtable(L, 0, 2);
    if (k == 0) {
        int t = p->root ? p->root->type : 0;
        int local = t == HPROF_ROOT_JAVA_FRAME || t == HPROF_ROOT_JNI_LOCAL || t == HPROF_ROOT_NATIVE_STACK;
        hkl_set_str(L, "type", local ? "local" : "root");
        hkl_set_str(L, "name", p->root ? hk_root_type_name(p->root->type) : "?");
        return;
    }
    const char *via = p->steps[k - 1].via;
    if (!strncmp(via, "static ", 7)) hkl_set_str(L, "type", "static"), hkl_set_str(L, "name", via + 7);
    else if (via[0] == '[') hkl_set_str(L, "type", "array"), hkl_set_str(L, "name", via);
    else hkl_set_str(L, "type", "field"), hkl_set_str(L, "name", via);
}

/* dump:path_to_root(obj): {root=TYPE, thread=, frame=, object=, via=, reference=} per step, nil
 * when no root reaches obj.  Steps after the first carry no root; the last step's via is "". */
static int dump_path_to_root(lua_State *L)
{
    hk_dump *d = hkl_check_dump(L, 1);
    uint32_t obj = hk_obj_find(d, hkl_check_id(L, 2));
    if (obj == HK_NONE) return luaL_error(L, "path_to_root: no such object in this dump");
    hk_graph_path p;
    char err[256];
    if (hk_graph_path_to(d, obj, &p, err, sizeof err)) return hkl_fail(L, "%s", err);
    if (!p.found) {
        lua_pushnil(L);
        return 1;
    }
    lua_createtable(L, (int)p.nsteps, 0);
    for (uint32_t k = 0; k < p.nsteps; k++) {
        lua_createtable(L, 0, 6);
        if (k == 0 && p.root) {
            hkl_set_str(L, "root", hk_root_type_name(p.root->type));
            if (p.root->thread) hkl_set_int(L, "thread", p.root->thread);
            if (p.root->frame) hkl_set_int(L, "frame", p.root->frame);
        }
        hkl_push_object(L, 1, p.steps[k].obj);
        lua_setfield(L, -2, "object");
        hkl_set_str(L, "via", p.steps[k].via);
        push_reference(L, &p, k);
        lua_setfield(L, -2, "reference");
        if (k + 1 == p.nsteps && p.weak) hkl_set_bool(L, "weak", 1);
        lua_rawseti(L, -2, (lua_Integer)k + 1);
    }
    hk_graph_path_free(&p);
    return 1;
}

/* dump:roots(): every root record {type, object, id, thread, frame}. */
static int dump_roots(lua_State *L)
{
    hk_dump *d = hkl_check_dump(L, 1);
    lua_createtable(L, (int)hk_view(d)->nroots, 0);
    for (uint32_t k = 0; k < hk_view(d)->nroots; k++) {
        lua_createtable(L, 0, 5);
        hkl_set_str(L, "type", hk_root_type_name(hk_view(d)->roots[k].type));
        hkl_push_id(L, hk_view(d)->roots[k].id);
        lua_setfield(L, -2, "id");
        hkl_push_object(L, 1, hk_obj_find(d, hk_view(d)->roots[k].id));
        lua_setfield(L, -2, "object");
        if (hk_view(d)->roots[k].thread) hkl_set_int(L, "thread", hk_view(d)->roots[k].thread);
        if (hk_view(d)->roots[k].frame) hkl_set_int(L, "frame", hk_view(d)->roots[k].frame);
        lua_rawseti(L, -2, (lua_Integer)k + 1);
    }
    return 1;
}

/* Which objects a class glob keeps: per class index, its instances (by class name) and its
 * class object (by "class NAME", as obj.label names it). */
typedef struct class_glob {
    uint8_t *inst, *cls; /* NULL: every class */
    const char *glob;
    int heap; /* the heap objects must be in, -1: any */
} class_glob;

static int glob_keeps(const hk_dump *d, uint32_t i, void *ctx)
{
    const class_glob *cg = ctx;
    if (cg->heap >= 0 && hk_obj_heap(d, i) != cg->heap) return 0;
    if (!cg->inst) return 1;
    const uint8_t *r = hk_obj_record(d, i);
    if (*r == HPROF_CLASS_DUMP) {
        const uint32_t *c = hk_idmap_get(&hk_view(d)->class_by_id, hk_be_id(d, r + 1));
        return c && cg->cls[*c];
    }
    uint32_t c = hk_obj_class(d, i);
    return c != HK_NONE ? cg->inst[c] : fnmatch(cg->glob, hk_obj_class_name(d, i), 0) == 0;
}

/* The glob's marks per class, in userdata left on the stack. */
static class_glob glob_marks(lua_State *L, const hk_dump *d, const char *glob)
{
    class_glob cg = {lua_newuserdatauv(L, 2 * ((size_t)hk_view(d)->nclasses + 1), 0), NULL, glob, -1};
    cg.cls = cg.inst + hk_view(d)->nclasses + 1;
    for (uint32_t c = 0; c < hk_view(d)->nclasses; c++) {
        const char *name = hk_view(d)->classes[c].name ? hk_view(d)->classes[c].name : "?";
        cg.inst[c] = fnmatch(glob, name, 0) == 0;
        lua_pushfstring(L, "class %s", name);
        cg.cls[c] = fnmatch(glob, lua_tostring(L, -1), 0) == 0;
        lua_pop(L, 1);
    }
    return cg;
}

/* The heap a name means (-1 for "" or "all"); an unknown name is a usage error. */
static int heap_arg(lua_State *L, const hk_dump *d, const char *name)
{
    if (!*name || !strcmp(name, "all") || (!hk_dump_heap_count(d) && !strcmp(name, "default"))) return -1;
    int h = hk_heap_index(d, name);
    if (h >= 0) return h;
    return hkl_usage_error(L, "no heap '%s' in this dump (see `hprofkit info`)", name);
}

/* What top_retained ranks by, from a listing column name ("" or nil: retained bytes). */
static enum hk_top_key top_key(lua_State *L, int idx, int *mask)
{
    static const char *const names[] = {"retained_bytes", "shallow_bytes", "native_bytes", "retained_native_bytes",
                                        NULL};
    static const enum hk_top_key keys[] = {HK_TOP_RETAINED, HK_TOP_SHALLOW, HK_TOP_NATIVE, HK_TOP_RETAINED_NATIVE};
    if (lua_isnoneornil(L, idx) || !*lua_tostring(L, idx)) return HK_TOP_RETAINED;
    enum hk_top_key k = keys[luaL_checkoption(L, idx, NULL, names)];
    if (k == HK_TOP_NATIVE) *mask |= HK_GRAPH_NATIVE;
    return k;
}

/* dump:top_retained([n[, all[, glob[, heap[, by]]]]]): glob keeps the objects whose label
 * matches, heap those in that heap (retained sizes stay the whole dump's); by ranks them by
 * another column (shallow_bytes, native_bytes, retained_native_bytes), keeping only the n best */
static int dump_top_retained(lua_State *L)
{
    hk_dump *d = hkl_check_dump(L, 1);
    lua_Integer want = luaL_optinteger(L, 2, 20);
    if (want < 0) want = 0;
    if ((uint64_t)want > hk_view(d)->nobjects) want = hk_view(d)->nobjects;
    int all = lua_toboolean(L, 3);
    const char *glob = luaL_optstring(L, 4, "");
    int heap = heap_arg(L, d, luaL_optstring(L, 5, ""));
    int mask = HK_GRAPH_DOM | (all ? 0 : HK_GRAPH_REACH);
    enum hk_top_key key = top_key(L, 6, &mask);
    need(L, d, mask);
    class_glob cg = {NULL, NULL, glob, heap};
    if (*glob) cg = glob_marks(L, d, glob);
    cg.heap = heap;
    uint32_t *v = lua_newuserdatauv(L, ((size_t)want + 1) * sizeof *v, 0);
    uint32_t n = hk_graph_top(d, (uint32_t)want, key, !all, *glob || heap >= 0 ? glob_keeps : NULL, &cg, v);
    push_objects(L, 1, v, n);
    return 1;
}

/* dump:dominated_by_root([n]): the virtual root's children, largest first. */
static int dump_dominated_by_root(lua_State *L)
{
    hk_dump *d = hkl_check_dump(L, 1);
    lua_Integer max = luaL_optinteger(L, 2, 0);
    need(L, d, HK_GRAPH_DOM);
    const uint32_t *v;
    uint32_t n;
    char err[256];
    if (hk_graph_dominated(d, HK_NONE, &v, &n, err, sizeof err)) return hkl_fail(L, "%s", err);
    if (max > 0 && (lua_Integer)n > max) n = (uint32_t)max;
    push_objects(L, 1, v, n);
    return 1;
}

/* dump:graph_plan({phase, ...}): declares the graph phases the caller will use (see
 * hk_graph_plan); returns the names of the phases computed and held. */
static int dump_graph_plan(lua_State *L)
{
    static const struct {
        int bit;
        const char *name;
    } names[] = {{HK_GRAPH_REFS, "references"}, {HK_GRAPH_REFERRERS, "referrers"}, {HK_GRAPH_REACH, "reachability"},
                 {HK_GRAPH_NATIVE, "native"},   {HK_GRAPH_DOM, "dominators"},      {HK_GRAPH_PATHS, "paths"}};
    const size_t nn = sizeof names / sizeof names[0];
    hk_dump *d = hkl_check_dump(L, 1);
    int mask = 0, held;
    if (!lua_isnoneornil(L, 2)) luaL_checktype(L, 2, LUA_TTABLE);
    char err[256];
    for (lua_Integer i = 1; lua_istable(L, 2) && lua_rawgeti(L, 2, i) != LUA_TNIL; i++) {
        const char *want = luaL_checkstring(L, -1);
        size_t k = 0;
        if (!strcmp(want, "class_retained")) { /* not a phase: what the dominators keep for it */
            if (hk_graph_plan_class_retained(d, err, sizeof err)) return hkl_fail(L, "%s", err);
            lua_pop(L, 1);
            continue;
        }
        if (!strcmp(want, "paths_first")) { /* the paths, searched whole before the dominators */
            if (hk_graph_plan_paths_first(d, err, sizeof err)) return hkl_fail(L, "%s", err);
            lua_pop(L, 1);
            continue;
        }
        if (!strcmp(want, "class_lists")) { /* the instance lists, asked for again after the walks */
            if (hk_graph_plan_class_lists(d, err, sizeof err)) return hkl_fail(L, "%s", err);
            lua_pop(L, 1);
            continue;
        }
        while (k < nn && strcmp(names[k].name, want)) k++;
        if (k == nn)
            return luaL_error(L,
                              "graph_plan: no graph phase '%s' (references, referrers, reachability, native, "
                              "dominators, paths, class_retained, paths_first, class_lists)",
                              want);
        mask |= names[k].bit;
        lua_pop(L, 1);
    }
    if (hk_graph_plan(d, mask, &held, err, sizeof err)) return hkl_fail(L, "%s", err);
    lua_newtable(L);
    for (size_t k = 0; k < nn; k++)
        if (held & names[k].bit) {
            lua_pushstring(L, names[k].name);
            lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
        }
    return 1;
}

/* dump:reachability(): strength -> {count=, bytes=}. */
static int dump_reachability(lua_State *L)
{
    hk_dump *d = hkl_check_dump(L, 1);
    need(L, d, HK_GRAPH_REACH);
    uint64_t count[HK_REACH_COUNT], bytes[HK_REACH_COUNT];
    hk_graph_reach_totals(d, count, bytes);
    lua_createtable(L, 0, HK_REACH_COUNT);
    for (int k = 0; k < HK_REACH_COUNT; k++) {
        lua_createtable(L, 0, 2);
        hkl_set_int(L, "count", (lua_Integer)count[k]);
        hkl_set_int(L, "bytes", (lua_Integer)bytes[k]);
        lua_setfield(L, -2, hk_graph_reach_name(k));
    }
    return 1;
}

/* dump:graph_totals(): {bytes=, native=, objects=, edges=, roots=} of the whole heap. */
static int dump_graph_totals(lua_State *L)
{
    hk_dump *d = hkl_check_dump(L, 1);
    need(L, d, HK_GRAPH_DOM);
    uint32_t nr;
    hk_graph_root_objects(d, &nr);
    lua_createtable(L, 0, 5);
    hkl_set_int(L, "bytes", (lua_Integer)hk_graph_total_bytes(d));
    hkl_set_int(L, "native", (lua_Integer)hk_graph_total_native(d));
    hkl_set_int(L, "objects", (lua_Integer)hk_view(d)->nobjects);
    hkl_set_int(L, "edges", (lua_Integer)hk_graph_edge_count(d));
    hkl_set_int(L, "roots", (lua_Integer)nr);
    return 1;
}

/* dump:release({what, ...}): frees what the script is done with for now, each made again when
 * next asked for: "instances" (the per-class instance lists, 4 bytes an object) and
 * "dominator_children" (the dominator tree's child lists, 8 bytes an object). */
static int dump_release(lua_State *L)
{
    hk_dump *d = hkl_check_dump(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    for (lua_Integer i = 1; lua_rawgeti(L, 2, i) != LUA_TNIL; i++) {
        const char *what = luaL_checkstring(L, -1);
        if (!strcmp(what, "instances")) hk_class_lists_drop(d);
        else if (!strcmp(what, "dominator_children")) hk_graph_drop_kids(d);
        else return luaL_error(L, "release: nothing called '%s' (instances, dominator_children)", what);
        lua_pop(L, 1);
    }
    return 0;
}

static const luaL_Reg object_methods[] = {
    {"retained_size", obj_retained_size}, {"retained_native", obj_retained_native},
    {"dominator", obj_dominator},         {"dominated", obj_dominated},
    {"referrers", obj_referrers},         {NULL, NULL},
};

static const luaL_Reg object_props[] = {
    {"native_size", obj_native_size},
    {"reachability", obj_reachability},
    {NULL, NULL},
};

static const luaL_Reg dump_methods[] = {
    {"path_to_root", dump_path_to_root},           {"roots", dump_roots},           {"top_retained", dump_top_retained},
    {"dominated_by_root", dump_dominated_by_root}, {"graph_plan", dump_graph_plan}, {"reachability", dump_reachability},
    {"graph_totals", dump_graph_totals},           {"release", dump_release},       {NULL, NULL},
};

void hkl_open_graph(lua_State *L)
{
    hkl_add_methods(L, HKL_OBJECT, object_methods);
    hkl_add_properties(L, HKL_OBJECT, object_props);
    hkl_add_methods(L, HKL_DUMP, dump_methods);
}
