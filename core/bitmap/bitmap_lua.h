/* Bitmaps in Lua (bitmap_lua.c): dump:bitmaps(), dump:bitmap_image(id), dump:bitmap_scan{},
 * dump:bitmap_counts() and hk.bitmap_source{}.  Called from core/host/lua_modules.c. */
#ifndef HK_BITMAP_LUA_H
#define HK_BITMAP_LUA_H

#include <lua.h>

void hkl_open_bitmap(lua_State *L);

#endif
