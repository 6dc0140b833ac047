#ifndef HK_NATIVE_LUA_H
#define HK_NATIVE_LUA_H
#include <lua.h>
/* Adds hk.native_profile() (from lua_modules.c). */
void hkl_open_native(lua_State *L);
#endif
