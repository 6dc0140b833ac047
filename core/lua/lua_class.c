/* The Class type in Lua: cls.name, cls.super, ..., cls:instances(), cls:field_values(),
 * cls:fields(), cls:statics(), cls:static(), cls:is_subclass_of(). */
#include "lua/lua_ref.h"
#include "hprof/hprof_view.h"
#include "lua/lua_open.h"

#include <string.h>

static hk_class *cls_of(lua_State *L, int idx)
{
    hkl_ref *r = hkl_check_class(L, idx);
    return &hk_view(r->d)->classes[r->index];
}

static int cls_name(lua_State *L)
{
    lua_pushstring(L, cls_of(L, 1)->name);
    return 1;
}
static int cls_id(lua_State *L)
{
    hkl_push_id(L, cls_of(L, 1)->id);
    return 1;
}
static int cls_super(lua_State *L)
{
    hkl_push_class(L, 1, cls_of(L, 1)->super);
    return 1;
}
/* the class loader object, nil for the boot loader (id 0) or one the dump does not hold */
static int cls_loader(lua_State *L)
{
    hkl_ref *r = hkl_check_class(L, 1);
    hk_id id = hk_view(r->d)->classes[r->index].loader_id;
    hkl_push_object(L, 1, id ? hk_obj_find(r->d, id) : HK_NONE);
    return 1;
}
static int cls_instance_size(lua_State *L)
{
    lua_pushinteger(L, cls_of(L, 1)->instance_size);
    return 1;
}
static int cls_object(lua_State *L)
{
    hkl_push_object(L, 1, cls_of(L, 1)->object);
    return 1;
}

static int cls_instance_count(lua_State *L)
{
    hkl_ref *r = hkl_check_class(L, 1);
    uint64_t n = 0;
    hk_tally t = hk_class_tally(r->d, r->index);
    for (int h = 0; h < HK_MAX_HEAPS; h++) n += t.count[h];
    lua_pushinteger(L, (lua_Integer)n);
    return 1;
}

/* Iterator state: a full userdata holding the list of classes to walk (the class, or it and
 * its subclasses), the position, and the field to read with each object, if any; upvalue 1 is
 * the Class userdata, upvalue 3 the field name, upvalue 4 the Dump userdata (keeps owner alive)
 * and upvalue 5 the Object metatable, so an Object is made without looking either up. */
typedef struct inst_iter {
    hk_dump *d;
    const hkl_dump *owner;
    uint32_t cur; /* the class walked: its slice is asked for at each step (hk_class_lists_drop) */
    uint32_t n, pos, ci, nclasses;
    const char *field;
    const hk_field *f; /* field resolved in the current class, NULL when it has none */
    uint32_t classes[];
} inst_iter;

static int instances_iter(lua_State *L)
{
    inst_iter *it = lua_touserdata(L, lua_upvalueindex(2));
    if (!it->owner->d) return hkl_fail(L, "this dump is closed"); /* closed in the loop */
    while (it->pos >= it->n) {
        if (it->ci >= it->nclasses) return 0;
        uint32_t c = it->classes[it->ci++];
        it->cur = c;
        hk_class_instances(it->d, c, &it->n);
        it->pos = 0;
        if (it->field) it->f = hkl_find_field(it->d, c, it->field); /* once per class */
    }
    /* the loop's body may have had the lists dropped (the dominators do) and built again */
    uint32_t n, obj = hk_class_instances(it->d, it->cur, &n)[it->pos++];
    hkl_push_object_of(L, lua_upvalueindex(4), lua_upvalueindex(5), it->owner, obj);
    if (!it->field) return 1;
    uint32_t len;
    const uint8_t *data = it->f ? hk_instance_data(it->d, obj, &len) : NULL;
    if (data && it->f->offset + (uint32_t)hk_type_size(it->d, it->f->type) <= len) {
        hk_value v;
        hk_read_value(it->d, data + it->f->offset, it->f->type, &v);
        hkl_push_value_in(L, lua_upvalueindex(1), it->d, &v);
    } else {
        lua_pushnil(L);
    }
    return 2;
}

/* Whether class c is walked for class r: r itself, or (subs) any subclass of it. */
static int walks(const hk_dump *d, uint32_t c, uint32_t r, int subs)
{
    return subs ? hk_class_is_subclass(d, &hk_view(d)->classes[c], &hk_view(d)->classes[r]) : c == r;
}

/* cls:instances([with_subclasses]) or cls:instances{subclasses = bool, field = name}
 * -> iterator over Objects (and, with field, each one's value of it: one call per object
 * instead of two); nothing is copied */
static int cls_instances(lua_State *L)
{
    hkl_ref *r = hkl_check_class(L, 1);
    int subs;
    const char *field = NULL;
    if (lua_istable(L, 2)) {
        lua_getfield(L, 2, "subclasses");
        subs = lua_toboolean(L, -1);
        lua_getfield(L, 2, "field");
        field = lua_tostring(L, -1);
        lua_replace(L, 2); /* keeps the name alive as argument 2, then upvalue 3 */
        lua_pop(L, 1);
    } else {
        subs = lua_toboolean(L, 2);
        lua_pushnil(L);
        lua_replace(L, 2);
    }
    uint32_t k = 0, first = subs ? 0 : r->index, end = subs ? hk_view(r->d)->nclasses : r->index + 1;
    for (uint32_t c = first; c < end; c++) k += walks(r->d, c, r->index, subs);
    lua_pushvalue(L, 1);
    inst_iter *it = lua_newuserdatauv(L, sizeof *it + k * sizeof(uint32_t), 0);
    memset(it, 0, sizeof *it);
    it->d = r->d;
    it->owner = r->owner;
    it->nclasses = k;
    it->field = field;
    for (uint32_t c = first, j = 0; c < end; c++)
        if (walks(r->d, c, r->index, subs)) it->classes[j++] = c;
    lua_pushvalue(L, 2);
    lua_getiuservalue(L, 1, 1);
    hkl_push_metatable(L, HKL_OBJECT);
    lua_pushcclosure(L, instances_iter, 5);
    return 1;
}

/* The values of field f in the instances objs[0..n) into the table at stack index 4, from
 * position at + 1 on (a null reference, or an instance too short for the field, is left nil). */
static void store_values(lua_State *L, hk_dump *d, const hk_field *f, const uint32_t *objs, uint32_t n, lua_Integer at)
{
    uint32_t need = f->offset + (uint32_t)hk_type_size(d, f->type), len;
    for (uint32_t k = 0; k < n; k++) {
        at++;
        const uint8_t *data = hk_instance_data(d, objs[k], &len);
        if (!data || need > len) continue;
        hk_value v;
        hk_read_value(d, data + f->offset, f->type, &v);
        if (v.type == HK_T_OBJECT && !v.ref) continue;
        hkl_push_value_in(L, 1, d, &v);
        lua_rawseti(L, 4, at);
    }
}

/* cls:field_values(name [, with_subclasses]) -> values, n: the field's value in every
 * instance, in cls:instances() order, as one array (nil where the field is null or absent),
 * and the instance count.  No Object is made for an instance: the bulk way to read a field. */
static int cls_field_values(lua_State *L)
{
    hkl_ref *r = hkl_check_class(L, 1);
    const char *name = luaL_checkstring(L, 2);
    int subs = lua_toboolean(L, 3);
    hk_dump *d = r->d;
    uint32_t total = 0, n, first = subs ? 0 : r->index, end = subs ? hk_view(d)->nclasses : r->index + 1;
    for (uint32_t c = first; c < end; c++) {
        if (!walks(d, c, r->index, subs)) continue;
        hk_class_instances(d, c, &n);
        total += n;
    }
    lua_settop(L, 3);
    lua_createtable(L, (int)total, 0);
    lua_Integer at = 0;
    for (uint32_t c = first; c < end; c++) {
        if (!walks(d, c, r->index, subs)) continue;
        const uint32_t *objs = hk_class_instances(d, c, &n);
        const hk_field *f = hkl_find_field(d, c, name);
        if (f) store_values(L, d, f, objs, n, at);
        at += n;
    }
    lua_pushinteger(L, total);
    return 2;
}

static int cls_fields(lua_State *L)
{
    hk_class *c = cls_of(L, 1);
    lua_createtable(L, c->nfields, 0);
    for (uint16_t i = 0; i < c->nfields; i++) {
        hkl_push_field_row(L, c->fields[i].name, c->fields[i].obf_name, c->fields[i].type, 2);
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}

static int cls_statics(lua_State *L)
{
    hk_class *c = cls_of(L, 1);
    lua_createtable(L, c->nstatics, 0);
    for (uint16_t i = 0; i < c->nstatics; i++) {
        hkl_push_field_row(L, c->statics[i].name, c->statics[i].obf_name, c->statics[i].type, 3);
        hkl_push_value(L, 1, &c->statics[i].value);
        lua_setfield(L, -2, "value");
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}

static int cls_static(lua_State *L)
{
    hk_class *c = cls_of(L, 1);
    const hk_static *s = hk_class_static(c, luaL_checkstring(L, 2));
    if (!s) {
        lua_pushnil(L);
        return 1;
    }
    hkl_push_value(L, 1, &s->value);
    return 1;
}

static int cls_is_subclass_of(lua_State *L)
{
    hkl_ref *r = hkl_check_class(L, 1);
    lua_pushboolean(L, hkl_class_named(r->d, r->index, luaL_checkstring(L, 2)));
    return 1;
}

static int cls_tostring(lua_State *L)
{
    hk_class *c = cls_of(L, 1);
    lua_pushfstring(L, "class %s", c->name);
    return 1;
}

void hkl_open_class(lua_State *L)
{
    static const luaL_Reg methods[] = {{"instances", cls_instances},
                                       {"field_values", cls_field_values},
                                       {"fields", cls_fields},
                                       {"statics", cls_statics},
                                       {"static", cls_static},
                                       {"is_subclass_of", cls_is_subclass_of},
                                       {NULL, NULL}};
    static const luaL_Reg props[] = {{"name", cls_name},
                                     {"id", cls_id},
                                     {"super", cls_super},
                                     {"loader", cls_loader},
                                     {"instance_size", cls_instance_size},
                                     {"instance_count", cls_instance_count},
                                     {"object", cls_object},
                                     {NULL, NULL}};
    static const luaL_Reg meta[] = {{"__eq", hkl_ref_eq}, {"__tostring", cls_tostring}, {NULL, NULL}};
    hkl_new_type(L, HKL_CLASS, methods, props, meta);
}
