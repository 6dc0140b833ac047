/* The Object type in Lua (obj.id, obj.class, ..., obj:field(), obj:ref(), obj:fields(),
 * arr:at(), arr:id_at(), arr:bytes(), arr:text()) and the reading of field values the Class type shares. */
#include "lua/lua_ref.h"
#include "hprof/hprof_view.h"
#include "lua/lua_open.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* ---- field values ---- */

/* Field lookups by name, cached by (class, the Lua string's address): a query reads the same
 * field of many instances.  A hit is confirmed with one strcmp, as the address may be reused. */
typedef struct field_slot {
    const hk_dump *d;
    uint32_t cls;
    const char *key;
    const hk_field *f;
} field_slot;
static field_slot field_cache[256];

void hkl_forget_fields(void)
{
    memset(field_cache, 0, sizeof field_cache);
}

const hk_field *hkl_find_field(hk_dump *d, uint32_t cls, const char *name)
{
    field_slot *s = &field_cache[((uintptr_t)name >> 4 ^ cls * 31u) & 255];
    if (s->d == d && s->cls == cls && s->key == name && (!strcmp(s->f->name, name) || !strcmp(s->f->obf_name, name)))
        return s->f;
    uint32_t n;
    const hk_field *all = hk_class_layout(d, &hk_view(d)->classes[cls], &n);
    const hk_field *f = hk_field_named(all, n, name);
    if (f) {
        s->d = d;
        s->cls = cls;
        s->key = name;
        s->f = f;
    }
    return f;
}

/* The class index of an instance record by its class id, through a small cache: field reads
 * go through many instances of few classes.  An entry is confirmed against the dump's own
 * class table, so one left by a closed dump is never believed. */
static uint32_t instance_class(const hk_dump *d, const uint8_t *rec)
{
    static struct {
        const hk_dump *d;
        hk_id cid;
        uint32_t cls;
    } cache[64];
    hk_id cid = hk_rec_instance_class(d, rec);
    size_t k = (size_t)(cid >> 3 ^ cid >> 9) & 63;
    uint32_t c = cache[k].cls;
    if (cache[k].d == d && cache[k].cid == cid && c < hk_view(d)->nclasses && hk_view(d)->classes[c].id == cid)
        return c;
    uint32_t *cp = hk_idmap_get(&hk_view(d)->class_by_id, cid);
    c = cp ? *cp : HK_NONE;
    cache[k].d = d;
    cache[k].cid = cid;
    cache[k].cls = c;
    return c;
}

/* Pushes the text of object o when it is a String (1), else nothing (0). */
static int push_if_string(lua_State *L, hk_dump *d, uint32_t o)
{
    const uint8_t *rec = hk_obj_record(d, o);
    if (hk_view(d)->string_class == HK_NONE || *rec != HPROF_INSTANCE_DUMP ||
        hk_rec_instance_class(d, rec) != hk_view(d)->classes[hk_view(d)->string_class].id)
        return 0;
    hk_buf b;
    hk_buf_init(&b);
    int ok = hk_string_value(d, o, &b) == 0;
    if (ok) lua_pushlstring(L, b.data ? (const char *)b.data : "", b.len);
    hk_buf_free(&b);
    return ok;
}

void hkl_push_value_in(lua_State *L, int dump_idx, hk_dump *d, const hk_value *v)
{
    switch (v->type) {
    case HK_T_OBJECT: {
        uint32_t o = v->ref ? hk_obj_find(d, v->ref) : HK_NONE;
        if (o == HK_NONE) lua_pushnil(L);
        else if (!push_if_string(L, d, o)) hkl_push_object(L, dump_idx, o);
        return;
    }
    case HK_T_BOOLEAN: lua_pushboolean(L, v->i != 0); return;
    case HK_T_FLOAT:
    case HK_T_DOUBLE: lua_pushnumber(L, v->d); return;
    default: lua_pushinteger(L, v->i); return;
    }
}

void hkl_push_value(lua_State *L, int dump_idx, const hk_value *v)
{
    hkl_push_value_in(L, dump_idx, v->type == HK_T_OBJECT && v->ref ? hkl_check_dump(L, dump_idx) : NULL, v);
}

/* Reads field name of instance obj: 1 found, 0 not */
static int read_field(hk_dump *d, uint32_t obj, const char *name, hk_value *v)
{
    const uint8_t *rec = hk_obj_record(d, obj);
    if (*rec != HPROF_INSTANCE_DUMP) return 0;
    uint32_t len, c = instance_class(d, rec);
    const uint8_t *data = hk_rec_instance_data(d, rec, &len);
    if (c == HK_NONE) return 0;
    const hk_field *f = hkl_find_field(d, c, name);
    if (!f || f->offset + (uint32_t)hk_type_size(d, f->type) > len) return 0;
    hk_read_value(d, data + f->offset, f->type, v);
    return 1;
}

int hkl_class_named(const hk_dump *d, uint32_t cls, const char *name)
{
    for (uint32_t k = cls; k != HK_NONE; k = hk_view(d)->classes[k].super)
        if (!strcmp(hk_view(d)->classes[k].name, name) || !strcmp(hk_view(d)->classes[k].obf_name, name)) return 1;
    return 0;
}

/* ---- Object ---- */

static int obj_id(lua_State *L)
{
    hkl_ref *r = hkl_check_object(L, 1);
    hkl_push_id(L, hk_obj_id(r->d, r->index));
    return 1;
}

static int obj_class(lua_State *L)
{
    hkl_ref *r = hkl_check_object(L, 1);
    hkl_push_class(L, 1, hk_obj_class(r->d, r->index));
    return 1;
}

static int obj_class_name(lua_State *L)
{
    hkl_ref *r = hkl_check_object(L, 1);
    lua_pushstring(L, hk_obj_class_name(r->d, r->index));
    return 1;
}

/* The Class whose class object r is, or NULL when r is not a class object. */
static hk_class *class_of_object(const hkl_ref *r)
{
    return hk_obj_kind(r->d, r->index) == HK_KIND_CLASS ? hk_class_by_id(r->d, hk_obj_id(r->d, r->index)) : NULL;
}

/* obj.label: what a person calls it in a listing: "class a.B" for a class object, else its
 * class name */
static int obj_label(lua_State *L)
{
    hkl_ref *r = hkl_check_object(L, 1);
    hk_class *c = class_of_object(r);
    if (c) lua_pushfstring(L, "class %s", c->name);
    else lua_pushstring(L, hk_obj_class_name(r->d, r->index));
    return 1;
}

static int obj_shallow(lua_State *L)
{
    hkl_ref *r = hkl_check_object(L, 1);
    lua_pushinteger(L, (lua_Integer)hk_obj_shallow_size(r->d, r->index));
    return 1;
}

static int obj_kind(lua_State *L)
{
    static const char *const k[] = {"?", "class", "instance", "object_array", "primitive_array"};
    hkl_ref *r = hkl_check_object(L, 1);
    lua_pushstring(L, k[hk_obj_kind(r->d, r->index)]);
    return 1;
}

static int obj_heap(lua_State *L)
{
    hkl_ref *r = hkl_check_object(L, 1);
    int h = hk_obj_heap(r->d, r->index);
    if (h < 0) lua_pushnil(L);
    else lua_pushstring(L, hk_heap_name(r->d, h));
    return 1;
}

static int obj_length(lua_State *L)
{
    hkl_ref *r = hkl_check_object(L, 1);
    int k = hk_obj_kind(r->d, r->index);
    if (k == HK_KIND_OBJ_ARRAY || k == HK_KIND_PRIM_ARRAY) lua_pushinteger(L, hk_array_length(r->d, r->index));
    else lua_pushnil(L);
    return 1;
}

static int obj_elem_type(lua_State *L)
{
    hkl_ref *r = hkl_check_object(L, 1);
    int k = hk_obj_kind(r->d, r->index);
    if (k == HK_KIND_PRIM_ARRAY) lua_pushstring(L, hk_type_name(hk_prim_array_type(r->d, r->index)));
    else if (k == HK_KIND_OBJ_ARRAY) lua_pushstring(L, "object");
    else lua_pushnil(L);
    return 1;
}

static int obj_value(lua_State *L)
{
    hkl_ref *r = hkl_check_object(L, 1);
    hk_buf b;
    hk_buf_init(&b);
    if (hk_string_value(r->d, r->index, &b) == 0) lua_pushlstring(L, b.data ? (const char *)b.data : "", b.len);
    else lua_pushnil(L);
    hk_buf_free(&b);
    return 1;
}

/* obj:field(name): an instance's field, or a class object's static */
static int obj_field(lua_State *L)
{
    hkl_ref *r = hkl_check_object(L, 1);
    const char *name = luaL_checkstring(L, 2);
    hk_value v;
    if (read_field(r->d, r->index, name, &v)) { /* an instance: the common case, tried first */
        hkl_push_value_in(L, 1, r->d, &v);
        return 1;
    }
    hk_class *c = class_of_object(r);
    const hk_static *s = c ? hk_class_static(c, name) : NULL;
    if (s) hkl_push_value(L, 1, &s->value);
    else lua_pushnil(L);
    return 1;
}

/* obj:ref(name) -> the referenced Object even for a String (obj:field gives its text) */
static int obj_ref(lua_State *L)
{
    hkl_ref *r = hkl_check_object(L, 1);
    hk_value v;
    if (!read_field(r->d, r->index, luaL_checkstring(L, 2), &v) || v.type != HK_T_OBJECT) {
        lua_pushnil(L);
        return 1;
    }
    hkl_push_object(L, 1, v.ref ? hk_obj_find(r->d, v.ref) : HK_NONE);
    return 1;
}

static int obj_fields(lua_State *L)
{
    hkl_ref *r = hkl_check_object(L, 1);
    uint32_t len;
    const uint8_t *data = hk_instance_data(r->d, r->index, &len);
    uint32_t c = hk_obj_class(r->d, r->index);
    lua_newtable(L);
    if (!data || c == HK_NONE) return 1;
    uint32_t n;
    const hk_field *f = hk_class_layout(r->d, &hk_view(r->d)->classes[c], &n);
    for (uint32_t i = 0; i < n; i++) {
        if (f[i].offset + (uint32_t)hk_type_size(r->d, f[i].type) > len) break;
        hk_value v;
        hk_read_value(r->d, data + f[i].offset, f[i].type, &v);
        hkl_push_field_row(L, f[i].name, f[i].obf_name, f[i].type, 4);
        hkl_push_value(L, 1, &v);
        lua_setfield(L, -2, "value");
        if (f[i].type == HK_T_OBJECT) {
            hkl_push_id(L, v.ref);
            lua_setfield(L, -2, "ref");
        }
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

/* arr:at(i), 0-based like Java */
static int obj_at(lua_State *L)
{
    hkl_ref *r = hkl_check_object(L, 1);
    lua_Integer i = luaL_checkinteger(L, 2);
    int kind = hk_obj_kind(r->d, r->index);
    if (kind != HK_KIND_OBJ_ARRAY && kind != HK_KIND_PRIM_ARRAY) return luaL_error(L, "at(): not an array");
    uint32_t n = hk_array_length(r->d, r->index);
    const uint8_t *data = kind == HK_KIND_PRIM_ARRAY ? hk_prim_array_data(r->d, r->index) : NULL;
    if (i < 0 || i >= n || (kind == HK_KIND_PRIM_ARRAY && !data)) {
        lua_pushnil(L);
        return 1;
    }
    hk_value v;
    if (kind == HK_KIND_OBJ_ARRAY) {
        v.type = HK_T_OBJECT;
        v.ref = hk_obj_array_at(r->d, r->index, (uint32_t)i);
    } else {
        int t = hk_prim_array_type(r->d, r->index);
        hk_read_value(r->d, data + (uint64_t)i * (uint64_t)hk_type_size(r->d, t), t, &v);
    }
    hkl_push_value(L, 1, &v);
    return 1;
}

/* arr:id_at(i) -> an object array's element i as an id ("0x0" for null, even when the dump
 * holds no such object); nil past the end or for another object */
static int obj_id_at(lua_State *L)
{
    hkl_ref *r = hkl_check_object(L, 1);
    lua_Integer i = luaL_checkinteger(L, 2);
    if (hk_obj_kind(r->d, r->index) != HK_KIND_OBJ_ARRAY || i < 0 || i >= hk_array_length(r->d, r->index))
        lua_pushnil(L);
    else hkl_push_id(L, hk_obj_array_at(r->d, r->index, (uint32_t)i));
    return 1;
}

/* arr:bytes() -> the raw (big-endian) element bytes of a primitive array */
static int obj_bytes(lua_State *L)
{
    hkl_ref *r = hkl_check_object(L, 1);
    const uint8_t *data = hk_prim_array_data(r->d, r->index);
    if (!data) {
        lua_pushnil(L);
        return 1;
    }
    int t = hk_prim_array_type(r->d, r->index);
    lua_pushlstring(L, (const char *)data, (size_t)hk_array_length(r->d, r->index) * (size_t)hk_type_size(r->d, t));
    return 1;
}

/* arr:text([start [, max]]) -> a char[] or byte[] as text (UTF-16; Latin-1), max elements
 * (default all) from index start (0-based); nil for another object or an array without contents */
static int obj_text(lua_State *L)
{
    hkl_ref *r = hkl_check_object(L, 1);
    lua_Integer start = luaL_optinteger(L, 2, 0), max = luaL_optinteger(L, 3, UINT32_MAX);
    hk_buf b;
    hk_buf_init(&b);
    if (start >= 0 && max >= 0 &&
        hk_array_text(r->d, r->index, start > UINT32_MAX ? UINT32_MAX : (uint32_t)start,
                      max > UINT32_MAX ? UINT32_MAX : (uint32_t)max, &b) == 0)
        lua_pushlstring(L, b.data ? (const char *)b.data : "", b.len);
    else lua_pushnil(L);
    hk_buf_free(&b);
    return 1;
}

static int obj_is_instance_of(lua_State *L)
{
    hkl_ref *r = hkl_check_object(L, 1);
    lua_pushboolean(L, hkl_class_named(r->d, hk_obj_class(r->d, r->index), luaL_checkstring(L, 2)));
    return 1;
}

static int obj_as_class(lua_State *L)
{
    hk_class *c = class_of_object(hkl_check_object(L, 1));
    hkl_push_class(L, 1, c ? c->index : HK_NONE);
    return 1;
}

/* tostring(obj): LABEL@0xID, so a class object reads "class a.B@0x..." */
static int obj_tostring(lua_State *L)
{
    hkl_ref *r = hkl_check_object(L, 1);
    char s[32];
    snprintf(s, sizeof s, "0x%" PRIx64, (uint64_t)hk_obj_id(r->d, r->index));
    obj_label(L);
    lua_pushfstring(L, "%s@%s", lua_tostring(L, -1), s);
    return 1;
}

void hkl_open_object(lua_State *L)
{
    static const luaL_Reg methods[] = {
        {"field", obj_field}, {"ref", obj_ref},   {"fields", obj_fields}, {"at", obj_at},
        {"bytes", obj_bytes}, {"text", obj_text}, {"id_at", obj_id_at},   {"is_instance_of", obj_is_instance_of},
        {NULL, NULL}};
    static const luaL_Reg props[] = {
        {"id", obj_id},       {"class", obj_class},          {"class_name", obj_class_name},
        {"label", obj_label}, {"shallow_size", obj_shallow}, {"kind", obj_kind},
        {"heap", obj_heap},   {"length", obj_length},        {"elem_type", obj_elem_type},
        {"value", obj_value}, {"as_class", obj_as_class},    {NULL, NULL}};
    static const luaL_Reg meta[] = {{"__eq", hkl_ref_eq}, {"__tostring", obj_tostring}, {NULL, NULL}};
    hkl_new_type(L, HKL_OBJECT, methods, props, meta);
}
