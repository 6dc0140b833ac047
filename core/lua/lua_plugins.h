/* The plugins in Lua: hk.plugins() and hk.<plugin>.<function>(...). */
#ifndef HK_PLUGIN_LUA_H
#define HK_PLUGIN_LUA_H

#include <lua.h>

#include "host/plugin_host.h"

/* The hk_plugins that hkl_open_plugins was given (NULL before it ran). */
hk_plugins *hk_plugins_lua_get(lua_State *L);

#endif
