/* What the Lua types over the index share (lua_ref.c, lua_dump.c, lua_class.c, lua_object.c):
 * their metatables, the Dump behind a userdata, and field values read from instance records.
 * Private to the type files of core/lua: the module files use lua_host.h. */
#ifndef HK_LUA_REF_H
#define HK_LUA_REF_H

#include "lua/lua_host.h"

/* A type's metatable: methods (x:name()) and props (x.name, getters) tables looked up by its
 * __index, and the metamethods in meta. */
void hkl_new_type(lua_State *L, const char *name, const luaL_Reg *methods, const luaL_Reg *props, const luaL_Reg *meta);
/* The Dump userdata at idx, or NULL when it is something else (open or closed). */
hkl_dump *hkl_test_dump(lua_State *L, int idx);
/* __eq of Class and Object: the same index of the same dump. */
int hkl_ref_eq(lua_State *L);

/* A field of class cls (or a superclass) by name or obfuscated name, cached by the Lua
 * string's address: name must be a string Lua keeps alive. */
const hk_field *hkl_find_field(hk_dump *d, uint32_t cls, const char *name);
/* Empties the field cache: it points into a dump's classes, which are about to be freed. */
void hkl_forget_fields(void);
/* hkl_push_value with the dump already known (the bulk reads' loop). */
void hkl_push_value_in(lua_State *L, int dump_idx, hk_dump *d, const hk_value *v);
/* Whether class cls or one of its superclasses has this name (or obfuscated name). */
int hkl_class_named(const hk_dump *d, uint32_t cls, const char *name);
/* Pushes a row {name, obfuscated_name, type} of cls:fields(), cls:statics() or obj:fields(),
 * with room for nrec fields; obfuscated_name only where a map renamed the field. */
void hkl_push_field_row(lua_State *L, const char *name, const char *obf, int type, int nrec);

/* Pushes a type's metatable (HKL_OBJECT, ...), for hkl_push_object_of. */
void hkl_push_metatable(lua_State *L, const char *type);
/* Pushes an Object of the open dump owner, whose Dump userdata is at dump_ud_idx and the Object
 * metatable at mt_idx (both upvalues of a loop): the fast path of an iterator, which checks
 * that the dump is open itself. */
void hkl_push_object_of(lua_State *L, int dump_ud_idx, int mt_idx, const hkl_dump *owner, uint32_t obj);

#endif
