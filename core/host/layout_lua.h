/* The JVM layout in Lua: dump.jvm_layout, and the jvm_layout option of hk.open. */
#ifndef HK_LAYOUT_LUA_H
#define HK_LAYOUT_LUA_H

#include "host/lua_host.h"

/* hk.open's jvm_layout option (table at index opts, or none): resizes d by it.  0, or raises
 * a usage error naming the choice. */
int hkl_open_layout_option(lua_State *L, int opts, hk_dump *d);
void hkl_open_layout(lua_State *L);

#endif
