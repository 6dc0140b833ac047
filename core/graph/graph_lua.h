/* Lua bindings of the heap graph (Object:retained_size(), dump:path_to_root(), ...). */
#ifndef HK_GRAPH_LUA_H
#define HK_GRAPH_LUA_H
#include <lua.h>
/* Adds the graph's methods and properties to the Dump and Object types. */
void hk_graph_lua_open(lua_State *L);
/* dump:leak_paths (graph_leakpath_lua.c), called by hk_graph_lua_open. */
void hk_graph_leakpath_lua_open(lua_State *L);
#endif
