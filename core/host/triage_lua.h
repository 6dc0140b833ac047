#ifndef HK_TRIAGE_LUA_H
#define HK_TRIAGE_LUA_H
#include <lua.h>
/* Adds dump:duplicates(), dump:sha256(), hk.png_thumbnail(), hk.base64() (from lua_modules.c). */
void hkl_open_triage(lua_State *L);
#endif
