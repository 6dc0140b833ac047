/*
 * The Lua host: one lua_State with the `hk` table, the userdata types that wrap the
 * index (Dump, Class, Object), and the registries of queries and renderers.
 *
 * The module files of core/lua extend the Lua types with method tables (graph:
 * obj:retained_size(); bitmaps: dump:bitmaps(); ...) from one opener each, hkl_open_NAME,
 * listed in lua_open.h and run from lua_modules.c's one table, so the Lua host knows no
 * module by name.
 */
#ifndef HK_LUA_HOST_H
#define HK_LUA_HOST_H

#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>

#include "hprof/hprof.h"

/* Type names, also the metatable names in the registry. */
#define HKL_DUMP   "hk.Dump"
#define HKL_CLASS  "hk.Class"
#define HKL_OBJECT "hk.Object"

/* A Dump userdata: owns the index unless borrowed. */
typedef struct hkl_dump {
    hk_dump *d;
    int borrowed;
} hkl_dump;

/* A Class or Object userdata: an index into the dump; user value 1 is the Dump userdata
 * (owner), which keeps the index alive while any of its objects is reachable from Lua.
 * d is owner->d when the ref was made; it is valid only while owner->d is set, which is
 * what hkl_check_object/hkl_check_class check (a closed dump raises "this dump is closed"). */
typedef struct hkl_ref {
    hk_dump *d;
    const hkl_dump *owner;
    uint32_t index; /* class index for Class, object index for Object */
} hkl_ref;

hk_dump *hkl_check_dump(lua_State *L, int idx);
hkl_ref *hkl_check_object(lua_State *L, int idx);
hkl_ref *hkl_check_class(lua_State *L, int idx);
/* Push a Dump userdata owning d (borrowed=1: not closed by Lua). */
void hkl_push_dump(lua_State *L, hk_dump *d, int borrowed);
/* Push an Object (or nil for HK_NONE) / Class sharing the Dump at stack index dump_idx
 * (a Dump, Object or Class userdata: its dump is used). */
void hkl_push_object(lua_State *L, int dump_idx, uint32_t obj);
void hkl_push_class(lua_State *L, int dump_idx, uint32_t cls);
/* Ids and native pointers go to Lua as lowercase hex strings "0x12c04f00". */
void hkl_push_id(lua_State *L, hk_id id);
/* Accepts an Object, a hex string "0x..", a decimal string or an integer. */
hk_id hkl_check_id(lua_State *L, int idx);
/* Push a field value: number, boolean, String value, Object, or nil. */
void hkl_push_value(lua_State *L, int dump_idx, const hk_value *v);

/* Extension, from a binding file's tables (each ended by {NULL, NULL}): the methods (called as
 * x:name(...)) or properties (x.name, the getter receives the userdata) of one of the types
 * above, and functions of the global hk table; hkl_add_closures gives each function ctx as
 * its one upvalue (the bindings over the loaded plugins).  A binding file ends with its tables
 * and one opener that makes these calls, so its whole Lua surface is in one place. */
void hkl_add_methods(lua_State *L, const char *type, const luaL_Reg *fns);
void hkl_add_properties(lua_State *L, const char *type, const luaL_Reg *getters);
static inline void hkl_add_functions(lua_State *L, const luaL_Reg *fns)
{
    lua_getglobal(L, "hk");
    luaL_setfuncs(L, fns, 0);
    lua_pop(L, 1);
}
static inline void hkl_add_closures(lua_State *L, const luaL_Reg *fns, void *ctx)
{
    lua_getglobal(L, "hk");
    lua_pushlightuserdata(L, ctx);
    luaL_setfuncs(L, fns, 1);
    lua_pop(L, 1);
}
/* A method written in Lua, the function on top of the stack (popped): hk.dump_method. */
void hkl_add_method_value(lua_State *L, const char *type, const char *name);

/* Fields of the table at the top of the stack, t[k] = v.  hkl_set_str with NULL leaves the
 * key absent; hkl_set_str_or_null sets hk.null (JSON null), for a key every row shows. */
static inline void hkl_set_int(lua_State *L, const char *k, lua_Integer v)
{
    lua_pushinteger(L, v);
    lua_setfield(L, -2, k);
}
static inline void hkl_set_num(lua_State *L, const char *k, lua_Number v)
{
    lua_pushnumber(L, v);
    lua_setfield(L, -2, k);
}
static inline void hkl_set_bool(lua_State *L, const char *k, int v)
{
    lua_pushboolean(L, v);
    lua_setfield(L, -2, k);
}
static inline void hkl_set_str(lua_State *L, const char *k, const char *v)
{
    lua_pushstring(L, v); /* nil for NULL */
    lua_setfield(L, -2, k);
}
/* s, or NULL when it is empty: for text where "" means none. */
static inline const char *hkl_nonempty(const char *s)
{
    return s && *s ? s : NULL;
}
static inline void hkl_push_null(lua_State *L)
{
    lua_getfield(L, LUA_REGISTRYINDEX, "hk.null");
}
static inline void hkl_set_str_or_null(lua_State *L, const char *k, const char *v)
{
    if (v) lua_pushstring(L, v);
    else hkl_push_null(L);
    lua_setfield(L, -2, k);
}

/* A userdata type's metatable, registered under name: x:m() finds m in methods (kept at
 * mt.methods too, for an __index of the type's own, given in meta, to fall back to); meta
 * holds the metamethods (__gc, __tostring, ...).  Leaves the stack as it was. */
static inline void hkl_new_metatable(lua_State *L, const char *name, const luaL_Reg *methods, const luaL_Reg *meta)
{
    luaL_newmetatable(L, name);
    lua_newtable(L);
    luaL_setfuncs(L, methods, 0);
    lua_pushvalue(L, -1);
    lua_setfield(L, -3, "methods");
    lua_setfield(L, -2, "__index");
    luaL_setfuncs(L, meta, 0);
    lua_pop(L, 1);
}

/* JSON text to Lua values (null -> hk.null); pushes the value or returns -1 with err. */
int hkl_push_json(lua_State *L, const char *text, size_t len, char *err, size_t errlen);
/* hk.json_encode(value[, key_order[, compact]]): Lua values to JSON text (lua_json_encode.c). */
int hkl_json_encode(lua_State *L);
/* luaL_loadfile with the compiled chunk kept between runs for the files under the folder
 * hkl_use_chunk_cache names (the built-in scripts), which also makes require's Lua-file
 * searcher use it (lua_chunk_cache.c). */
int hkl_load_file_cached(lua_State *L, const char *path);
void hkl_use_chunk_cache(lua_State *L, const char *scripts_dir);

/* The host */
typedef struct hkl_host hkl_host;
hkl_host *hkl_host_new(char *err, size_t errlen);
void hkl_host_free(hkl_host *h);
lua_State *hkl_host_state(hkl_host *h);

#endif

#ifndef HK_LUA_HOST_EXTRA
#define HK_LUA_HOST_EXTRA
/* Load a scripts folder as a new layer (lua_scripts.c: renderers/, commands/, leak_rules/,
 * lib/ for require, the old flat layout); errors are printed and loading goes on.  Returns
 * the number of scripts that failed. */
int hkl_host_load_dir(hkl_host *h, const char *dir);
int hkl_scripts_load_dir(hkl_host *h, const char *dir);
/* Run one script at start, registrations open for it; -1 (said on stderr) when it failed. */
int hkl_host_load_file(hkl_host *h, const char *path);
/* Run a script file ("-": standard input) with arguments table at stack top (popped); 0 ok,
 * or -1 with the error value left at stack top (see hkl_error_kind). */
int hkl_host_run_file(hkl_host *h, const char *path);
/* lua_pcall with a traceback; on error the message (with traceback) is left on the stack.
 * The outermost one runs within the script time limit (lua_limit.c). */
int hkl_pcall(lua_State *L, int nargs, int nresults);
/* lua_limit.c: the time limit for scripts (seconds, 0 none; --lua-time-limit, else
 * HPROFKIT_LUA_TIME_LIMIT); enter/leave bracket a call (the outermost starts the clock); left:
 * seconds before the limit (HUGE_VAL: none); check raises the one-line error once past it. */
int hkl_time_limit_set(const char *seconds, char *err, size_t errlen);
double hkl_time_limit(void);
void hkl_limit_enter(lua_State *L);
/* enter with a caller's own limit (0: none) and the words that tell its user how to change it */
void hkl_limit_enter_with(lua_State *L, double seconds, const char *hint);
void hkl_limit_leave(lua_State *L);
double hkl_limit_left(void);
void hkl_limit_check(lua_State *L);
/* Push the registry table of queries / renderers (name -> definition). */
void hkl_push_queries(lua_State *L);
void hkl_push_renderers(lua_State *L);
/* Errors a query raises at its user: hk.usage_error(msg) (from C: hkl_usage_error) raises
 * an error object the CLI turns into one line and exit 2.  hkl_error_kind classifies a
 * caught error value: a usage error, a message meant for the user (error(msg, 0): no
 * script location, exit 1), or a bug in a script (a location and a traceback). */
enum { HKL_ERR_USAGE = 2, HKL_ERR_USER = 1, HKL_ERR_SCRIPT = 0 };
int hkl_usage_error(lua_State *L, const char *fmt, ...);
/* Raises a failure of the dump, device or plugin as its message alone (no script location):
 * one line, exit 1, like error(msg, 0). */
int hkl_fail(lua_State *L, const char *fmt, ...);
int hkl_error_kind(lua_State *L, int idx);
/* The error's text: the message (with the traceback hkl_pcall added, for a script bug). */
const char *hkl_error_text(lua_State *L, int idx);
/* A query's args as the CLI gives them: a copy of its declared defaults (a list default `{}`
 * becomes a new array), then the values of the table at given_idx (0: none) over them.
 * Pushes the table; raises a usage error for a key the query does not declare. */
void hkl_query_args(lua_State *L, int def_idx, int given_idx);
/* Opens every binding in lua_modules.c's table (the types, then the modules that extend them). */
void hkl_open_modules(lua_State *L);
/* Opens the bindings over the plugins (hk.plugins(), hk.fetch_bitmaps, ...) once they are loaded. */
struct hk_plugins;
void hkl_open_plugin_modules(lua_State *L, struct hk_plugins *ps);
#endif

#ifndef HK_LUA_REGISTRY
#define HK_LUA_REGISTRY
#include "host/registry.h"
/* The one registry (registry.h) Lua entries join, set by the plugin host's Lua face; the Lua
 * value of an entry stays in a Lua table under the same name. */
void hkl_set_registry(lua_State *L, hk_registry *r);
hk_registry *hkl_registry(lua_State *L);
/* Registers an entry of kind for the script that is loading; raises the registry's refusal
 * (registration closed, the name taken) as a Lua error, reports a replacement as a note. */
hk_reg_entry *hkl_register(lua_State *L, enum hk_reg_kind kind, const char *name, const char *help);
#endif

#ifndef HK_LUA_WRITER
#define HK_LUA_WRITER
/* A writer userdata over a buffer: out:write(s, ...) appends; the buffer must outlive it
 * (hkl_writer_detach makes later writes an error). */
void hkl_push_writer(lua_State *L, hk_buf *b);
void hkl_writer_detach(lua_State *L, int idx);
#endif
