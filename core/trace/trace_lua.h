/* Traces in Lua (trace_lua.c): dump:write_perfetto{}.  Called from core/host/lua_modules.c. */
#ifndef HK_TRACE_LUA_H
#define HK_TRACE_LUA_H

#include <lua.h>

void hkl_open_trace(lua_State *L);

#endif
