/* Bitmaps in Lua: dump:bitmaps(), dump:bitmap_image(id), dump:bitmap_scan{...},
 * dump:bitmap_counts(), and hk.bitmap_source{...} for sources written in Lua. */
#include "bitmap/bitmap.h"
#include "lua/lua_host.h"
#include "host/plugin_host.h"
#include "lua/lua_plugins.h"
#include "host/registry.h"
#include "util/hk_mem.h"
#include "util/hk_report.h"
#include "lua/lua_open.h"

#include <errno.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static hk_plugins *plugins_of(lua_State *L)
{
    return hk_plugins_lua_get(L);
}

static void push_bitmap(lua_State *L, const hk_bm *bm)
{
    lua_createtable(L, 0, 12);
    hkl_push_id(L, bm->b.id);
    lua_setfield(L, -2, "id");
    hkl_set_int(L, "width", bm->b.width);
    hkl_set_int(L, "height", bm->b.height);
    /* no pointer (a heap graph records none) is absent, not 0x0 */
    if (bm->b.native_ptr) hkl_push_id(L, bm->b.native_ptr);
    else hkl_push_null(L);
    lua_setfield(L, -2, "native_ptr");
    hkl_set_bool(L, "recycled", bm->b.recycled);
    hkl_set_bool(L, "drawable", bm->drawable);
    hkl_set_int(L, "density", bm->b.density);
    hkl_set_bool(L, "premultiplied", bm->b.premultiplied);
    hkl_set_int(L, "bytes", (int64_t)bm->bytes);
    hkl_set_bool(L, "estimated", bm->estimated);
    if (bm->b.buffer) {
        hkl_push_id(L, bm->b.buffer);
        lua_setfield(L, -2, "buffer");
    }
}

static const hk_bm *list_of(lua_State *L, hk_dump *d, size_t *n)
{
    const hk_bm *v;
    char err[256];
    if (hk_bitmaps_list(d, &v, n, err, sizeof err) < 0) hkl_fail(L, "%s", err);
    return v;
}

/* ---- Lua sources ---- */

/* A Lua source in one session: its definition table is held by a reference for the session. */
typedef struct lua_src {
    hk_bitmap_source src;
    lua_State *L;
    int ref;      /* the definition, in the Lua registry */
    int dump_idx; /* absolute stack index of the Dump userdata */
    int failed;   /* its image() raised an error: the traceback was shown once */
    char name[64];
} lua_src;

/* image(dump, bitmap) -> png | nil, why */
static int call_image(lua_src *ls, const hk_bitmap *bm, hk_buf *out, char *note, size_t notelen)
{
    lua_State *L = ls->L;
    lua_pushvalue(L, ls->dump_idx);
    const hk_bm *full = hk_bitmaps_find(hkl_check_dump(L, ls->dump_idx), bm->id);
    if (full) push_bitmap(L, full);
    else lua_pushnil(L);
    if (hkl_pcall(L, 2, 2) != LUA_OK) {
        /* the cell gets the message's first line; the report the traceback, once per source */
        const char *m = hkl_error_text(L, -1);
        const char *nl = strchr(m, '\n');
        snprintf(note, notelen, "Lua source %s failed: %.*s", ls->name, nl ? (int)(nl - m) : 160, m);
        if (!ls->failed++) hk_report(HK_REPORT_WARNING, "bitmap source %s failed:\n%s", ls->name, m);
        return HK_IMAGE_NONE;
    }
    if (lua_type(L, -2) == LUA_TSTRING) {
        size_t len;
        const char *s = lua_tolstring(L, -2, &len);
        hk_buf_append(out, s, len);
        return HK_IMAGE_ENCODED;
    }
    if (lua_type(L, -1) == LUA_TSTRING) snprintf(note, notelen, "%s", lua_tostring(L, -1));
    return HK_IMAGE_NONE;
}

static int ls_image(void *state, const hk_bitmap *bm, hk_buf *out, char *note, size_t notelen)
{
    lua_src *ls = state;
    lua_State *L = ls->L;
    int top = lua_gettop(L), kind = HK_IMAGE_NONE;
    lua_rawgeti(L, LUA_REGISTRYINDEX, ls->ref);
    int def = lua_gettop(L);
    if (lua_getfield(L, def, "image") == LUA_TFUNCTION) {
        kind = call_image(ls, bm, out, note, notelen);
    } else if (lua_getfield(L, def, "images") == LUA_TTABLE) { /* a pointer -> bytes table */
        hkl_push_id(L, bm->native_ptr);
        if (lua_gettable(L, -2) == LUA_TSTRING) {
            size_t len;
            const char *s = lua_tolstring(L, -1, &len);
            hk_buf_append(out, s, len);
            kind = HK_IMAGE_ENCODED;
        }
    }
    lua_settop(L, top);
    return kind;
}

/* The keys a Lua source definition takes; any other (the C names keyed_by_pointer, ...) is a mistake. */
static const char *const source_keys[] = {"name", "help", "by_pointer", "priority", "image", "images", NULL};

/* Checks the definition at idx; raises naming the mistake. */
static void check_source(lua_State *L, int idx)
{
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_pop(L, 1);
        int known = 0;
        for (int i = 0; source_keys[i] && !known; i++)
            known = lua_type(L, -1) == LUA_TSTRING && !strcmp(lua_tostring(L, -1), source_keys[i]);
        if (!known)
            luaL_error(L,
                       "hk.bitmap_source: unknown key '%s' (it takes name, help, by_pointer, priority, "
                       "image = function(dump, bitmap), images = {[\"0x<ptr>\"] = png})",
                       luaL_tolstring(L, -1, NULL));
    }
    if (lua_getfield(L, idx, "name") != LUA_TSTRING) luaL_error(L, "hk.bitmap_source: name (a string) is required");
    int t1 = lua_getfield(L, idx, "image"), t2 = lua_getfield(L, idx, "images");
    if (t1 != LUA_TFUNCTION && t2 != LUA_TTABLE)
        luaL_error(L, "hk.bitmap_source: give image = function(dump, bitmap) or images = {[\"0x<ptr>\"] = png}");
    if (t1 == LUA_TFUNCTION) {
        lua_Debug ar;
        lua_pushvalue(L, -2);
        lua_getinfo(L, ">u", &ar);
        if (ar.nparams < 2 && !ar.isvararg)
            luaL_error(L, "hk.bitmap_source: image is called as image(dump, bitmap): it takes %d parameter%s",
                       ar.nparams, ar.nparams == 1 ? "" : "s");
    }
    int t3 = lua_getfield(L, idx, "priority");
    if (t3 != LUA_TNIL && !lua_isinteger(L, -1)) luaL_error(L, "hk.bitmap_source: priority must be an integer");
    lua_pop(L, 4);
}

#define SOURCES_KEY "hk.bitmap_sources" /* name -> definition of every registered Lua source */

/* hk.bitmap_source{ name=, help=, by_pointer=true, priority=0, image=function(dump, bitmap) -> png | nil, why,
 * or images = { ["0x<ptr>"] = png_bytes } }: every command sees it; register as the script loads */
static int l_bitmap_source(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    check_source(L, 1);
    lua_getfield(L, 1, "name");
    lua_getfield(L, 1, "help");
    lua_getfield(L, 1, "priority");
    hk_reg_entry *e = hkl_register(L, HK_REG_BITMAP_SOURCE, lua_tostring(L, -3), luaL_optstring(L, -2, ""));
    e->priority = (int)lua_tointeger(L, -1);
    lua_pop(L, 1);
    lua_getfield(L, LUA_REGISTRYINDEX, SOURCES_KEY);
    lua_pushvalue(L, 1);
    lua_setfield(L, -2, e->name);
    return 0;
}

typedef struct lua_srcs {
    lua_src *v;
    size_t n;
} lua_srcs;

static void add_lua_source(lua_State *L, hk_bm_session *s, lua_src *x, int def, int dump_idx)
{
    lua_getfield(L, def, "name");
    snprintf(x->name, sizeof x->name, "%s", lua_tostring(L, -1));
    x->src.keyed_by_pointer = lua_getfield(L, def, "by_pointer") == LUA_TNIL || lua_toboolean(L, -1);
    x->src.priority = lua_getfield(L, def, "priority") == LUA_TNUMBER ? (int)lua_tointeger(L, -1) : 0;
    lua_pop(L, 3);
    x->src.name = x->name;
    x->src.help = "a Lua bitmap source";
    x->src.image = ls_image;
    x->L = L;
    lua_pushvalue(L, def);
    x->ref = luaL_ref(L, LUA_REGISTRYINDEX);
    x->dump_idx = dump_idx;
    hk_bm_session_add(s, &x->src, x);
}

/* A session with the standard sources, every registered Lua source and the sources of this
 * call (the table at extra_idx, 0: none); free it with session_free. */
static hk_bm_session *session_for(lua_State *L, int dump_idx, const char *sidecar, int extra_idx, lua_srcs *ls)
{
    hk_bm_session *s = hk_bm_session_new(hkl_check_dump(L, dump_idx));
    const hk_bitmap_source **psrcs = NULL;
    void **puds = NULL;
    hk_plugins *ps = plugins_of(L);
    size_t np = ps ? hk_plugins_bitmap_sources(ps, &psrcs, &puds) : 0;
    hk_bm_session_add_standard(s, psrcs, puds, np, sidecar);
    const hk_reg_entry *const *es;
    size_t n = hkl_registry(L) ? hk_registry_list(hkl_registry(L), HK_REG_BITMAP_SOURCE, &es) : 0;
    size_t extra = extra_idx ? lua_rawlen(L, extra_idx) : 0;
    ls->v = hk_xcalloc(n + extra + 1, sizeof *ls->v);
    ls->n = 0;
    lua_getfield(L, LUA_REGISTRYINDEX, SOURCES_KEY);
    for (size_t i = 0; i < n; i++) {
        if (es[i]->plugin) continue;
        lua_getfield(L, -1, es[i]->name);
        add_lua_source(L, s, &ls->v[ls->n++], lua_gettop(L), dump_idx);
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    for (size_t i = 0; i < extra; i++) {
        lua_rawgeti(L, extra_idx, (lua_Integer)i + 1);
        add_lua_source(L, s, &ls->v[ls->n++], lua_gettop(L), dump_idx);
        lua_pop(L, 1);
    }
    return s;
}

static void session_free(lua_State *L, hk_bm_session *s, lua_srcs *ls)
{
    hk_bm_session_free(s);
    for (size_t i = 0; i < ls->n; i++) luaL_unref(L, LUA_REGISTRYINDEX, ls->v[i].ref);
    free(ls->v);
}

static hk_dump *dump_arg(lua_State *L)
{
    return hkl_check_dump(L, 1);
}

/* dump:bitmaps() -> { {id, width, height, native_ptr, recycled, drawable, density,
 *                      premultiplied, bytes, estimated, buffer}, ... } */
static int dump_bitmaps(lua_State *L)
{
    size_t n;
    const hk_bm *v = list_of(L, dump_arg(L), &n);
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        push_bitmap(L, &v[i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

/* dump:bitmap_image(id) -> png_bytes, source[, note] | nil, reason */
static int dump_bitmap_image(lua_State *L)
{
    hk_dump *d = dump_arg(L);
    hk_id id = hkl_check_id(L, 2);
    size_t n;
    list_of(L, d, &n);
    const hk_bm *bm = hk_bitmaps_find(d, id);
    if (!bm) {
        lua_pushnil(L);
        char msg[128];
        snprintf(msg, sizeof msg, "0x%" PRIx64 " is not an android.graphics.Bitmap in this dump", id);
        lua_pushstring(L, msg);
        return 2;
    }
    lua_srcs ls = {0};
    hk_bm_session *s = session_for(L, 1, NULL, 0, &ls);
    hk_bm_image img;
    hk_bm_image_init(&img);
    hk_bm_session_image(s, bm, &img);
    hk_buf png;
    hk_buf_init(&png);
    char err[256];
    int nret;
    if (img.kind == HK_IMAGE_NONE) {
        lua_pushnil(L);
        lua_pushstring(L, img.reason);
        nret = 2;
    } else if (hk_bm_image_png(&img, bm, &png, err, sizeof err) < 0) {
        lua_pushnil(L);
        lua_pushstring(L, err);
        nret = 2;
    } else {
        lua_pushlstring(L, (const char *)png.data, png.len);
        lua_pushstring(L, img.source ? img.source : "?");
        if (img.note[0]) lua_pushstring(L, img.note);
        else lua_pushnil(L);
        nret = 3;
    }
    hk_buf_free(&png);
    hk_bm_image_free(&img);
    session_free(L, s, &ls);
    return nret;
}

/* dump:bitmap_pngs() -> { {ptr = "0x...", png = bytes}, ... }: every Bitmap with a native pointer
 * and an image from some source, as PNG (what a trace with the embedded dump carries). */
static int dump_bitmap_pngs(lua_State *L)
{
    hk_dump *d = dump_arg(L);
    size_t n;
    const hk_bm *list = list_of(L, d, &n);
    lua_srcs ls = {0};
    hk_bm_session *s = session_for(L, 1, NULL, 0, &ls);
    lua_newtable(L);
    lua_Integer k = 0;
    hk_buf png;
    hk_buf_init(&png);
    for (size_t i = 0; i < n; i++) {
        const hk_bm *bm = &list[i];
        if (!bm->b.native_ptr) continue;
        hk_bm_image img;
        hk_bm_image_init(&img);
        hk_bm_session_image(s, bm, &img);
        char err[256];
        hk_buf_reset(&png);
        if (img.kind != HK_IMAGE_NONE && hk_bm_image_png(&img, bm, &png, err, sizeof err) == 0) {
            lua_createtable(L, 0, 2);
            hkl_push_id(L, bm->b.native_ptr);
            lua_setfield(L, -2, "ptr");
            lua_pushlstring(L, (const char *)png.data, png.len);
            lua_setfield(L, -2, "png");
            lua_rawseti(L, -2, ++k);
        }
        hk_bm_image_free(&img);
    }
    hk_buf_free(&png);
    session_free(L, s, &ls);
    return 1;
}

typedef struct scan_ctx {
    lua_State *L;
    int rows;
    lua_Integer n;
} scan_ctx;

static int scan_row(void *vctx, const hk_bm_row *r)
{
    scan_ctx *c = vctx;
    lua_State *L = c->L;
    push_bitmap(L, r->bm);
    hkl_set_str_or_null(L, "source", hkl_nonempty(r->source));
    hkl_set_str_or_null(L, "reason", hkl_nonempty(r->source ? NULL : r->reason));
    hkl_set_str_or_null(L, "note", hkl_nonempty(r->note));
    hkl_set_str_or_null(L, "pixels_sha256", hkl_nonempty(r->sha256));
    hkl_set_str_or_null(L, "exported", hkl_nonempty(r->exported));
    hkl_set_int(L, "mismatches", r->mismatches);
    lua_rawseti(L, c->rows, ++c->n);
    return 0;
}

static void push_summary(lua_State *L, const hk_bm_summary *sum)
{
    lua_createtable(L, 0, 10);
    hkl_set_int(L, "count", (int64_t)sum->count);
    hkl_set_int(L, "drawable", (int64_t)sum->drawable);
    hkl_set_int(L, "with_image", (int64_t)sum->with_image);
    hkl_set_int(L, "mismatched", (int64_t)sum->mismatched);
    hkl_set_int(L, "exported", (int64_t)sum->exported);
    hkl_set_int(L, "pixel_bytes", (int64_t)sum->pixel_bytes);
    hkl_set_int(L, "dump_data", (int64_t)sum->dump_data);
    hkl_set_bool(L, "carries_native_pixels", sum->dump_data > 0);
    lua_createtable(L, 0, sum->nsources);
    for (int i = 0; i < sum->nsources; i++) hkl_set_int(L, sum->source_names[i], (int64_t)sum->source_counts[i]);
    lua_getfield(L, LUA_REGISTRYINDEX, "hk.object_mt"); /* a JSON object even when empty */
    lua_setmetatable(L, -2);
    lua_setfield(L, -2, "by_source");
}

/* hk.bitmap_sources() -> { {name, help, by_pointer, priority, script}, ... }: the Lua sources */
static int l_bitmap_sources(lua_State *L)
{
    const hk_reg_entry *const *es;
    size_t n = hkl_registry(L) ? hk_registry_list(hkl_registry(L), HK_REG_BITMAP_SOURCE, &es) : 0;
    lua_newtable(L);
    lua_getfield(L, LUA_REGISTRYINDEX, SOURCES_KEY);
    lua_Integer k = 0;
    for (size_t i = 0; i < n; i++) {
        if (es[i]->plugin) continue;
        lua_createtable(L, 0, 5);
        hkl_set_str(L, "name", es[i]->name);
        hkl_set_str(L, "help", es[i]->help);
        hkl_set_str(L, "script", es[i]->owner);
        hkl_set_int(L, "priority", es[i]->priority);
        lua_getfield(L, -2, es[i]->name);
        lua_getfield(L, -1, "by_pointer");
        int by_pointer = lua_isnil(L, -1) || lua_toboolean(L, -1);
        lua_pop(L, 2);
        hkl_set_bool(L, "by_pointer", by_pointer);
        lua_rawseti(L, -3, ++k);
    }
    lua_pop(L, 1);
    return 1;
}

/* Directories the user named: the sidecar must exist, the export's parent must. */
static void check_dirs(lua_State *L, const char *sidecar, const char *export_dir)
{
    struct stat st;
    if (sidecar && stat(sidecar, &st) != 0) hkl_usage_error(L, "--sidecar %s: %s", sidecar, strerror(errno));
    if (sidecar && !S_ISDIR(st.st_mode)) hkl_usage_error(L, "--sidecar %s: not a directory", sidecar);
    if (!export_dir) return;
    if (stat(export_dir, &st) == 0) {
        if (!S_ISDIR(st.st_mode)) hkl_usage_error(L, "--export %s: not a directory", export_dir);
        return;
    }
    char parent[4096];
    snprintf(parent, sizeof parent, "%s", export_dir);
    const char *p = dirname(parent);
    if (stat(p, &st) != 0 || !S_ISDIR(st.st_mode))
        hkl_usage_error(L, "--export %s: its parent directory %s does not exist", export_dir, p);
}

/* dump:bitmap_scan{ export = DIR, hash = true, min_pixels = 0, sidecar = DIR } -> rows, summary */
static int dump_bitmap_scan(lua_State *L)
{
    dump_arg(L);
    hk_bm_scan_opts o = {.hash = 1};
    const char *sidecar = NULL;
    int extra = 0; /* sources for this scan alone */
    if (lua_istable(L, 2)) {
        if (lua_getfield(L, 2, "export") == LUA_TSTRING && *lua_tostring(L, -1)) o.export_dir = lua_tostring(L, -1);
        if (lua_getfield(L, 2, "hash") != LUA_TNIL) o.hash = lua_toboolean(L, -1);
        if (lua_getfield(L, 2, "min_pixels") != LUA_TNIL) {
            lua_Integer mp = luaL_checkinteger(L, -1);
            o.min_pixels = mp > 0 ? (uint64_t)mp : 0;
        }
        if (lua_getfield(L, 2, "sidecar") == LUA_TSTRING && *lua_tostring(L, -1)) sidecar = lua_tostring(L, -1);
        /* the strings stay on the stack, so the pointers above stay valid */
        if (lua_getfield(L, 2, "sources") == LUA_TTABLE) extra = lua_gettop(L);
        else if (!lua_isnil(L, -1)) luaL_error(L, "bitmap_scan: sources must be a list of source definitions");
        for (lua_Integer i = 1; extra && i <= (lua_Integer)lua_rawlen(L, extra); i++) {
            if (lua_rawgeti(L, extra, i) != LUA_TTABLE)
                luaL_error(L, "bitmap_scan: sources[%d] is not a table", (int)i);
            check_source(L, lua_gettop(L));
            lua_pop(L, 1);
        }
    }
    check_dirs(L, sidecar, o.export_dir);
    lua_srcs ls = {0};
    hk_bm_session *s = session_for(L, 1, sidecar, extra, &ls);
    lua_newtable(L);
    scan_ctx c = {.L = L, .rows = lua_gettop(L)};
    hk_bm_summary sum;
    char err[512];
    int rc = hk_bm_scan(s, &o, scan_row, &c, &sum, err, sizeof err);
    /* the summary names sources: push it while the Lua sources' names are alive */
    if (rc == 0) push_summary(L, &sum);
    session_free(L, s, &ls);
    if (rc < 0) return hkl_fail(L, "%s", err);
    return 2;
}

/* dump:bitmap_counts() -> summary, without hashing or exporting */
static int dump_bitmap_counts(lua_State *L)
{
    dump_arg(L);
    lua_srcs ls = {0};
    hk_bm_session *s = session_for(L, 1, NULL, 0, &ls);
    hk_bm_scan_opts o = {0};
    hk_bm_summary sum;
    char err[512];
    int rc = hk_bm_scan(s, &o, NULL, NULL, &sum, err, sizeof err);
    if (rc == 0) push_summary(L, &sum);
    session_free(L, s, &ls);
    if (rc < 0) return hkl_fail(L, "%s", err);
    return 1;
}

static const luaL_Reg dump_methods[] = {
    {"bitmaps", dump_bitmaps},         {"bitmap_image", dump_bitmap_image},   {"bitmap_pngs", dump_bitmap_pngs},
    {"bitmap_scan", dump_bitmap_scan}, {"bitmap_counts", dump_bitmap_counts}, {NULL, NULL},
};

static const luaL_Reg hk_funcs[] = {
    {"bitmap_source", l_bitmap_source},
    {"bitmap_sources", l_bitmap_sources},
    {NULL, NULL},
};

void hkl_open_bitmap(lua_State *L)
{
    lua_newtable(L);
    lua_setfield(L, LUA_REGISTRYINDEX, SOURCES_KEY);
    hkl_add_methods(L, HKL_DUMP, dump_methods);
    hkl_add_functions(L, hk_funcs);
}
