/* dump:histogram([heap][, {retained = false}]): the index's class histogram with each class's
 * retained and native bytes from the graph (the whole dump's, or one heap's), so the Lua rows
 * carry what the CLI's do. */
#include "graph/graph.h"
#include "lua/lua_host.h"
#include "hprof/hprof_view.h"
#include "analysis/histogram.h"
#include "util/hk_buf.h"
#include "lua/lua_open.h"

#include <stdlib.h>
#include <string.h>

/* The heap named at idx: its number, -1 when none is named (all heaps); a usage error when the
 * dump has no such heap. */
static int heap_arg(lua_State *L, hk_dump *d, int idx)
{
    const char *name = luaL_optstring(L, idx, "");
    if (!*name) return -1;
    int h = hk_heap_index(d, name);
    if (h >= 0) return h;
    hk_buf b;
    hk_buf_init(&b);
    hk_heap_names(d, &b);
    lua_pushstring(L, b.len ? hk_buf_cstr(&b) : "none; this dump does not name its heaps");
    hk_buf_free(&b);
    return hkl_usage_error(L, "no heap named '%s' in this dump (heaps: %s)", name, lua_tostring(L, -1));
}

/* Pushes class name -> per[class index] (classes sharing a name summed; with zeros 0, only the
 * names with some), and frees per. */
static void push_by_class_name(lua_State *L, hk_dump *d, uint64_t *per, int zeros)
{
    const hk_dump_view *v = hk_view(d);
    lua_createtable(L, 0, zeros ? (int)v->nclasses : 0);
    for (uint32_t c = 0; c < v->nclasses; c++) {
        if (!zeros && !per[c]) continue;
        const char *name = v->classes[c].name ? v->classes[c].name : "?";
        lua_getfield(L, -1, name);
        lua_Integer prev = lua_tointeger(L, -1);
        lua_pop(L, 1);
        lua_pushinteger(L, prev + (lua_Integer)per[c]);
        lua_setfield(L, -2, name);
    }
    free(per);
}

/* Pushes class name -> retained bytes (classes sharing a name summed), of one heap or all. */
static void push_class_retained(lua_State *L, hk_dump *d, int heap)
{
    uint64_t *per; /* the dominators too: asked for by the walk, they hand it their memory */
    char err[256];
    if (heap >= 0 ? hk_graph_class_retained_heap(d, heap, &per, err, sizeof err)
                  : hk_graph_class_retained(d, &per, err, sizeof err))
        hkl_fail(L, "%s", err);
    push_by_class_name(L, d, per, 1);
}

/* Pushes class name -> native bytes of its instances (NativeAllocationRegistry sizes, as
 * obj.native_size), of one heap or all; only the classes with some. */
static void push_class_native(lua_State *L, hk_dump *d, int heap)
{
    uint64_t *per;
    char err[256];
    if (hk_graph_class_native(d, heap, &per, err, sizeof err)) hkl_fail(L, "%s", err);
    push_by_class_name(L, d, per, 0);
}

/* dump:class_retained([heap]): class name -> retained bytes; with a heap, the bytes in that
 * heap retained by the class's instances in it (ahat's per-heap retained size). */
static int dump_class_retained(lua_State *L)
{
    hk_dump *d = hkl_check_dump(L, 1);
    push_class_retained(L, d, heap_arg(L, d, 2));
    return 1;
}

/* dump:class_native([heap]): class name -> native bytes of its instances (classes with some) */
static int dump_class_native(lua_State *L)
{
    hk_dump *d = hkl_check_dump(L, 1);
    push_class_native(L, d, heap_arg(L, d, 2));
    return 1;
}

/* Does the options table at idx say retained = false? */
static int without_retained(lua_State *L, int idx)
{
    if (lua_isnoneornil(L, idx)) return 0;
    luaL_checktype(L, idx, LUA_TTABLE);
    lua_getfield(L, idx, "retained");
    int off = lua_isboolean(L, -1) && !lua_toboolean(L, -1);
    lua_pop(L, 1);
    return off;
}

/* dump:histogram([heap][, opts]) -> rows {class, count, shallow_bytes, retained_bytes,
 * native_bytes}, the most shallow bytes first; opts.retained = false leaves the graph's two
 * out (no graph). */
static int dump_histogram(lua_State *L)
{
    hk_dump *d = hkl_check_dump(L, 1);
    int heap = heap_arg(L, d, 2), retained = !without_retained(L, 3);
    int per = 0, native = 0;
    if (retained) { /* first: they can raise, and the rows below are C memory */
        push_class_retained(L, d, heap);
        per = lua_gettop(L);
        push_class_native(L, d, heap);
        native = lua_gettop(L);
    }
    hk_hist_row *rows;
    size_t n;
    char err[512];
    if (hk_histogram(d, heap >= 0 ? hk_heap_name(d, heap) : NULL, &rows, &n, err, sizeof err) < 0)
        return hkl_fail(L, "%s", err);
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        lua_createtable(L, 0, 4);
        hkl_set_str(L, "class", rows[i].name);
        hkl_set_int(L, "count", (lua_Integer)rows[i].count);
        hkl_set_int(L, "shallow_bytes", (lua_Integer)rows[i].bytes);
        if (per) {
            lua_getfield(L, per, rows[i].name);
            lua_setfield(L, -2, "retained_bytes");
            lua_getfield(L, native, rows[i].name);
            lua_Integer nb = lua_tointeger(L, -1);
            lua_pop(L, 1);
            hkl_set_int(L, "native_bytes", nb);
        }
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    free(rows);
    return 1;
}

static const luaL_Reg dump_methods[] = {
    {"histogram", dump_histogram},
    {"class_retained", dump_class_retained},
    {"class_native", dump_class_native},
    {NULL, NULL},
};

void hkl_open_histogram(lua_State *L)
{
    hkl_add_methods(L, HKL_DUMP, dump_methods);
}
