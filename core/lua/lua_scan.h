/* Whether a script's text registers anything (see lua_scan.c). */
#ifndef HK_LUA_SCAN_H
#define HK_LUA_SCAN_H
#include <stddef.h>

/* 1 when the code (not comments or strings) names a registration call: hk.query,
 * hk.renderer, hk.watcher, hk.leak_finder, hk.inspector, hk.reference_matcher,
 * hk.bitmap_source, hk.dump_method or hk.watch_signals; else 0. */
int hkl_script_registers(const char *text, size_t n);

#endif
