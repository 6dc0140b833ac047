/* Lua bindings of the device transport: hk.devices(), hk.device(serial). */
#ifndef HK_DEVICE_LUA_H
#define HK_DEVICE_LUA_H

#include <lua.h>

/* Adds devices and device to the global hk table. */
void hkl_open_device(lua_State *L);

#endif
