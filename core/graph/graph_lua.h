/* Lua bindings of the heap graph (Object:retained_size(), dump:path_to_root(), ...). */
#ifndef HK_GRAPH_LUA_H
#define HK_GRAPH_LUA_H
#include <lua.h>
/* Adds the graph's methods and properties to the Dump and Object types. */
void hkl_open_graph(lua_State *L);
/* dump:histogram and dump:class_retained, with retained bytes per class (histogram_lua.c). */
void hkl_open_histogram(lua_State *L);
/* dump:leak_paths (graph_leakpath_lua.c). */
void hkl_open_leakpath(lua_State *L);
/* obj:retained_count(), obj:holding_roots() (graph_holders_lua.c). */
void hkl_open_holders(lua_State *L);
/* Adds dump:diff(base) and the Diff type (core/graph/diff_lua.c). */
void hkl_open_diff(lua_State *L);
/* cls:ranked_instances{...} (core/graph/graph_rank_lua.c). */
void hkl_open_rank(lua_State *L);
#endif
