/* The Lua types over the index: Dump, Class, Object.  No heap is copied: a Class or
 * Object is an index plus a reference to its Dump. */
#include "host/lua_host.h"
#include "hprof/hprof_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Metatables are found by address keys (lua_rawgetp), not by name: this is on the path of
 * every object handed to Lua. */
static char key_dump, key_class, key_object;

static void *key_of(const char *type)
{
    return !strcmp(type, HKL_DUMP)    ? (void *)&key_dump
           : !strcmp(type, HKL_CLASS) ? (void *)&key_class
                                      : (void *)&key_object;
}

/* Field lookups by name, cached by (class, the Lua string's address): a query reads the same
 * field of many instances.  A hit is confirmed with one strcmp, as the address may be reused. */
typedef struct field_slot {
    const hk_dump *d;
    uint32_t cls;
    const char *key;
    const hk_field *f;
} field_slot;
static field_slot field_cache[256];

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

static void get_type_tables(lua_State *L, const char *type)
{
    lua_rawgetp(L, LUA_REGISTRYINDEX, key_of(type));
    if (lua_isnil(L, -1)) luaL_error(L, "internal: unknown type %s", type);
}

void hkl_add_method(lua_State *L, const char *type, const char *name, lua_CFunction fn)
{
    get_type_tables(L, type);
    lua_getfield(L, -1, "methods");
    lua_pushcfunction(L, fn);
    lua_setfield(L, -2, name);
    lua_pop(L, 2);
}

void hkl_add_method_value(lua_State *L, const char *type, const char *name)
{
    get_type_tables(L, type);
    lua_getfield(L, -1, "methods");
    lua_pushvalue(L, -3);
    lua_setfield(L, -2, name);
    lua_pop(L, 3);
}

void hkl_add_property(lua_State *L, const char *type, const char *name, lua_CFunction getter)
{
    get_type_tables(L, type);
    lua_getfield(L, -1, "props");
    lua_pushcfunction(L, getter);
    lua_setfield(L, -2, name);
    lua_pop(L, 2);
}

void hkl_add_function(lua_State *L, const char *name, lua_CFunction fn)
{
    lua_getglobal(L, "hk");
    lua_pushcfunction(L, fn);
    lua_setfield(L, -2, name);
    lua_pop(L, 1);
}

/* ---- checks and pushes ---- */

static void *test_type(lua_State *L, int idx, const void *key)
{
    void *u = lua_touserdata(L, idx);
    if (!u || !lua_getmetatable(L, idx)) return NULL;
    lua_rawgetp(L, LUA_REGISTRYINDEX, key);
    int same = lua_rawequal(L, -1, -2);
    lua_pop(L, 2);
    return same ? u : NULL;
}

/* The one place a Dump, Class or Object reaches its index: a closed dump is an error. */
static hk_dump *open_dump(lua_State *L, const hkl_dump *owner)
{
    if (!owner->d) luaL_error(L, "this dump is closed");
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

static void push_ref(lua_State *L, int src_idx, uint32_t index, const void *key)
{
    lua_getiuservalue(L, src_idx, 1);
    const hkl_dump *owner = lua_touserdata(L, -1);
    hk_dump *d = open_dump(L, owner);
    hkl_ref *r = lua_newuserdatauv(L, sizeof *r, 1);
    r->d = d;
    r->owner = owner;
    r->index = index;
    lua_insert(L, -2);
    lua_setiuservalue(L, -2, 1);
    lua_rawgetp(L, LUA_REGISTRYINDEX, key);
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
    if (cache[k].d == d && cache[k].cid == cid && c < d->nclasses && d->classes[c].id == cid) return c;
    uint32_t *cp = hk_idmap_get(&d->class_by_id, cid);
    c = cp ? *cp : HK_NONE;
    cache[k].d = d;
    cache[k].cid = cid;
    cache[k].cls = c;
    return c;
}

/* hkl_push_value with the dump already known (the bulk reads' loop) */
static void push_value_of(lua_State *L, int dump_idx, hk_dump *d, const hk_value *v)
{
    switch (v->type) {
    case HK_T_OBJECT: {
        if (!v->ref) {
            lua_pushnil(L);
            return;
        }
        uint32_t o = hk_obj_find(d, v->ref);
        if (o == HK_NONE) {
            lua_pushnil(L);
            return;
        }
        const uint8_t *rec = d->data + hk_obj_offset(d, o);
        if (d->string_class != HK_NONE && *rec == HPROF_INSTANCE_DUMP &&
            hk_rec_instance_class(d, rec) == d->classes[d->string_class].id) {
            hk_buf b;
            hk_buf_init(&b);
            if (hk_string_value(d, o, &b) == 0) {
                lua_pushlstring(L, b.data ? (const char *)b.data : "", b.len);
                hk_buf_free(&b);
                return;
            }
            hk_buf_free(&b);
        }
        hkl_push_object(L, dump_idx, o);
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
    push_value_of(L, dump_idx, v->type == HK_T_OBJECT && v->ref ? hkl_check_dump(L, dump_idx) : NULL, v);
}

/* ---- Dump ---- */

static int dump_gc(lua_State *L)
{
    hkl_dump *u = test_type(L, 1, &key_dump);
    if (!u) return luaL_typeerror(L, 1, "dump");
    if (u->d && !u->borrowed) {
        memset(field_cache, 0, sizeof field_cache); /* it points into this dump's classes */
        hk_dump_close(u->d);
    }
    u->d = NULL;
    return 0;
}

static void set_str(lua_State *L, const char *k, const char *v)
{
    if (v) lua_pushstring(L, v);
    else lua_getfield(L, LUA_REGISTRYINDEX, "hk.null");
    lua_setfield(L, -2, k);
}

static void set_int(lua_State *L, const char *k, lua_Integer v)
{
    lua_pushinteger(L, v);
    lua_setfield(L, -2, k);
}

static int dump_info(lua_State *L)
{
    hk_dump *d = hkl_check_dump(L, 1);
    hk_origin o;
    hk_origin_read(d, &o);
    lua_createtable(L, 0, 20);
    set_str(L, "path", d->path);
    set_str(L, "format", d->format);
    set_int(L, "id_size", d->id_size);
    set_int(L, "timestamp", (lua_Integer)d->timestamp_ms);
    set_int(L, "file_bytes", (lua_Integer)d->size);
    set_int(L, "objects", d->nobjects);
    set_int(L, "classes", d->nclasses);
    set_int(L, "instances", d->ninstances);
    set_int(L, "object_arrays", d->nobj_arrays);
    set_int(L, "primitive_arrays", d->nprim_arrays);
    set_int(L, "gc_roots", d->nroots);
    lua_createtable(L, (int)d->nheaps, 0);
    for (uint32_t h = 0; h < d->nheaps; h++) {
        lua_pushstring(L, d->heap_names[h]);
        lua_rawseti(L, -2, h + 1);
    }
    lua_setfield(L, -2, "heaps");
    if (o.sdk >= 0) set_int(L, "sdk", o.sdk);
    else set_str(L, "sdk", NULL);
    set_str(L, "fingerprint", o.fingerprint);
    set_str(L, "manufacturer", o.manufacturer);
    set_str(L, "model", o.model);
    set_str(L, "process", o.process);
    set_str(L, "map", d->map ? d->map->path : NULL);
    hk_origin_free(&o);
    if (d->source) {
        /* what a Perfetto trace held: its "key: value" lines as rows {key, value} */
        lua_newtable(L);
        int n = 0;
        for (const char *p = d->source; *p;) {
            const char *e = strchr(p, '\n');
            size_t len = e ? (size_t)(e - p) : strlen(p);
            const char *colon = memchr(p, ':', len);
            size_t klen = colon ? (size_t)(colon - p) : 0;
            size_t voff = colon ? klen + (klen + 1 < len && p[klen + 1] == ' ' ? 2 : 1) : 0;
            lua_createtable(L, 0, 2);
            lua_pushlstring(L, p, klen);
            lua_setfield(L, -2, "key");
            lua_pushlstring(L, p + voff, len - voff);
            lua_setfield(L, -2, "value");
            lua_rawseti(L, -2, ++n);
            p += len + (e ? 1 : 0);
        }
        lua_setfield(L, -2, "source");
    } else {
        set_str(L, "source", NULL);
    }
    return 1;
}

static int dump_path(lua_State *L)
{
    lua_pushstring(L, hkl_check_dump(L, 1)->path);
    return 1;
}

static int dump_classes(lua_State *L)
{
    hk_dump *d = hkl_check_dump(L, 1);
    lua_createtable(L, (int)d->nclasses, 0);
    for (uint32_t i = 0; i < d->nclasses; i++) {
        hkl_push_class(L, 1, i);
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}

static int dump_class(lua_State *L)
{
    hk_dump *d = hkl_check_dump(L, 1);
    hk_class *c;
    if (lua_type(L, 2) == LUA_TSTRING && strncmp(lua_tostring(L, 2), "0x", 2))
        c = hk_class_by_name(d, lua_tostring(L, 2));
    else c = hk_class_by_id(d, hkl_check_id(L, 2));
    hkl_push_class(L, 1, c ? c->index : HK_NONE);
    return 1;
}

static int dump_object(lua_State *L)
{
    hk_dump *d = hkl_check_dump(L, 1);
    hkl_push_object(L, 1, hk_obj_find(d, hkl_check_id(L, 2)));
    return 1;
}

static int objects_iter(lua_State *L)
{
    hk_dump *d = hkl_check_dump(L, lua_upvalueindex(1));
    lua_Integer i = lua_tointeger(L, lua_upvalueindex(2));
    if (i >= d->nobjects) return 0;
    lua_pushinteger(L, i + 1);
    lua_replace(L, lua_upvalueindex(2));
    hkl_push_object(L, lua_upvalueindex(1), (uint32_t)i);
    return 1;
}

static int dump_objects(lua_State *L)
{
    hkl_check_dump(L, 1);
    lua_pushvalue(L, 1);
    lua_pushinteger(L, 0);
    lua_pushcclosure(L, objects_iter, 2);
    return 1;
}

typedef struct hist_row {
    const char *name;
    uint64_t count, bytes;
} hist_row;

static int hist_cmp(const void *a, const void *b)
{
    const hist_row *x = a, *y = b;
    if (x->bytes != y->bytes) return x->bytes < y->bytes ? 1 : -1;
    if (x->count != y->count) return x->count < y->count ? 1 : -1;
    return strcmp(x->name, y->name);
}

/* dump:histogram([heap]) -> rows {class, count, shallow_bytes}, biggest first */
static int dump_histogram(lua_State *L)
{
    hk_dump *d = hkl_check_dump(L, 1);
    const char *heap = luaL_optstring(L, 2, NULL);
    int only = -1;
    if (heap && *heap) {
        for (uint32_t h = 0; h < d->nheaps; h++)
            if (!strcmp(d->heap_names[h], heap)) only = (int)h;
        if (only < 0) {
            hk_buf b;
            hk_buf_init(&b);
            for (uint32_t h = 0; h < d->nheaps; h++) hk_buf_printf(&b, "%s%s", h ? ", " : "", d->heap_names[h]);
            lua_pushfstring(L, "no heap named '%s' in this dump (heaps: %s)", heap,
                            d->nheaps ? hk_buf_cstr(&b) : "none");
            hk_buf_free(&b);
            return lua_error(L);
        }
    }
    hist_row *rows = calloc((size_t)d->nclasses + 14, sizeof *rows);
    size_t n = 0;
    for (uint32_t c = 0; c < d->nclasses; c++) {
        hist_row r = {d->classes[c].name, 0, 0};
        for (int h = 0; h < HK_MAX_HEAPS; h++) {
            if (only >= 0 && h != only) continue;
            r.count += d->class_counts[(size_t)c * HK_MAX_HEAPS + h];
            r.bytes += d->class_bytes[(size_t)c * HK_MAX_HEAPS + h];
        }
        if (r.count) rows[n++] = r;
    }
    static const char *const pn[12] = {0,         0,          0,        0,         "boolean[]", "char[]",
                                       "float[]", "double[]", "byte[]", "short[]", "int[]",     "long[]"};
    for (int t = 4; t < 12; t++) {
        hist_row r = {pn[t], 0, 0};
        for (int h = 0; h < HK_MAX_HEAPS; h++) {
            if (only >= 0 && h != only) continue;
            r.count += d->prim_counts[t][h];
            r.bytes += d->prim_bytes[t][h];
        }
        if (r.count) rows[n++] = r;
    }
    hist_row cr = {"java.lang.Class", 0, 0};
    for (int h = 0; h < HK_MAX_HEAPS; h++) {
        if (only >= 0 && h != only) continue;
        cr.count += d->class_obj_counts[h];
        cr.bytes += d->class_obj_bytes[h];
    }
    if (cr.count) rows[n++] = cr;
    qsort(rows, n, sizeof *rows, hist_cmp);
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        lua_createtable(L, 0, 3);
        lua_pushstring(L, rows[i].name);
        lua_setfield(L, -2, "class");
        set_int(L, "count", (lua_Integer)rows[i].count);
        set_int(L, "shallow_bytes", (lua_Integer)rows[i].bytes);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    free(rows);
    return 1;
}

/* dump:index_stats() -> memory the index keeps per object (for benchmarks) */
static int dump_index_stats(lua_State *L)
{
    hk_dump *d = hkl_check_dump(L, 1);
    uint64_t table = (uint64_t)d->nobjects * (sizeof *d->id_lo + sizeof *d->off_lo + sizeof *d->off_hi) +
                     (uint64_t)d->nsegs * sizeof *d->segs + hk_iddir_bytes(&d->dir, d);
    uint64_t classes = (uint64_t)d->nclasses * (sizeof(hk_class) + HK_MAX_HEAPS * 12);
    for (uint32_t i = 0; i < d->nclasses; i++)
        classes +=
            (uint64_t)d->classes[i].nfields * sizeof(hk_field) + (uint64_t)d->classes[i].nstatics * sizeof(hk_static);
    uint64_t names = (uint64_t)d->narena * 65536;
    uint64_t maps =
        ((uint64_t)d->strings.map.cap + d->load_names.map.cap + d->frames.map.cap + d->traces.map.cap +
         d->class_serials.map.cap) *
            12 +
        ((uint64_t)d->strings.cap + d->load_names.cap + d->frames.cap + d->traces.cap + d->class_serials.cap) * 8 +
        (uint64_t)d->class_by_id.cap * 12 + (uint64_t)d->nroots * sizeof(hk_root);
    lua_createtable(L, 0, 6);
    set_int(L, "objects", d->nobjects);
    set_int(L, "object_table_bytes", (lua_Integer)table);
    set_int(L, "class_bytes", (lua_Integer)classes);
    set_int(L, "name_bytes", (lua_Integer)names);
    set_int(L, "map_bytes", (lua_Integer)maps);
    uint64_t total = table + classes + names + maps;
    set_int(L, "total_bytes", (lua_Integer)total);
    lua_pushnumber(L, d->nobjects ? (double)total / d->nobjects : 0);
    lua_setfield(L, -2, "bytes_per_object");
    return 1;
}

static int dump_close_m(lua_State *L)
{
    return dump_gc(L);
}

static int dump_tostring(lua_State *L)
{
    hkl_dump *u = lua_touserdata(L, 1);
    lua_pushfstring(L, "hk.Dump(%s)", u->d ? u->d->path : "closed");
    return 1;
}

/* ---- Class ---- */

static hk_class *cls_of(lua_State *L, int idx)
{
    hkl_ref *r = hkl_check_class(L, idx);
    return &r->d->classes[r->index];
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
    for (int h = 0; h < HK_MAX_HEAPS; h++) n += r->d->class_counts[(size_t)r->index * HK_MAX_HEAPS + h];
    lua_pushinteger(L, (lua_Integer)n);
    return 1;
}

/* Iterator state: a full userdata holding the list of classes to walk (the class, or it and
 * its subclasses), the position, and the field to read with each object, if any; upvalue 1 is
 * the Class userdata (keeps the dump), upvalue 3 the field name. */
typedef struct inst_iter {
    hk_dump *d;
    const uint32_t *objs;
    uint32_t n, pos, ci, nclasses;
    const char *field;
    const hk_field *f; /* field resolved in the current class, NULL when it has none */
    uint32_t classes[];
} inst_iter;

static const hk_field *find_field(hk_dump *d, uint32_t cls, const char *name);

static int instances_iter(lua_State *L)
{
    hkl_check_class(L, lua_upvalueindex(1)); /* the dump may have been closed in the loop */
    inst_iter *it = lua_touserdata(L, lua_upvalueindex(2));
    while (it->pos >= it->n) {
        if (it->ci >= it->nclasses) return 0;
        uint32_t c = it->classes[it->ci++];
        it->objs = hk_class_instances(it->d, c, &it->n);
        it->pos = 0;
        if (it->field) it->f = find_field(it->d, c, it->field); /* once per class */
    }
    uint32_t obj = it->objs[it->pos++];
    hkl_push_object(L, lua_upvalueindex(1), obj);
    if (!it->field) return 1;
    uint32_t len;
    const uint8_t *data = it->f ? hk_instance_data(it->d, obj, &len) : NULL;
    if (data && it->f->offset + (uint32_t)hk_type_size(it->d, it->f->type) <= len) {
        hk_value v;
        hk_read_value(it->d, data + it->f->offset, it->f->type, &v);
        push_value_of(L, lua_upvalueindex(1), it->d, &v);
    } else {
        lua_pushnil(L);
    }
    return 2;
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
    uint32_t k = 0;
    if (subs)
        for (uint32_t c = 0; c < r->d->nclasses; c++)
            k += hk_class_is_subclass(r->d, &r->d->classes[c], &r->d->classes[r->index]);
    else k = 1;
    lua_pushvalue(L, 1);
    inst_iter *it = lua_newuserdatauv(L, sizeof *it + k * sizeof(uint32_t), 0);
    memset(it, 0, sizeof *it);
    it->d = r->d;
    it->nclasses = k;
    it->field = field;
    if (subs) {
        uint32_t j = 0;
        for (uint32_t c = 0; c < r->d->nclasses; c++)
            if (hk_class_is_subclass(r->d, &r->d->classes[c], &r->d->classes[r->index])) it->classes[j++] = c;
    } else {
        it->classes[0] = r->index;
    }
    lua_pushvalue(L, 2);
    lua_pushcclosure(L, instances_iter, 3);
    return 1;
}

/* a field row's obfuscated_name: only where a map renamed the field */
static void set_obf(lua_State *L, const char *name, const char *obf)
{
    if (obf == name) return;
    lua_pushstring(L, obf);
    lua_setfield(L, -2, "obfuscated_name");
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
    uint32_t total = 0, n;
    for (int pass = 0; pass < 2; pass++) {
        lua_Integer at = 0;
        for (uint32_t c = subs ? 0 : r->index; c < (subs ? d->nclasses : r->index + 1); c++) {
            if (subs && !hk_class_is_subclass(d, &d->classes[c], &d->classes[r->index])) continue;
            const uint32_t *objs = hk_class_instances(d, c, &n);
            if (!pass) {
                total += n;
                continue;
            }
            const hk_field *f = find_field(d, c, name);
            if (!f) {
                at += n;
                continue;
            }
            uint32_t need = f->offset + (uint32_t)hk_type_size(d, f->type), len;
            for (uint32_t k = 0; k < n; k++) {
                at++;
                const uint8_t *data = hk_instance_data(d, objs[k], &len);
                if (!data || need > len) continue;
                hk_value v;
                hk_read_value(d, data + f->offset, f->type, &v);
                if (v.type == HK_T_OBJECT && !v.ref) continue;
                push_value_of(L, 1, d, &v);
                lua_rawseti(L, 4, at);
            }
        }
        if (!pass) {
            lua_settop(L, 3);
            lua_createtable(L, (int)total, 0);
        }
    }
    lua_pushinteger(L, total);
    return 2;
}

static int cls_fields(lua_State *L)
{
    hkl_ref *r = hkl_check_class(L, 1);
    hk_class *c = &r->d->classes[r->index];
    lua_createtable(L, c->nfields, 0);
    for (uint16_t i = 0; i < c->nfields; i++) {
        lua_createtable(L, 0, 2);
        lua_pushstring(L, c->fields[i].name);
        lua_setfield(L, -2, "name");
        set_obf(L, c->fields[i].name, c->fields[i].obf_name);
        lua_pushstring(L, hk_type_name(c->fields[i].type));
        lua_setfield(L, -2, "type");
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}

static int cls_statics(lua_State *L)
{
    hkl_ref *r = hkl_check_class(L, 1);
    hk_class *c = &r->d->classes[r->index];
    lua_createtable(L, c->nstatics, 0);
    for (uint16_t i = 0; i < c->nstatics; i++) {
        lua_createtable(L, 0, 3);
        lua_pushstring(L, c->statics[i].name);
        lua_setfield(L, -2, "name");
        set_obf(L, c->statics[i].name, c->statics[i].obf_name);
        lua_pushstring(L, hk_type_name(c->statics[i].type));
        lua_setfield(L, -2, "type");
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
    const char *name = luaL_checkstring(L, 2);
    for (uint32_t k = r->index; k != HK_NONE; k = r->d->classes[k].super)
        if (!strcmp(r->d->classes[k].name, name) || !strcmp(r->d->classes[k].obf_name, name)) {
            lua_pushboolean(L, 1);
            return 1;
        }
    lua_pushboolean(L, 0);
    return 1;
}

static int cls_tostring(lua_State *L)
{
    hk_class *c = cls_of(L, 1);
    lua_pushfstring(L, "class %s", c->name);
    return 1;
}

static int ref_eq(lua_State *L)
{
    hkl_ref *a = lua_touserdata(L, 1), *b = lua_touserdata(L, 2);
    lua_pushboolean(L, a && b && a->d == b->d && a->index == b->index);
    return 1;
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

/* obj.label: what a person calls it in a listing: "class a.B" for a class object, else its
 * class name */
static int obj_label(lua_State *L)
{
    hkl_ref *r = hkl_check_object(L, 1);
    if (hk_obj_kind(r->d, r->index) == HK_KIND_CLASS) {
        hk_class *c = hk_class_by_id(r->d, hk_obj_id(r->d, r->index));
        if (c) {
            lua_pushfstring(L, "class %s", c->name);
            return 1;
        }
    }
    lua_pushstring(L, hk_obj_class_name(r->d, r->index));
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

static const hk_field *find_field(hk_dump *d, uint32_t cls, const char *name)
{
    field_slot *s = &field_cache[((uintptr_t)name >> 4 ^ cls * 31u) & 255];
    if (s->d == d && s->cls == cls && s->key == name && (!strcmp(s->f->name, name) || !strcmp(s->f->obf_name, name)))
        return s->f;
    uint32_t n;
    const hk_field *all = hk_class_layout(d, &d->classes[cls], &n);
    const hk_field *f = hk_field_named(all, n, name);
    if (f) {
        s->d = d;
        s->cls = cls;
        s->key = name;
        s->f = f;
    }
    return f;
}

/* Reads field name of instance obj: 1 found, 0 not */
static int read_field(hk_dump *d, uint32_t obj, const char *name, hk_value *v)
{
    const uint8_t *rec = d->data + hk_obj_offset(d, obj);
    if (*rec != HPROF_INSTANCE_DUMP) return 0;
    uint32_t len, c = instance_class(d, rec);
    const uint8_t *data = hk_rec_instance_data(d, rec, &len);
    if (c == HK_NONE) return 0;
    const hk_field *f = find_field(d, c, name);
    if (!f || f->offset + (uint32_t)hk_type_size(d, f->type) > len) return 0;
    hk_read_value(d, data + f->offset, f->type, v);
    return 1;
}

static int obj_field(lua_State *L)
{
    hkl_ref *r = hkl_check_object(L, 1);
    const char *name = luaL_checkstring(L, 2);
    hk_value v;
    if (hk_obj_kind(r->d, r->index) == HK_KIND_CLASS) {
        hk_class *c = hk_class_by_id(r->d, hk_obj_id(r->d, r->index));
        const hk_static *s = c ? hk_class_static(c, name) : NULL;
        if (!s) {
            lua_pushnil(L);
            return 1;
        }
        hkl_push_value(L, 1, &s->value);
        return 1;
    }
    if (!read_field(r->d, r->index, name, &v)) {
        lua_pushnil(L);
        return 1;
    }
    push_value_of(L, 1, r->d, &v);
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
    const hk_field *f = hk_class_layout(r->d, &r->d->classes[c], &n);
    int k = 1;
    for (uint32_t i = 0; i < n; i++) {
        if (f[i].offset + (uint32_t)hk_type_size(r->d, f[i].type) > len) break;
        hk_value v;
        hk_read_value(r->d, data + f[i].offset, f[i].type, &v);
        lua_createtable(L, 0, 4);
        lua_pushstring(L, f[i].name);
        lua_setfield(L, -2, "name");
        set_obf(L, f[i].name, f[i].obf_name);
        lua_pushstring(L, hk_type_name(f[i].type));
        lua_setfield(L, -2, "type");
        hkl_push_value(L, 1, &v);
        lua_setfield(L, -2, "value");
        if (f[i].type == HK_T_OBJECT) {
            hkl_push_id(L, v.ref);
            lua_setfield(L, -2, "ref");
        }
        lua_rawseti(L, -2, k++);
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
    if (i < 0 || i >= n) {
        lua_pushnil(L);
        return 1;
    }
    hk_value v;
    if (kind == HK_KIND_OBJ_ARRAY) {
        v.type = HK_T_OBJECT;
        v.ref = hk_obj_array_at(r->d, r->index, (uint32_t)i);
    } else {
        const uint8_t *data = hk_prim_array_data(r->d, r->index);
        int t = hk_prim_array_type(r->d, r->index);
        if (!data) {
            lua_pushnil(L);
            return 1;
        }
        hk_read_value(r->d, data + (uint64_t)i * (uint64_t)hk_type_size(r->d, t), t, &v);
    }
    hkl_push_value(L, 1, &v);
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

static int obj_is_instance_of(lua_State *L)
{
    hkl_ref *r = hkl_check_object(L, 1);
    const char *name = luaL_checkstring(L, 2);
    uint32_t c = hk_obj_class(r->d, r->index);
    for (uint32_t k = c; k != HK_NONE; k = r->d->classes[k].super)
        if (!strcmp(r->d->classes[k].name, name) || !strcmp(r->d->classes[k].obf_name, name)) {
            lua_pushboolean(L, 1);
            return 1;
        }
    lua_pushboolean(L, 0);
    return 1;
}

static int obj_as_class(lua_State *L)
{
    hkl_ref *r = hkl_check_object(L, 1);
    hk_class *c = hk_obj_kind(r->d, r->index) == HK_KIND_CLASS ? hk_class_by_id(r->d, hk_obj_id(r->d, r->index)) : NULL;
    hkl_push_class(L, 1, c ? c->index : HK_NONE);
    return 1;
}

static int obj_tostring(lua_State *L)
{
    hkl_ref *r = hkl_check_object(L, 1);
    char s[32];
    snprintf(s, sizeof s, "0x%" PRIx64, (uint64_t)hk_obj_id(r->d, r->index));
    lua_pushfstring(L, "%s@%s", hk_obj_class_name(r->d, r->index), s);
    return 1;
}

static void new_type(lua_State *L, const char *name, const luaL_Reg *methods, const luaL_Reg *props,
                     const luaL_Reg *meta)
{
    luaL_newmetatable(L, name);
    lua_pushvalue(L, -1);
    lua_rawsetp(L, LUA_REGISTRYINDEX, key_of(name));
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

void hkl_types_open(lua_State *L)
{
    static const luaL_Reg dump_m[] = {{"info", dump_info},
                                      {"classes", dump_classes},
                                      {"class", dump_class},
                                      {"object", dump_object},
                                      {"objects", dump_objects},
                                      {"histogram", dump_histogram},
                                      {"index_stats", dump_index_stats},
                                      {"close", dump_close_m},
                                      {NULL, NULL}};
    static const luaL_Reg dump_p[] = {{"path", dump_path}, {NULL, NULL}};
    static const luaL_Reg dump_meta[] = {
        {"__gc", dump_gc}, {"__close", dump_gc}, {"__tostring", dump_tostring}, {NULL, NULL}};
    new_type(L, HKL_DUMP, dump_m, dump_p, dump_meta);

    static const luaL_Reg cls_m[] = {{"instances", cls_instances},
                                     {"field_values", cls_field_values},
                                     {"fields", cls_fields},
                                     {"statics", cls_statics},
                                     {"static", cls_static},
                                     {"is_subclass_of", cls_is_subclass_of},
                                     {NULL, NULL}};
    static const luaL_Reg cls_p[] = {{"name", cls_name},
                                     {"id", cls_id},
                                     {"super", cls_super},
                                     {"instance_size", cls_instance_size},
                                     {"instance_count", cls_instance_count},
                                     {"object", cls_object},
                                     {NULL, NULL}};
    static const luaL_Reg cls_meta[] = {{"__eq", ref_eq}, {"__tostring", cls_tostring}, {NULL, NULL}};
    new_type(L, HKL_CLASS, cls_m, cls_p, cls_meta);

    static const luaL_Reg obj_m[] = {{"field", obj_field}, {"ref", obj_ref},     {"fields", obj_fields},
                                     {"at", obj_at},       {"bytes", obj_bytes}, {"is_instance_of", obj_is_instance_of},
                                     {NULL, NULL}};
    static const luaL_Reg obj_p[] = {
        {"id", obj_id},       {"class", obj_class},          {"class_name", obj_class_name},
        {"label", obj_label}, {"shallow_size", obj_shallow}, {"kind", obj_kind},
        {"heap", obj_heap},   {"length", obj_length},        {"elem_type", obj_elem_type},
        {"value", obj_value}, {"as_class", obj_as_class},    {NULL, NULL}};
    static const luaL_Reg obj_meta[] = {{"__eq", ref_eq}, {"__tostring", obj_tostring}, {NULL, NULL}};
    new_type(L, HKL_OBJECT, obj_m, obj_p, obj_meta);
}
