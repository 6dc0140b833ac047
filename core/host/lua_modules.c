/* Every Lua binding of the core, opened from one table, so the Lua host names no module.
 * Each binding file has one opener, hkl_open_NAME. */
#include "host/lua_host.h"
#include "host/lua_ref.h"
#include "bitmap/bitmap_lua.h"
#include "device/device_lua.h"
#include "graph/graph_lua.h"
#include "host/fetch_lua.h"
#include "host/layout_lua.h"
#include "host/map_lua.h"
#include "host/plugin_lua.h"
#include "trace/trace_lua.h"
#include "host/triage_lua.h"
#include "host/native_lua.h"

/* The types first (the modules add methods to them), then hk.query{} and its kin, then the
 * modules. */
static void (*const openers[])(lua_State *L) = {
    hkl_open_dump,   hkl_open_class,     hkl_open_object,   hkl_open_query,  hkl_open_device,
    hkl_open_graph,  hkl_open_histogram, hkl_open_leakpath, hkl_open_diff,   hkl_open_bitmap,
    hkl_open_clock,  hkl_open_map,       hkl_open_trace,    hkl_open_sqlite, hkl_open_triage,
    hkl_open_native, hkl_open_holders,   hkl_open_layout,   hkl_open_rank,
};

/* The bindings over the loaded plugins: opened once they are loaded. */
static void (*const plugin_openers[])(lua_State *L, hk_plugins *ps) = {hkl_open_plugins, hkl_open_fetch};

void hkl_open_modules(lua_State *L)
{
    for (size_t i = 0; i < sizeof openers / sizeof *openers; i++) openers[i](L);
}

void hkl_open_plugin_modules(lua_State *L, hk_plugins *ps)
{
    for (size_t i = 0; i < sizeof plugin_openers / sizeof *plugin_openers; i++) plugin_openers[i](L, ps);
}
