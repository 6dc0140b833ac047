/* Lua bindings of the device transport: hk.devices(), hk.device(serial). */
#ifndef HK_DEVICE_LUA_H
#define HK_DEVICE_LUA_H

#include <lua.h>

#include "device/device.h"

/* The GC dev:dump_heap runs on API < 27: the host leaves an hk_device_gc (a full userdata) in the
 * Lua registry under this key when a loaded plugin can GC; without one, dumps there go without. */
#define HK_DEVICE_GC_KEY "hk.device_gc"
typedef struct hk_device_gc {
    hk_device_gc_fn fn;
    void *ctx;
} hk_device_gc;

#endif
