/* The plumbing of the Lua types over the index (Dump, Class, Object): metatables with a
 * methods and a props table, checks and pushes.  No heap is copied: a Class or Object is an
 * index plus a reference to its Dump. */
#include "lua/lua_ref.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* Metatables are found by address keys (lua_rawgetp), not by name: this is on the path of
 * every object handed to Lua. */
static char key_dump, key_class, key_object;

/* The metatables' addresses in the state that registered the types last: a type check compares
 * one pointer instead of fetching the metatable from the registry.  Another state (or none
 * registered yet) takes the registry path. */
static struct {
    const lua_State *L;
    const void *mt[3]; /* by key: dump, class, object */
} known;

static int slot_of(const void *key)
{
    return key == &key_dump ? 0 : key == &key_class ? 1 : 2;
}

static void *key_of(const char *type)
{
    return !strcmp(type, HKL_DUMP)    ? (void *)&key_dump
           : !strcmp(type, HKL_CLASS) ? (void *)&key_class
                                      : (void *)&key_object;
}

/* ---- type plumbing: each metatable has `methods` and `props` tables ---- */

static int type_index(lua_State *L)
{
    /* upvalue 1: methods, upvalue 2: props */
    lua_pushvalue(L, 2);
    if (lua_rawget(L, lua_upvalueindex(1)) != LUA_TNIL) return 1;
    lua_pop(L, 1);
    lua_pushvalue(L, 2);
    if (lua_rawget(L, lua_upvalueindex(2)) != LUA_TNIL) {
        /* a getter reads its object at index 1 and pushes one value: run it in this frame
         * rather than through lua_call, which costs as much as the getter itself */
        lua_CFunction getter = lua_tocfunction(L, -1);
        lua_settop(L, 1);
        if (getter) {
            getter(L);
            return 1;
        }
        return luaL_error(L, "internal: property is not a C function");
    }
    return 1; /* nil */
}

void hkl_new_type(lua_State *L, const char *name, const luaL_Reg *methods, const luaL_Reg *props, const luaL_Reg *meta)
{
    luaL_newmetatable(L, name);
    lua_pushvalue(L, -1);
    lua_rawsetp(L, LUA_REGISTRYINDEX, key_of(name));
    if (known.L != L) memset(&known, 0, sizeof known);
    known.L = L;
    known.mt[slot_of(key_of(name))] = lua_topointer(L, -1);
    luaL_setfuncs(L, meta, 0);
    lua_newtable(L);
    luaL_setfuncs(L, methods, 0);
    lua_pushvalue(L, -1);
    lua_setfield(L, -3, "methods");
    lua_newtable(L);
    luaL_setfuncs(L, props, 0);
    lua_pushvalue(L, -1);
    lua_setfield(L, -4, "props");
    lua_pushcclosure(L, type_index, 2);
    lua_setfield(L, -2, "__index");
    lua_pushstring(L, name);
    lua_setfield(L, -2, "__name");
    lua_pop(L, 1);
}

/* Pushes the table (methods or props) of a type to add to. */
static void get_type_table(lua_State *L, const char *type, const char *table)
{
    lua_rawgetp(L, LUA_REGISTRYINDEX, key_of(type));
    if (lua_isnil(L, -1)) luaL_error(L, "internal: unknown type %s", type);
    lua_getfield(L, -1, table);
    lua_remove(L, -2);
}

void hkl_add_method_value(lua_State *L, const char *type, const char *name)
{
    get_type_table(L, type, "methods");
    lua_insert(L, -2);
    lua_setfield(L, -2, name);
    lua_pop(L, 1);
}

void hkl_add_methods(lua_State *L, const char *type, const luaL_Reg *fns)
{
    for (; fns->name; fns++) {
        lua_pushcfunction(L, fns->func);
        hkl_add_method_value(L, type, fns->name);
    }
}

void hkl_add_properties(lua_State *L, const char *type, const luaL_Reg *getters)
{
    get_type_table(L, type, "props");
    luaL_setfuncs(L, getters, 0);
    lua_pop(L, 1);
}

/* ---- checks ---- */

static void *test_type(lua_State *L, int idx, const void *key)
{
    void *u = lua_touserdata(L, idx);
    if (!u || !lua_getmetatable(L, idx)) return NULL;
    const void *want = known.L == L ? known.mt[slot_of(key)] : NULL;
    if (want) {
        int same = lua_topointer(L, -1) == want;
        lua_pop(L, 1);
        return same ? u : NULL;
    }
    lua_rawgetp(L, LUA_REGISTRYINDEX, key);
    int same = lua_rawequal(L, -1, -2);
    lua_pop(L, 2);
    return same ? u : NULL;
}

hkl_dump *hkl_test_dump(lua_State *L, int idx)
{
    return test_type(L, idx, &key_dump);
}

/* The one place a Dump, Class or Object reaches its index: a closed dump is an error. */
static hk_dump *open_dump(lua_State *L, const hkl_dump *owner)
{
    if (!owner->d) hkl_fail(L, "this dump is closed");
    return owner->d;
}

static hkl_ref *check_ref(lua_State *L, int idx, const void *key)
{
    hkl_ref *r = test_type(L, idx, key);
    if (r) open_dump(L, r->owner);
    return r;
}

hk_dump *hkl_check_dump(lua_State *L, int idx)
{
    hkl_dump *hd = test_type(L, idx, &key_dump);
    if (hd) return open_dump(L, hd);
    hkl_ref *r = check_ref(L, idx, &key_object);
    if (!r) r = check_ref(L, idx, &key_class);
    if (!r) luaL_typeerror(L, idx, "dump");
    return r->d;
}

hkl_ref *hkl_check_object(lua_State *L, int idx)
{
    hkl_ref *r = check_ref(L, idx, &key_object);
    if (!r) luaL_typeerror(L, idx, "object");
    return r;
}

hkl_ref *hkl_check_class(lua_State *L, int idx)
{
    hkl_ref *r = check_ref(L, idx, &key_class);
    if (!r) luaL_typeerror(L, idx, "class");
    return r;
}

hk_id hkl_check_id(lua_State *L, int idx)
{
    hkl_ref *r = check_ref(L, idx, &key_object);
    if (r) return hk_obj_id(r->d, r->index);
    if (lua_isinteger(L, idx)) return (hk_id)lua_tointeger(L, idx);
    const char *s = luaL_checkstring(L, idx);
    hk_id id;
    if (hk_parse_id(s, &id) < 0) hkl_usage_error(L, "bad id '%s': give an object id in hex (0x12c04f00) or decimal", s);
    return id;
}

int hkl_ref_eq(lua_State *L)
{
    hkl_ref *a = lua_touserdata(L, 1), *b = lua_touserdata(L, 2);
    lua_pushboolean(L, a && b && a->d == b->d && a->index == b->index);
    return 1;
}

/* ---- pushes ---- */

/* A Dump's user value 1 is itself, so every userdata finds its Dump the same way. */
void hkl_push_dump(lua_State *L, hk_dump *d, int borrowed)
{
    hkl_dump *u = lua_newuserdatauv(L, sizeof *u, 1);
    u->d = d;
    u->borrowed = borrowed;
    lua_pushvalue(L, -1);
    lua_setiuservalue(L, -2, 1);
    lua_rawgetp(L, LUA_REGISTRYINDEX, &key_dump);
    lua_setmetatable(L, -2);
}

/* Pushes the metatable of type key: the one of the userdata at src_idx when it has that type (an
 * Object made from an Object), as the registry lookup costs more than the whole check. */
static void push_type_metatable(lua_State *L, int src_idx, const void *key)
{
    const void *want = known.L == L ? known.mt[slot_of(key)] : NULL;
    if (want && lua_getmetatable(L, src_idx)) {
        if (lua_topointer(L, -1) == want) return;
        lua_pop(L, 1);
    }
    lua_rawgetp(L, LUA_REGISTRYINDEX, key);
}

/* The new userdata is pushed before its Dump is fetched, so the Dump goes straight into its
 * user value (no stack rotation); src_idx moves down by one when relative to the top. */
static void push_ref(lua_State *L, int src_idx, uint32_t index, const void *key)
{
    hkl_ref *r = lua_newuserdatauv(L, sizeof *r, 1);
    if (src_idx < 0 && src_idx > LUA_REGISTRYINDEX) src_idx--;
    lua_getiuservalue(L, src_idx, 1);
    const hkl_dump *owner = lua_touserdata(L, -1);
    r->d = open_dump(L, owner);
    r->owner = owner;
    r->index = index;
    lua_setiuservalue(L, -2, 1);
    push_type_metatable(L, src_idx, key);
    lua_setmetatable(L, -2);
}

void hkl_push_metatable(lua_State *L, const char *type)
{
    lua_rawgetp(L, LUA_REGISTRYINDEX, key_of(type));
}

void hkl_push_object_of(lua_State *L, int dump_ud_idx, int mt_idx, const hkl_dump *owner, uint32_t obj)
{
    hkl_ref *r = lua_newuserdatauv(L, sizeof *r, 1);
    r->d = owner->d;
    r->owner = owner;
    r->index = obj;
    lua_pushvalue(L, dump_ud_idx);
    lua_setiuservalue(L, -2, 1);
    lua_pushvalue(L, mt_idx);
    lua_setmetatable(L, -2);
}

void hkl_push_object(lua_State *L, int dump_idx, uint32_t obj)
{
    if (obj == HK_NONE) lua_pushnil(L);
    else push_ref(L, dump_idx, obj, &key_object);
}

void hkl_push_class(lua_State *L, int dump_idx, uint32_t cls)
{
    if (cls == HK_NONE) lua_pushnil(L);
    else push_ref(L, dump_idx, cls, &key_class);
}

void hkl_push_id(lua_State *L, hk_id id)
{
    char s[24];
    snprintf(s, sizeof s, "0x%" PRIx64, (uint64_t)id);
    lua_pushstring(L, s);
}

void hkl_push_field_row(lua_State *L, const char *name, const char *obf, int type, int nrec)
{
    lua_createtable(L, 0, nrec);
    hkl_set_str(L, "name", name);
    if (obf != name) hkl_set_str(L, "obfuscated_name", obf);
    hkl_set_str(L, "type", hk_type_name(type));
}
