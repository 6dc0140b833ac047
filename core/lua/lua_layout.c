/* dump.jvm_layout -> {name, jvm, header_bytes, reference_bytes, alignment_bytes, jdk, chosen, why}:
 * how the dump's objects are sized (core/hprof/hprof_layout.h); the byte counts are nil when
 * the sizes are the dump's own. */
#include "lua/lua_layout.h"
#include "hprof/hprof_layout.h"
#include "lua/lua_open.h"

#include <stdio.h>

static int dump_jvm_layout(lua_State *L)
{
    const hk_layout_info *in = hk_dump_layout(hkl_check_dump(L, 1));
    lua_createtable(L, 0, 9);
    hkl_set_str(L, "name", in->name);
    hkl_set_bool(L, "jvm", in->jvm);
    if (in->jvm) {
        hkl_set_int(L, "header_bytes", in->layout.header);
        hkl_set_int(L, "reference_bytes", in->layout.ref);
        hkl_set_int(L, "alignment_bytes", in->layout.align);
        hkl_set_int(L, "array_header_bytes", hk_layout_array_base(&in->layout, 4));
        hkl_set_int(L, "jdk", in->jdk);
    }
    hkl_set_str(L, "chosen", in->chosen);
    hkl_set_str(L, "why", in->why);
    return 1;
}

int hkl_open_layout_option(lua_State *L, int opts, hk_dump *d)
{
    if (lua_isnoneornil(L, opts)) return 0;
    int t = lua_getfield(L, opts, "jvm_layout");
    if (t == LUA_TNIL) {
        lua_pop(L, 1);
        return 0;
    }
    char err[400];
    const char *choice = lua_tostring(L, -1);
    if (t != LUA_TSTRING || hk_dump_set_layout(d, choice, err, sizeof err) < 0) {
        if (t != LUA_TSTRING) snprintf(err, sizeof err, "hk.open: 'jvm_layout' must be a string");
        hk_dump_close(d);
        return hkl_usage_error(L, "%s", err);
    }
    lua_pop(L, 1);
    return 0;
}

static const luaL_Reg dump_props[] = {
    {"jvm_layout", dump_jvm_layout},
    {NULL, NULL},
};

void hkl_open_layout(lua_State *L)
{
    hkl_add_properties(L, HKL_DUMP, dump_props);
}
