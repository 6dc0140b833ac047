/* Opening a dump with its R8/ProGuard map, and the Lua face of deobfuscation:
 * cls.obfuscated_name, obj.allocation_stack. */
#ifndef HK_MAP_LUA_H
#define HK_MAP_LUA_H

#include "lua/lua_host.h"

/* Opens and indexes path and applies a map: map_path when given, else (look_beside) the
 * map beside the dump (DUMP.map, STEM.map), said in a note.  Notes and warnings go to
 * stderr prefixed with who.  On failure returns NULL with err and *status: 1 when the
 * dump failed, 2 when the map given cannot be read (a user error). */
hk_dump *hk_open_mapped(const char *path, const char *map_path, int look_beside, const char *who, int *status,
                        char *err, size_t errlen);

#endif
