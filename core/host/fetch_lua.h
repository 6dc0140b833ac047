/* Live fetchers in Lua (hk.fetch_bitmaps, hk.fetchers, hk.fetch_write) and the GC a dump takes on API < 27. */
#ifndef HK_FETCH_LUA_H
#define HK_FETCH_LUA_H

#include <lua.h>

#include "host/plugin_host.h"

/* Call after the plugins are loaded (needs their fetchers): adds the functions to the global
 * hk table and, when a loaded fetcher can GC, makes `hprofkit dump` on API < 27 run that GC
 * before the dump.  ps must outlive L. */
void hkl_open_fetch(lua_State *L, hk_plugins *ps);

#endif
