/* hk.native_profile(path [, {map = FILE}]): the native heap profiles of a trace (heapprofd) as
 * plain tables: frames, call stacks (frame numbers, the outermost caller first) and dumps with
 * their samples; the queries aggregate them (scripts/commands/native*.lua). */
#include "lua/lua_host.h"
#include "map/map.h"
#include "native/native.h"
#include "lua/lua_open.h"

#include <errno.h>
#include <lauxlib.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void push_frames(lua_State *L, const hk_native_profile *p)
{
    lua_createtable(L, (int)p->nframes, 0);
    for (size_t i = 0; i < p->nframes; i++) {
        const hk_native_frame *f = &p->frames[i];
        lua_createtable(L, 0, 7);
        hkl_set_str_or_null(L, "name", f->function);
        hkl_set_str_or_null(L, "raw_name", f->raw_name);
        hkl_set_str_or_null(L, "module", f->module);
        hkl_set_str_or_null(L, "source", f->source);
        if (f->line) hkl_set_int(L, "line", f->line);
        hkl_set_int(L, "rel_pc", (lua_Integer)f->rel_pc);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
}

static void push_stacks(lua_State *L, const hk_native_profile *p)
{
    lua_createtable(L, (int)p->nstacks, 0);
    for (size_t i = 0; i < p->nstacks; i++) {
        const hk_native_stack *s = &p->stacks[i];
        lua_createtable(L, (int)s->n, 0);
        for (uint32_t k = 0; k < s->n; k++) {
            lua_pushinteger(L, (lua_Integer)p->stack_frames[s->first + k] + 1);
            lua_rawseti(L, -2, k + 1);
        }
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
}

static void push_samples(lua_State *L, const hk_native_dump *d)
{
    lua_createtable(L, (int)d->n, 0);
    for (size_t i = 0; i < d->n; i++) {
        const hk_native_sample *s = &d->samples[i];
        lua_createtable(L, 0, 7);
        hkl_set_int(L, "stack", (lua_Integer)s->stack + 1);
        hkl_set_int(L, "alloc_bytes", (lua_Integer)s->alloc_bytes);
        hkl_set_int(L, "alloc_count", (lua_Integer)s->alloc_count);
        hkl_set_int(L, "freed_bytes", (lua_Integer)s->freed_bytes);
        hkl_set_int(L, "free_count", (lua_Integer)s->free_count);
        hkl_set_int(L, "max_bytes", (lua_Integer)s->max_bytes);
        hkl_set_int(L, "max_count", (lua_Integer)s->max_count);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
}

static void push_dumps(lua_State *L, const hk_native_profile *p)
{
    lua_createtable(L, (int)p->ndumps, 0);
    for (size_t i = 0; i < p->ndumps; i++) {
        const hk_native_dump *d = &p->dumps[i];
        lua_createtable(L, 0, 14);
        hkl_set_int(L, "pid", d->pid);
        hkl_set_str_or_null(L, "process", hk_native_process_name(p, d->pid));
        hkl_set_str(L, "heap", d->heap);
        hkl_set_int(L, "ts", (lua_Integer)d->ts);
        if (d->start_ts) hkl_set_int(L, "start_ts", (lua_Integer)d->start_ts);
        hkl_set_int(L, "sampling_interval", (lua_Integer)d->sampling_interval);
        hkl_set_bool(L, "at_max", d->at_max);
        hkl_set_bool(L, "from_startup", d->from_startup);
        hkl_set_bool(L, "rejected_concurrent", d->rejected_concurrent);
        hkl_set_bool(L, "disconnected", d->disconnected);
        hkl_set_bool(L, "buffer_overran", d->buffer_overran);
        hkl_set_bool(L, "buffer_corrupted", d->buffer_corrupted);
        hkl_set_bool(L, "hit_guardrail", d->hit_guardrail);
        push_samples(L, d);
        lua_setfield(L, -2, "samples");
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
}

static void push_profile(lua_State *L, hk_native_profile *p)
{
    lua_createtable(L, 0, 7);
    hkl_set_int(L, "packets", (lua_Integer)p->packets);
    hkl_set_int(L, "profile_packets", (lua_Integer)p->profile_packets);
    hkl_set_int(L, "warnings", p->warnings);
    hkl_set_str(L, "notes", hk_buf_cstr(&p->notes));
    push_frames(L, p);
    lua_setfield(L, -2, "frames");
    push_stacks(L, p);
    lua_setfield(L, -2, "stacks");
    push_dumps(L, p);
    lua_setfield(L, -2, "dumps");
}

static int l_native_profile(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    const char *map_path = NULL;
    if (lua_istable(L, 2) && lua_getfield(L, 2, "map") == LUA_TSTRING) map_path = lua_tostring(L, -1);
    char err[512];
    struct stat st; /* a file the user named that is not there, or a map that cannot be read: exit 2 */
    if (stat(path, &st) != 0) return hkl_usage_error(L, "%s: %s", path, strerror(errno));
    hk_map *map = NULL;
    if (map_path && !(map = hk_map_load(map_path, err, sizeof err))) return hkl_usage_error(L, "%s", err);
    hk_native_profile p;
    int rc = hk_native_read_file(path, map, &p, err, sizeof err);
    if (map) hk_map_free(map);
    if (rc < 0) return hkl_fail(L, "%s", err);
    push_profile(L, &p);
    hk_native_free(&p);
    return 1;
}

static const luaL_Reg hk_funcs[] = {
    {"native_profile", l_native_profile},
    {NULL, NULL},
};

void hkl_open_native(lua_State *L)
{
    hkl_add_functions(L, hk_funcs);
}
