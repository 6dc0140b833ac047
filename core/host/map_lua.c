/* Dumps opened with their maps; the mapped names and allocation stacks in Lua. */
#include "host/map_lua.h"
#include "hprof/hprof_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void print_lines(const char *who, const hk_buf *b)
{
    const char *s = (const char *)b->data, *end = s + b->len;
    while (s < end) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        if (!nl) nl = end;
        fprintf(stderr, "%s: %.*s\n", who, (int)(nl - s), s);
        s = nl + 1;
    }
}

hk_dump *hk_open_mapped(const char *path, const char *map_path, int look_beside, const char *who, int *status,
                        char *err, size_t errlen)
{
    char beside[4096], what[300];
    hk_map *map = NULL;
    if (!map_path && look_beside && hk_map_beside(path, beside, sizeof beside)) {
        map_path = beside;
        fprintf(stderr, "%s: note: using the map %s found beside the dump (--map FILE to choose another)\n", who,
                beside);
    }
    if (map_path && !(map = hk_map_load(map_path, what, sizeof what))) {
        snprintf(err, errlen, "cannot read the map: %s", what);
        *status = 2;
        return NULL;
    }
    snprintf(what, sizeof what, "indexing %s", path);
    hk_dump *d = hk_dump_open(path, hk_progress_index, what, err, errlen);
    if (!d) {
        hk_map_free(map);
        *status = 1;
        return NULL;
    }
    if (map) {
        hk_buf notes;
        hk_buf_init(&notes);
        int rc = hk_dump_apply_map(d, map, &notes, err, errlen);
        print_lines(who, &notes);
        hk_buf_free(&notes);
        if (rc < 0) {
            hk_dump_close(d);
            *status = 2;
            return NULL;
        }
    }
    return d;
}

static int cls_obfuscated_name(lua_State *L)
{
    hkl_ref *r = hkl_check_class(L, 1);
    lua_pushstring(L, r->d->classes[r->index].obf_name);
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
    if (d->map) lua_pushstring(L, d->map->path);
    else lua_pushnil(L);
    return 1;
}

/* hk.read_map(path) -> {path, classes, members, map_id, warnings = {lines}, malformed = n}:
 * what a mapping file holds, without a dump (checking a map; timing the parser) */
static int l_read_map(lua_State *L)
{
    char err[512];
    hk_map *m = hk_map_load(luaL_checkstring(L, 1), err, sizeof err);
    if (!m) return luaL_error(L, "cannot read the map: %s", err);
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

void hkl_open_map(lua_State *L)
{
    hkl_add_function(L, "map_beside", l_map_beside);
    hkl_add_function(L, "read_map", l_read_map);
    hkl_add_property(L, HKL_CLASS, "obfuscated_name", cls_obfuscated_name);
    hkl_add_property(L, HKL_OBJECT, "allocation_stack", obj_allocation_stack);
    hkl_add_property(L, HKL_DUMP, "map", dump_map);
}
