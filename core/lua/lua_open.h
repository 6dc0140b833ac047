/* The openers of the Lua wing, one per binding file, in the order lua_modules.c's one table
 * runs them: the types first (the modules add methods to them).  This list is also where to
 * look for "where is dump:X?": each line names what its file adds. */
#ifndef HK_LUA_OPEN_H
#define HK_LUA_OPEN_H

#include <lua.h>

struct hk_plugins;

/* the types over the index */
void hkl_open_dump(lua_State *L);   /* lua_dump.c: the Dump type, dump:info() ... dump:histogram() */
void hkl_open_class(lua_State *L);  /* lua_class.c: the Class type */
void hkl_open_object(lua_State *L); /* lua_object.c: the Object type */
/* the host's own */
void hkl_open_query(lua_State *L); /* lua_query.c: hk.query{}, hk.run, hk.usage_error */
void hkl_open_clock(lua_State *L); /* lua_clock.c: hk.clock, hk.sleep, hk.trap_interrupt, hk.interrupted */
/* the modules, each over one feature folder */
void hkl_open_device(lua_State *L); /* lua_device.c: hk.devices(), hk.device(serial) */
void hkl_open_graph(lua_State *L);  /* lua_graph.c: obj:retained_size() ..., dump:path_to_root() ... */
void hkl_open_histogram(
    lua_State *L); /* lua_histogram.c: dump:histogram(), dump:class_retained(), dump:class_native() */
void hkl_open_leakpath(lua_State *L); /* lua_leakpath.c: dump:leak_paths(), root_columns, root_object */
void hkl_open_holders(lua_State *L);  /* lua_holders.c: obj:retained_count(), obj:holding_roots() */
void hkl_open_rank(lua_State *L);     /* lua_rank.c: cls:ranked_instances{} */
void hkl_open_diff(lua_State *L);     /* lua_diff.c: dump:diff(base) and the Diff type */
void hkl_open_bitmap(lua_State *L);   /* lua_bitmap.c: dump:bitmaps() ..., hk.bitmap_source{} */
void hkl_open_map(lua_State *L);      /* lua_map.c: hk.read_map, cls.obfuscated_name, dump.map ... */
void hkl_open_layout(lua_State *L);   /* lua_layout.c: dump.jvm_layout (hk.open's jvm_layout: lua_layout.h) */
void hkl_open_trace(lua_State *L);    /* lua_trace.c: dump:write_perfetto{} */
void hkl_open_sqlite(lua_State *L);   /* lua_sqlite.c: hk.sqlite_open */
void hkl_open_triage(lua_State *L);   /* lua_triage.c: dump:duplicates(), dump:sha256(), hk.base64 ... */
void hkl_open_native(lua_State *L);   /* lua_native.c: hk.native_profile() */
/* over the loaded plugins, opened once they are loaded (ps must outlive L) */
void hkl_open_plugins(lua_State *L, struct hk_plugins *ps); /* lua_plugins.c: hk.plugins(), hk.<plugin>.* */
void hkl_open_fetch(lua_State *L, struct hk_plugins *ps);   /* lua_fetch.c: hk.fetch_bitmaps ... */

#endif
