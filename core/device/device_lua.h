/* Lua bindings of the device transport: hk.devices(), hk.device(serial). */
#ifndef HK_DEVICE_LUA_H
#define HK_DEVICE_LUA_H

#include <lua.h>

/* Adds devices and device to the table at hk_table_index.  Returns 0. */
int hk_device_lua_register(lua_State *L, int hk_table_index);

#endif
