/* The mapped names and allocation stacks in Lua (dumps are opened with their maps by
 * core/open). */
#include "lua/lua_host.h"
#include "hprof/hprof_view.h"
#include "lua/lua_open.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cls_obfuscated_name(lua_State *L)
{
    hkl_ref *r = hkl_check_class(L, 1);
    lua_pushstring(L, hk_view(r->d)->classes[r->index].obf_name);
    return 1;
}

/* obj.allocation_stack -> { {class=, method=, file=, line=, inlined=}, ... } innermost
 * first, or nil when the dump has no stack for it */
static int obj_allocation_stack(lua_State *L)
{
    hkl_ref *r = hkl_check_object(L, 1);
    uint32_t n;
    hk_frame *f = hk_obj_allocation_stack(r->d, r->index, &n);
    if (!f) {
        lua_pushnil(L);
        return 1;
    }
    lua_createtable(L, (int)n, 0);
    for (uint32_t i = 0; i < n; i++) {
        lua_createtable(L, 0, 5);
        lua_pushlstring(L, f[i].class_name, f[i].class_len);
        lua_setfield(L, -2, "class");
        lua_pushlstring(L, f[i].method, f[i].method_len);
        lua_setfield(L, -2, "method");
        if (f[i].file) {
            lua_pushlstring(L, f[i].file, f[i].file_len);
            lua_setfield(L, -2, "file");
        }
        hkl_set_int(L, "line", f[i].line);
        hkl_set_bool(L, "inlined", f[i].inlined);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    free(f);
    return 1;
}

/* dump.map -> the path of the map applied to its names, or nil */
static int dump_map(lua_State *L)
{
    hk_dump *d = hkl_check_dump(L, 1);
    const hk_map *map = hk_dump_map(d);
    if (map) lua_pushstring(L, map->path);
    else lua_pushnil(L);
    return 1;
}

/* hk.read_map(path) -> {path, classes, members, map_id, warnings = {lines}, malformed = n}:
 * what a mapping file holds, without a dump (checking a map; timing the parser) */
static int l_read_map(lua_State *L)
{
    char err[512];
    hk_map *m = hk_map_load(luaL_checkstring(L, 1), err, sizeof err);
    if (!m) return hkl_fail(L, "cannot read the map: %s", err);
    lua_createtable(L, 0, 6);
    hkl_set_str(L, "path", m->path);
    hkl_set_int(L, "classes", m->nclasses);
    hkl_set_int(L, "members", m->nmembers);
    if (m->map_id) hkl_set_str(L, "map_id", m->map_id);
    hkl_set_int(L, "malformed", m->nwarnings);
    lua_newtable(L);
    const char *s = (const char *)m->warnings.data, *end = s + m->warnings.len;
    for (lua_Integer i = 1; s < end; i++) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        if (!nl) nl = end;
        lua_pushlstring(L, s, (size_t)(nl - s));
        lua_rawseti(L, -2, i);
        s = nl + 1;
    }
    lua_setfield(L, -2, "warnings");
    hk_map_free(m);
    return 1;
}

/* hk.map_beside(dump_path) -> the map a dump would pick up beside it (DUMP.map, STEM.map), or
 * nil: diff chooses each side's map from both dumps' */
static int l_map_beside(lua_State *L)
{
    char path[4096];
    if (hk_map_beside(luaL_checkstring(L, 1), path, sizeof path)) lua_pushstring(L, path);
    else lua_pushnil(L);
    return 1;
}

static const luaL_Reg hk_funcs[] = {
    {"map_beside", l_map_beside},
    {"read_map", l_read_map},
    {NULL, NULL},
};

static const luaL_Reg class_props[] = {
    {"obfuscated_name", cls_obfuscated_name},
    {NULL, NULL},
};

static const luaL_Reg object_props[] = {
    {"allocation_stack", obj_allocation_stack},
    {NULL, NULL},
};

static const luaL_Reg dump_props[] = {
    {"map", dump_map},
    {NULL, NULL},
};

void hkl_open_map(lua_State *L)
{
    hkl_add_functions(L, hk_funcs);
    hkl_add_properties(L, HKL_CLASS, class_props);
    hkl_add_properties(L, HKL_OBJECT, object_props);
    hkl_add_properties(L, HKL_DUMP, dump_props);
}
