/* Lua bindings of the heap diff: dump:diff(base) returns a Diff (see docs/lua-api.md). */
#include "diff/diff.h"
#include "lua/lua_host.h"
#include "lua/lua_open.h"

#include <stdlib.h>
#include <string.h>

#define HKL_DIFF "hk.Diff"

/* user values: 1 the BASE Dump, 2 the DUMP Dump (they outlive the diff) */
typedef struct hkl_diff {
    hk_diff *df;
} hkl_diff;

static hk_diff *check_diff(lua_State *L)
{
    hkl_diff *u = luaL_checkudata(L, 1, HKL_DIFF);
    if (!u->df) hkl_fail(L, "this diff is closed");
    return u->df;
}

static int diff_gc(lua_State *L)
{
    hkl_diff *u = luaL_checkudata(L, 1, HKL_DIFF);
    hk_diff_free(u->df);
    u->df = NULL;
    return 0;
}

/* dump:diff(base[, {base_first = true}]) */
static int dump_diff(lua_State *L)
{
    hk_dump *dump = hkl_check_dump(L, 1), *base = hkl_check_dump(L, 2);
    if (dump == base) return luaL_error(L, "diff: the two dumps are the same handle");
    int flags = 0;
    if (lua_istable(L, 3) && lua_getfield(L, 3, "base_first") != LUA_TNIL && lua_toboolean(L, -1))
        flags |= HK_DIFF_BASE_FIRST;
    char err[256];
    hk_diff *df = hk_diff_new_flags(base, dump, flags, err, sizeof err);
    if (!df) return hkl_fail(L, "%s", err);
    hkl_diff *u = lua_newuserdatauv(L, sizeof *u, 2);
    u->df = df;
    lua_pushvalue(L, 2);
    lua_setiuservalue(L, -2, 1);
    lua_pushvalue(L, 1);
    lua_setiuservalue(L, -2, 2);
    luaL_setmetatable(L, HKL_DIFF);
    return 1;
}

/* The side an Object argument belongs to. */
static int side_of(lua_State *L, hk_diff *df, int idx, uint32_t *obj)
{
    hkl_ref *r = hkl_check_object(L, idx);
    *obj = r->index;
    if (r->d == hk_diff_dump(df, HK_DIFF_DUMP)) return HK_DIFF_DUMP;
    if (r->d == hk_diff_dump(df, HK_DIFF_BASE)) return HK_DIFF_BASE;
    return luaL_argerror(L, idx, "an object of neither dump of this diff");
}

static int side_arg(lua_State *L, int idx)
{
    static const char *const names[] = {"removed", "added", "base", "dump", NULL};
    return luaL_checkoption(L, idx, NULL, names) % 2;
}

static int diff_counterpart(lua_State *L)
{
    hk_diff *df = check_diff(L);
    uint32_t obj;
    int side = side_of(L, df, 2, &obj);
    lua_getiuservalue(L, 1, side == HK_DIFF_DUMP ? 1 : 2);
    hkl_push_object(L, -1, hk_diff_counterpart(df, side, obj));
    return 1;
}

static int diff_status(lua_State *L)
{
    hk_diff *df = check_diff(L);
    uint32_t obj;
    int side = side_of(L, df, 2, &obj);
    lua_pushstring(L, hk_diff_paired(df, side, obj) ? "same" : side == HK_DIFF_DUMP ? "added" : "removed");
    return 1;
}

static int diff_path(lua_State *L)
{
    hk_diff *df = check_diff(L);
    uint32_t obj;
    int side = side_of(L, df, 2, &obj);
    if (hk_diff_forgotten(df, side)) return luaL_error(L, "diff: path asked for after side_done(..., \"forget\")");
    hk_buf b;
    hk_buf_init(&b);
    hk_diff_path(df, side, obj, &b);
    lua_pushlstring(L, b.data ? (const char *)b.data : "", b.len);
    hk_buf_free(&b);
    return 1;
}

static int diff_totals(lua_State *L)
{
    hk_diff *df = check_diff(L);
    hk_diff_totals t;
    hk_diff_get_totals(df, &t);
    lua_createtable(L, 0, 9);
    hkl_set_int(L, "same_objects", t.same_objects);
    hkl_set_int(L, "same_bytes_base", t.same_bytes[0]);
    hkl_set_int(L, "same_bytes_dump", t.same_bytes[1]);
    hkl_set_int(L, "removed_objects", t.objects[0]);
    hkl_set_int(L, "removed_bytes", t.bytes[0]);
    hkl_set_int(L, "added_objects", t.objects[1]);
    hkl_set_int(L, "added_bytes", t.bytes[1]);
    hkl_set_int(L, "matched_classes", t.anchors_classes);
    hkl_set_int(L, "matched_roots", t.anchors_roots);
    return 1;
}

/* df:by_class("added"|"removed") -> rows {class, objects, bytes} */
static int diff_by_class(lua_State *L)
{
    hk_diff *df = check_diff(L);
    int side = side_arg(L, 2);
    hk_diff_class_row *rows;
    uint32_t n;
    hk_diff_by_class(df, side, &rows, &n);
    lua_createtable(L, (int)n, 0);
    for (uint32_t k = 0; k < n; k++) {
        lua_createtable(L, 0, 3);
        hkl_set_str_or_null(L, "class", rows[k].cls);
        hkl_set_int(L, "objects", rows[k].objects);
        hkl_set_int(L, "bytes", rows[k].bytes);
        lua_rawseti(L, -2, (lua_Integer)k + 1);
    }
    free(rows);
    return 1;
}

/* df:by_path("added"|"removed"[, n]) -> rows {path, class, entries, objects, bytes} */
static int diff_by_path(lua_State *L)
{
    hk_diff *df = check_diff(L);
    int side = side_arg(L, 2);
    lua_Integer max = luaL_optinteger(L, 3, 0);
    hk_diff_group *rows;
    uint32_t n;
    hk_diff_by_path(df, side, &rows, &n);
    uint32_t show = max > 0 && (lua_Integer)n > max ? (uint32_t)max : n;
    lua_createtable(L, (int)show, 0);
    for (uint32_t k = 0; k < show; k++) {
        lua_createtable(L, 0, 5);
        hkl_set_str_or_null(L, "path", rows[k].path);
        hkl_set_str_or_null(L, "class", rows[k].cls);
        hkl_set_int(L, "entries", rows[k].entries);
        hkl_set_int(L, "objects", rows[k].objects);
        hkl_set_int(L, "bytes", rows[k].bytes);
        lua_rawseti(L, -2, (lua_Integer)k + 1);
    }
    hk_diff_groups_free(rows, n);
    return 1;
}

/* df:side_done(side[, keep_graph[, "forget"|"growers"|"forget growers"]]): the caller is done
 * with that side (hk_diff_side_done: HK_DIFF_FORGET, HK_DIFF_GROWERS). */
static int diff_side_done(lua_State *L)
{
    static const char *const modes[] = {"", "forget", "growers", "forget growers", NULL};
    static const int flags[] = {0, HK_DIFF_FORGET, HK_DIFF_GROWERS, HK_DIFF_FORGET | HK_DIFF_GROWERS};
    hk_diff *df = check_diff(L);
    int side = side_arg(L, 2), mode = luaL_checkoption(L, 4, "", modes);
    hk_diff_side_done(df, side, (lua_toboolean(L, 3) ? HK_DIFF_KEEP_GRAPH : 0) | flags[mode]);
    return 0;
}

/* df:growers{min_growth=10, min_bytes=65536, n=0} -> rows {base, dump, base_count, dump_count,
 * base_retained, dump_retained, element_class, path} */
static int diff_growers(lua_State *L)
{
    hk_diff *df = check_diff(L);
    lua_Integer min = 10, min_bytes = 65536, max = 0;
    if (lua_istable(L, 2)) {
        if (lua_getfield(L, 2, "min_growth") != LUA_TNIL) min = luaL_checkinteger(L, -1);
        if (lua_getfield(L, 2, "min_bytes") != LUA_TNIL) min_bytes = luaL_checkinteger(L, -1);
        if (lua_getfield(L, 2, "n") != LUA_TNIL) max = luaL_checkinteger(L, -1);
        lua_pop(L, 3);
    }
    hk_diff_grower *rows;
    uint32_t n;
    char err[256];
    if (hk_diff_growers(df, min > 0 ? (uint64_t)min : 1, min_bytes > 0 ? (uint64_t)min_bytes : 1, &rows, &n, err,
                        sizeof err))
        return hkl_fail(L, "%s", err);
    uint32_t show = max > 0 && (lua_Integer)n > max ? (uint32_t)max : n;
    lua_getiuservalue(L, 1, 1);
    int base = lua_gettop(L);
    lua_getiuservalue(L, 1, 2);
    int dump = lua_gettop(L);
    hk_buf b;
    hk_buf_init(&b);
    lua_createtable(L, (int)show, 0);
    for (uint32_t k = 0; k < show; k++) {
        lua_createtable(L, 0, 6);
        hkl_push_object(L, base, rows[k].obj[0]);
        lua_setfield(L, -2, "base");
        hkl_push_object(L, dump, rows[k].obj[1]);
        lua_setfield(L, -2, "dump");
        hkl_set_int(L, "base_count", rows[k].count[0]);
        hkl_set_int(L, "dump_count", rows[k].count[1]);
        hkl_set_int(L, "base_retained", rows[k].retained[0]);
        hkl_set_int(L, "dump_retained", rows[k].retained[1]);
        hkl_set_str_or_null(L, "element_class", rows[k].elem_class);
        hk_buf_reset(&b);
        hk_diff_path(df, HK_DIFF_DUMP, rows[k].obj[1], &b);
        lua_pushlstring(L, b.data ? (const char *)b.data : "", b.len);
        lua_setfield(L, -2, "path");
        lua_rawseti(L, -2, (lua_Integer)k + 1);
    }
    hk_buf_free(&b);
    free(rows);
    return 1;
}

/* df:changes(obj) -> rows {field, base, dump} for obj (either side) against its counterpart,
 * nil when it has none */
static int diff_changes(lua_State *L)
{
    hk_diff *df = check_diff(L);
    uint32_t obj;
    int side = side_of(L, df, 2, &obj);
    uint32_t other = hk_diff_counterpart(df, side, obj);
    if (other == HK_NONE) {
        lua_pushnil(L);
        return 1;
    }
    uint32_t pair[2] = {side == HK_DIFF_BASE ? obj : other, side == HK_DIFF_DUMP ? obj : other};
    hk_diff_change *rows;
    uint32_t n;
    hk_diff_changes(df, pair[0], pair[1], &rows, &n);
    lua_getiuservalue(L, 1, 1);
    lua_getiuservalue(L, 1, 2);
    int dumps[2] = {lua_gettop(L) - 1, lua_gettop(L)};
    lua_createtable(L, (int)n, 0);
    for (uint32_t k = 0; k < n; k++) {
        lua_createtable(L, 0, 3);
        hkl_set_str_or_null(L, "field", rows[k].name);
        for (int s = 0; s < 2; s++) {
            if (rows[k].has[s]) hkl_push_value(L, dumps[s], &rows[k].value[s]);
            else hkl_push_null(L);
            if (lua_isnil(L, -1)) {
                lua_pop(L, 1);
                hkl_push_null(L);
            }
            lua_setfield(L, -2, s ? "dump" : "base");
        }
        lua_rawseti(L, -2, (lua_Integer)k + 1);
    }
    free(rows);
    return 1;
}

static int diff_tostring(lua_State *L)
{
    hkl_diff *u = luaL_checkudata(L, 1, HKL_DIFF);
    lua_pushstring(L, u->df ? "hk.Diff" : "hk.Diff(closed)");
    return 1;
}

static const luaL_Reg dump_methods[] = {
    {"diff", dump_diff},
    {NULL, NULL},
};

void hkl_open_diff(lua_State *L)
{
    static const luaL_Reg methods[] = {
        {"counterpart", diff_counterpart},
        {"status", diff_status},
        {"path", diff_path},
        {"totals", diff_totals},
        {"by_class", diff_by_class},
        {"by_path", diff_by_path},
        {"growers", diff_growers},
        {"side_done", diff_side_done},
        {"changes", diff_changes},
        {"close", diff_gc},
        {NULL, NULL},
    };
    static const luaL_Reg meta[] = {{"__gc", diff_gc}, {"__tostring", diff_tostring}, {NULL, NULL}};
    hkl_new_metatable(L, HKL_DIFF, methods, meta);
    hkl_add_methods(L, HKL_DUMP, dump_methods);
}
