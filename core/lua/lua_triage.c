/* Lua bindings the triage recipe needs from the core: dump:duplicates(), dump:sha256(), and
 * for its HTML report hk.png_thumbnail() and hk.base64(). */
#include "lua/lua_host.h"
#include "analysis/duplicates.h"
#include "util/hk_png.h"
#include "util/hk_mem.h"
#include "lua/lua_open.h"

#include <stdlib.h>
#include <string.h>

/* The objects listed at idx (an array of Objects of dump d, or nil) as a mark per object in a
 * userdata left on the stack; NULL (and nothing pushed) when there are none. */
static uint8_t *skip_marks(lua_State *L, hk_dump *d, int idx)
{
    if (lua_isnoneornil(L, idx)) return NULL;
    luaL_checktype(L, idx, LUA_TTABLE);
    size_t n = (size_t)hk_dump_object_count(d) + 1;
    uint8_t *mark = memset(lua_newuserdatauv(L, n, 0), 0, n);
    for (lua_Integer i = 1; lua_rawgeti(L, idx, i) != LUA_TNIL; i++) {
        hkl_ref *r = hkl_check_object(L, -1);
        if (r->d != d) return luaL_error(L, "dump:duplicates: skip holds an object of another dump"), NULL;
        mark[r->index] = 1;
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    return mark;
}

/* dump:duplicates("strings"|"arrays" [, n [, skip]]): {id, count, bytes, wasted_bytes} per
 * group of equal values, most wasted first; n > 0 keeps the first n; skip: arrays (Objects)
 * another report counts, left out. */
static int dump_duplicates(lua_State *L)
{
    hk_dump *d = hkl_check_dump(L, 1);
    static const char *const kinds[] = {"strings", "arrays", NULL};
    int kind = luaL_checkoption(L, 2, NULL, kinds) == 0 ? HK_DUP_STRINGS : HK_DUP_ARRAYS;
    lua_Integer max = luaL_optinteger(L, 3, 0);
    const uint8_t *skip = skip_marks(L, d, 4); /* its userdata stays on the stack until we return */
    /* the value-array counts one call makes serve the next on the same dump: kept in a
     * table with weak keys, dump -> a userdata holding them */
    if (lua_getfield(L, LUA_REGISTRYINDEX, "hk.dup_uses") != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_newtable(L);
        lua_createtable(L, 0, 1);
        hkl_set_str(L, "__mode", "k");
        lua_setmetatable(L, -2);
        lua_pushvalue(L, -1);
        lua_setfield(L, LUA_REGISTRYINDEX, "hk.dup_uses");
    }
    int cache = lua_gettop(L);
    lua_pushvalue(L, 1);
    lua_rawget(L, cache);
    uint8_t *uses = lua_touserdata(L, -1);
    int ready = uses != NULL;
    lua_pop(L, 1);
    if (!uses)
        uses = memset(lua_newuserdatauv(L, (size_t)hk_dump_object_count(d) + 1, 0), 0,
                      (size_t)hk_dump_object_count(d) + 1);
    hk_dup_group *g;
    uint32_t n;
    char err[256];
    int rc = hk_dup_groups(d, kind, uses, &ready, skip, &g, &n, err, sizeof err);
    if (lua_type(L, -1) == LUA_TUSERDATA) { /* made here: keep it if it was filled */
        if (ready) {
            lua_pushvalue(L, 1);
            lua_insert(L, -2);
            lua_rawset(L, cache);
        } else lua_pop(L, 1);
    }
    lua_pop(L, 1);
    if (rc) return hkl_fail(L, "%s", err);
    if (max > 0 && (lua_Integer)n > max) n = (uint32_t)max;
    lua_createtable(L, (int)n, 0);
    for (uint32_t k = 0; k < n; k++) {
        lua_createtable(L, 0, 4);
        hkl_push_object(L, 1, g[k].first);
        lua_setfield(L, -2, "object");
        hkl_set_int(L, "count", (lua_Integer)g[k].count);
        hkl_set_int(L, "bytes", (lua_Integer)g[k].bytes);
        hkl_set_int(L, "wasted_bytes", (lua_Integer)g[k].wasted);
        lua_rawseti(L, -2, (lua_Integer)k + 1);
    }
    free(g);
    return 1;
}

/* dump:sha256(): the SHA-256 of the HPROF data (of a .gz dump, the data inside it), kept once
 * made; dump:sha256_start() begins it on a thread of its own and returns at once, and the next
 * dump:sha256() waits for it. */
static int dump_sha256(lua_State *L)
{
    hk_dump *d = hkl_check_dump(L, 1);
    char hex[65], err[128];
    if (hk_dump_sha256(d, hex, err, sizeof err) < 0) return hkl_fail(L, err);
    lua_pushstring(L, hex);
    return 1;
}

static int dump_sha256_start(lua_State *L)
{
    hk_dump_sha256_start(hkl_check_dump(L, 1));
    return 0;
}

/* Box-filters w x h RGBA down by an integer factor f into (w/f) x (h/f), at least 1 x 1. */
static unsigned char *shrink(const unsigned char *rgba, int w, int h, int f, int *tw, int *th)
{
    int ow = w / f > 0 ? w / f : 1, oh = h / f > 0 ? h / f : 1;
    unsigned char *out = hk_xcalloc((size_t)ow * oh * 4, 1);
    for (int y = 0; y < oh; y++)
        for (int x = 0; x < ow; x++) {
            unsigned sum[4] = {0}, cnt = 0;
            for (int yy = y * f; yy < (y + 1) * f && yy < h; yy++)
                for (int xx = x * f; xx < (x + 1) * f && xx < w; xx++, cnt++)
                    for (int c = 0; c < 4; c++) sum[c] += rgba[((size_t)yy * w + xx) * 4 + c];
            for (int c = 0; c < 4; c++) out[((size_t)y * ow + x) * 4 + c] = (unsigned char)(sum[c] / (cnt ? cnt : 1));
        }
    *tw = ow;
    *th = oh;
    return out;
}

/* hk.png_thumbnail(png, max_side): a PNG no larger than max_side on either side (the same
 * bytes when it already fits), or nil and why. */
static int l_png_thumbnail(lua_State *L)
{
    size_t n;
    const char *png = luaL_checklstring(L, 1, &n);
    lua_Integer max = luaL_checkinteger(L, 2);
    int w, h;
    char err[256];
    if (max < 1) return luaL_argerror(L, 2, "must be at least 1");
    if (hk_png_size(png, n, &w, &h) < 0) {
        lua_pushnil(L);
        lua_pushstring(L, "not a PNG");
        return 2;
    }
    if (w <= max && h <= max) {
        lua_pushvalue(L, 1);
        return 1;
    }
    unsigned char *rgba;
    if (hk_png_decode_rgba(png, n, &rgba, &w, &h, err, sizeof err) < 0) {
        lua_pushnil(L);
        lua_pushstring(L, err);
        return 2;
    }
    int big = w > h ? w : h, f = (int)((big + max - 1) / max), tw, th;
    unsigned char *small = shrink(rgba, w, h, f, &tw, &th);
    free(rgba);
    hk_buf out;
    hk_buf_init(&out);
    int rc = hk_png_encode_rgba(small, tw, th, &out, err, sizeof err);
    free(small);
    if (rc < 0) lua_pushnil(L), lua_pushstring(L, err);
    else lua_pushlstring(L, (const char *)out.data, out.len);
    hk_buf_free(&out);
    return rc < 0 ? 2 : 1;
}

/* hk.base64(bytes): standard Base64 with padding (data: URIs). */
static int l_base64(lua_State *L)
{
    static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t n;
    const unsigned char *p = (const unsigned char *)luaL_checklstring(L, 1, &n);
    luaL_Buffer b;
    char *o = luaL_buffinitsize(L, &b, (n + 2) / 3 * 4);
    size_t k = 0;
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
        o[k++] = a[v >> 18 & 63];
        o[k++] = a[v >> 12 & 63];
        o[k++] = i + 1 < n ? a[v >> 6 & 63] : '=';
        o[k++] = i + 2 < n ? a[v & 63] : '=';
    }
    luaL_pushresultsize(&b, k);
    return 1;
}

static const luaL_Reg hk_funcs[] = {
    {"png_thumbnail", l_png_thumbnail},
    {"base64", l_base64},
    {NULL, NULL},
};

static const luaL_Reg dump_methods[] = {
    {"duplicates", dump_duplicates},
    {"sha256", dump_sha256},
    {"sha256_start", dump_sha256_start},
    {NULL, NULL},
};

void hkl_open_triage(lua_State *L)
{
    hkl_add_functions(L, hk_funcs);
    hkl_add_methods(L, HKL_DUMP, dump_methods);
}
