/* The Dump type in Lua: dump:info(), dump:classes(), dump:class(), dump:object(),
 * dump:objects(), dump:index_stats(), dump:close(). */
#include "lua/lua_ref.h"
#include "hprof/hprof_view.h"
#include "analysis/histogram.h"
#include "lua/lua_open.h"

#include <stdlib.h>
#include <string.h>

static int dump_gc(lua_State *L)
{
    hkl_dump *u = hkl_test_dump(L, 1);
    if (!u) return luaL_typeerror(L, 1, "dump");
    if (u->d && !u->borrowed) {
        hkl_forget_fields();
        hk_dump_close(u->d);
    }
    u->d = NULL;
    return 0;
}

/* What a Perfetto trace held: its "key: value" lines as rows {key, value}. */
static void push_source(lua_State *L, const char *source)
{
    lua_newtable(L);
    int n = 0;
    for (const char *p = source; *p;) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        const char *colon = memchr(p, ':', len);
        size_t klen = colon ? (size_t)(colon - p) : 0;
        size_t voff = colon ? klen + (klen + 1 < len && p[klen + 1] == ' ' ? 2 : 1) : 0;
        lua_createtable(L, 0, 2);
        lua_pushlstring(L, p, klen);
        lua_setfield(L, -2, "key");
        lua_pushlstring(L, p + voff, len - voff);
        lua_setfield(L, -2, "value");
        lua_rawseti(L, -2, ++n);
        p += len + (e ? 1 : 0);
    }
}

/* Where the dump came from: the device properties ART wrote, the map applied, the trace's lines. */
static void set_origin(lua_State *L, hk_dump *d)
{
    hk_origin o;
    hk_origin_read(d, &o);
    if (o.sdk >= 0) hkl_set_int(L, "sdk", o.sdk);
    else hkl_set_str_or_null(L, "sdk", NULL);
    hkl_set_str_or_null(L, "fingerprint", o.fingerprint);
    hkl_set_str_or_null(L, "manufacturer", o.manufacturer);
    hkl_set_str_or_null(L, "model", o.model);
    hkl_set_str_or_null(L, "process", o.process);
    const hk_map *map = hk_dump_map(d);
    hkl_set_str_or_null(L, "map", map ? map->path : NULL);
    hk_origin_free(&o);
    if (hk_dump_source(d)) push_source(L, hk_dump_source(d));
    else hkl_push_null(L);
    lua_setfield(L, -2, "source");
}

static int dump_info(lua_State *L)
{
    hk_dump *d = hkl_check_dump(L, 1);
    lua_createtable(L, 0, 20);
    hkl_set_str_or_null(L, "path", hk_dump_path(d));
    hkl_set_str_or_null(L, "format", hk_dump_format(d));
    hkl_set_int(L, "id_size", hk_view(d)->id_size);
    hkl_set_int(L, "timestamp", (lua_Integer)hk_dump_timestamp_ms(d));
    hkl_set_int(L, "file_bytes", (lua_Integer)hk_view(d)->size);
    hkl_set_int(L, "objects", hk_view(d)->nobjects);
    hkl_set_int(L, "classes", hk_view(d)->nclasses);
    hkl_set_int(L, "instances", hk_view(d)->ninstances);
    hkl_set_int(L, "object_arrays", hk_view(d)->nobj_arrays);
    hkl_set_int(L, "primitive_arrays", hk_view(d)->nprim_arrays);
    hkl_set_int(L, "gc_roots", hk_view(d)->nroots);
    uint32_t nheaps = hk_dump_heap_count(d);
    lua_createtable(L, (int)nheaps, 0);
    for (uint32_t h = 0; h < nheaps; h++) {
        lua_pushstring(L, hk_heap_name(d, (int)h));
        lua_rawseti(L, -2, h + 1);
    }
    lua_setfield(L, -2, "heaps");
    set_origin(L, d);
    return 1;
}

static int dump_path(lua_State *L)
{
    lua_pushstring(L, hk_dump_path(hkl_check_dump(L, 1)));
    return 1;
}

static int dump_classes(lua_State *L)
{
    hk_dump *d = hkl_check_dump(L, 1);
    lua_createtable(L, (int)hk_view(d)->nclasses, 0);
    for (uint32_t i = 0; i < hk_view(d)->nclasses; i++) {
        hkl_push_class(L, 1, i);
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}

static int dump_class(lua_State *L)
{
    hk_dump *d = hkl_check_dump(L, 1);
    hk_class *c;
    if (lua_type(L, 2) == LUA_TSTRING && strncmp(lua_tostring(L, 2), "0x", 2))
        c = hk_class_by_name(d, lua_tostring(L, 2));
    else c = hk_class_by_id(d, hkl_check_id(L, 2));
    hkl_push_class(L, 1, c ? c->index : HK_NONE);
    return 1;
}

static int dump_object(lua_State *L)
{
    hk_dump *d = hkl_check_dump(L, 1);
    hkl_push_object(L, 1, hk_obj_find(d, hkl_check_id(L, 2)));
    return 1;
}

static int objects_iter(lua_State *L)
{
    hk_dump *d = hkl_check_dump(L, lua_upvalueindex(1));
    lua_Integer i = lua_tointeger(L, lua_upvalueindex(2));
    if (i >= hk_view(d)->nobjects) return 0;
    lua_pushinteger(L, i + 1);
    lua_replace(L, lua_upvalueindex(2));
    hkl_push_object(L, lua_upvalueindex(1), (uint32_t)i);
    return 1;
}

static int dump_objects(lua_State *L)
{
    hkl_check_dump(L, 1);
    lua_pushvalue(L, 1);
    lua_pushinteger(L, 0);
    lua_pushcclosure(L, objects_iter, 2);
    return 1;
}

/* dump:index_stats() -> memory the index keeps per object, how its walk was cut (for benchmarks) */
static int dump_index_stats(lua_State *L)
{
    hk_index_stats s;
    hk_index_stats_of(hkl_check_dump(L, 1), &s);
    lua_createtable(L, 0, 9);
    hkl_set_int(L, "objects", (lua_Integer)s.objects);
    hkl_set_int(L, "object_table_bytes", (lua_Integer)s.object_table_bytes);
    hkl_set_int(L, "class_bytes", (lua_Integer)s.class_bytes);
    hkl_set_int(L, "name_bytes", (lua_Integer)s.name_bytes);
    hkl_set_int(L, "map_bytes", (lua_Integer)s.map_bytes);
    hkl_set_int(L, "total_bytes", (lua_Integer)s.total_bytes);
    hkl_set_num(L, "bytes_per_object", s.bytes_per_object);
    hkl_set_int(L, "walk_parts", (lua_Integer)s.walk_parts);
    hkl_set_int(L, "walk_rewalked", (lua_Integer)s.walk_rewalked);
    return 1;
}

static int dump_tostring(lua_State *L)
{
    hkl_dump *u = lua_touserdata(L, 1);
    lua_pushfstring(L, "hk.Dump(%s)", u->d ? hk_dump_path(u->d) : "closed");
    return 1;
}

void hkl_open_dump(lua_State *L)
{
    static const luaL_Reg methods[] = {
        {"info", dump_info},       {"classes", dump_classes},         {"class", dump_class}, {"object", dump_object},
        {"objects", dump_objects}, {"index_stats", dump_index_stats}, {"close", dump_gc},    {NULL, NULL}};
    static const luaL_Reg props[] = {{"path", dump_path}, {NULL, NULL}};
    static const luaL_Reg meta[] = {
        {"__gc", dump_gc}, {"__close", dump_gc}, {"__tostring", dump_tostring}, {NULL, NULL}};
    hkl_new_type(L, HKL_DUMP, methods, props, meta);
}
