/* Lua values to JSON text: hk.json_encode(value[, key_order[, compact]]), what the json
 * renderer, the report and users' scripts write with (docs/lua-api.md).  A table is an array
 * when its keys are 1..#t (and it is not marked with hk.object_mt), else an object with its
 * keys sorted, key_order's first (key_order applies to the top table and to an array's
 * elements); hk.null and nil are null; NaN and infinities are null; anything else is its
 * tostring as a string.  Strings as every JSON writer of the project writes them
 * (hk_buf_json_string): a byte that is not UTF-8 becomes U+FFFD, so the output is UTF-8.
 * Indented by two spaces a level unless compact.
 *
 * Written in C because the report and `--json` of big results spent most of their time
 * here; the table walks go through the same metamethods Lua's pairs, ipairs and # do. */
#include "lua/lua_host.h"
#include "util/hk_buf.h"
#include "util/hk_mem.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_DEPTH = 200 }; /* as deep as hk.json_decode reads */

typedef struct key {
    const char *s;
    size_t n;
    int orig; /* a key that is not a string: its place in the anchor table, to look it up by */
} key;

/* The output and the keys of the objects being written (a stack: an object's keys above its
 * parent's).  In a userdata, so that an error raised part way (a metamethod's, or the
 * encoder's own) frees them with it. */
typedef struct state {
    hk_buf out;
    key *keys;
    size_t nkeys, capkeys;
} state;

typedef struct enc {
    lua_State *L;
    state *st;
    hk_buf *out;
    int null_idx, mt_idx, anchor_idx; /* stack slots: hk.null, hk.object_mt, made keys' strings */
    int mt_plain;                     /* hk.object_mt has no __index, __pairs or __len */
    int compact;
    const void *open[MAX_DEPTH]; /* the tables being written, outermost first */
    int depth;
} enc;

static int state_gc(lua_State *L)
{
    state *st = lua_touserdata(L, 1);
    hk_buf_free(&st->out);
    free(st->keys);
    st->keys = NULL;
    return 0;
}

static state *push_state(lua_State *L)
{
    state *st = lua_newuserdatauv(L, sizeof *st, 0);
    memset(st, 0, sizeof *st);
    hk_buf_init(&st->out);
    if (luaL_newmetatable(L, "hk.JsonEncoder")) {
        lua_pushcfunction(L, state_gc);
        lua_setfield(L, -2, "__gc");
    }
    lua_setmetatable(L, -2);
    return st;
}

/* A table no metamethod of which runs when it is read: none, or hk.object_mt as made. */
static int plain(enc *e, int t)
{
    if (!lua_getmetatable(e->L, t)) return 1;
    int p = e->mt_plain && lua_rawequal(e->L, -1, e->mt_idx);
    lua_pop(e->L, 1);
    return p;
}

static void fail(lua_State *L, const char *msg)
{
    lua_pushstring(L, msg); /* no position: the message is the whole story */
    lua_error(L);
}

/* The shortest of %.15g and %.17g that reads back as the same number. */
static void put_float(hk_buf *b, double v)
{
    if (isnan(v) || isinf(v)) {
        hk_buf_append(b, "null", 4);
        return;
    }
    char s[40];
    snprintf(s, sizeof s, "%.15g", v);
    if (strtod(s, NULL) != v) snprintf(s, sizeof s, "%.17g", v);
    hk_buf_puts(b, s);
}

static void newline(enc *e, int depth)
{
    if (e->compact) return;
    hk_buf_putc(e->out, '\n');
    for (int i = 0; i < depth; i++) hk_buf_append(e->out, "  ", 2);
}

/* Lua's string order (lvm.c's l_strcmp): strcoll by the parts between embedded zeros. */
static int lua_order(const char *l, size_t ll, const char *r, size_t lr)
{
    for (;;) {
        int t = strcoll(l, r);
        if (t) return t;
        size_t len = strlen(l);
        if (len == lr) return len == ll ? 0 : 1;
        if (len == ll) return -1;
        len++;
        l += len, ll -= len, r += len, lr -= len;
    }
}

static int key_cmp(const void *a, const void *b)
{
    const key *x = a, *y = b;
    return lua_order(x->s, x->n, y->s, y->n);
}

/* Calls f(e, t) for each key of the table at t as pairs(t) gives them, the key on the top of
 * the stack (f leaves the stack as it found it).  Returns early when f returns nonzero. */
static int each_key(enc *e, int t, int (*f)(enc *, int, void *), void *ctx)
{
    lua_State *L = e->L;
    if (luaL_getmetafield(L, t, "__pairs") != LUA_TNIL) {
        lua_pushvalue(L, t);
        lua_call(L, 1, 3); /* next, state, control */
        for (;;) {
            lua_pushvalue(L, -3);
            lua_pushvalue(L, -3);
            lua_pushvalue(L, -3);
            lua_call(L, 2, 2);
            if (lua_isnil(L, -2)) {
                lua_pop(L, 5);
                return 0;
            }
            lua_pop(L, 1); /* the value: only keys are asked for */
            lua_replace(L, -2);
            lua_pushvalue(L, -1);
            int stop = f(e, t, ctx);
            lua_pop(L, 1);
            if (stop) {
                lua_pop(L, 3);
                return 1;
            }
        }
    }
    lua_pushnil(L);
    while (lua_next(L, t)) {
        lua_pop(L, 1);
        if (f(e, t, ctx)) {
            lua_pop(L, 1);
            return 1;
        }
    }
    return 0;
}

static int not_index(enc *e, int t, void *ctx)
{
    (void)t;
    lua_Integer n = *(lua_Integer *)ctx;
    if (!lua_isinteger(e->L, -1)) return 1;
    lua_Integer k = lua_tointeger(e->L, -1);
    return k < 1 || k > n;
}

/* An array: not marked as an object, and empty or with exactly the keys 1..#t. */
static int is_array(enc *e, int t)
{
    lua_State *L = e->L;
    if (lua_getmetatable(L, t)) {
        int marked = lua_rawequal(L, -1, e->mt_idx);
        lua_pop(L, 1);
        if (marked) return 0;
    }
    lua_pushnil(L);
    if (!lua_next(L, t)) return 1;
    lua_pop(L, 2);
    lua_Integer n = plain(e, t) ? (lua_Integer)lua_rawlen(L, t) : luaL_len(L, t);
    if (n == 0) return 0;
    return !each_key(e, t, not_index, &n);
}

static void value(enc *e, int v, int order, int depth);

static void enter(enc *e, int t)
{
    const void *p = lua_topointer(e->L, t);
    for (int i = 0; i < e->depth; i++)
        if (e->open[i] == p) fail(e->L, "hk.json_encode: a table contains itself (a cycle cannot be written as JSON)");
    if (e->depth >= MAX_DEPTH) fail(e->L, "hk.json_encode: tables nested more than 200 deep");
    e->open[e->depth++] = p;
}

static void array(enc *e, int t, int order, int depth)
{
    lua_State *L = e->L;
    lua_pushnil(L);
    if (!lua_next(L, t)) {
        hk_buf_append(e->out, "[]", 2);
        return;
    }
    lua_pop(L, 2);
    int p = plain(e, t);
    if (p) lua_rawgeti(L, t, 1);
    else lua_geti(L, t, 1);
    hk_buf_putc(e->out, '[');
    for (lua_Integer i = 1;; i++) {
        if (i > 1 && (p ? lua_rawgeti(L, t, i) : lua_geti(L, t, i)) == LUA_TNIL) {
            lua_pop(L, 1);
            break;
        }
        if (i > 1) hk_buf_putc(e->out, ',');
        newline(e, depth + 1);
        value(e, lua_gettop(L), order, depth + 1);
        lua_pop(L, 1);
    }
    newline(e, depth);
    hk_buf_putc(e->out, ']');
}

/* Pushes the key on the top of the stack (left there) onto the key stack, as its text: a
 * string key of a plain table is held by the table; any other text is anchored for the call,
 * and a key that is not a string too (its value is found by it, not by its text). */
static void keep_key(enc *e, int held)
{
    lua_State *L = e->L;
    state *st = e->st;
    size_t n;
    const char *s;
    int orig = 0;
    if (held && lua_type(L, -1) == LUA_TSTRING) {
        s = lua_tolstring(L, -1, &n);
    } else {
        if (lua_type(L, -1) != LUA_TSTRING) {
            lua_pushvalue(L, -1);
            orig = (int)lua_rawlen(L, e->anchor_idx) + 1;
            lua_rawseti(L, e->anchor_idx, orig);
        }
        s = luaL_tolstring(L, -1, &n);
        lua_rawseti(L, e->anchor_idx, (lua_Integer)lua_rawlen(L, e->anchor_idx) + 1);
    }
    if (st->nkeys == st->capkeys) {
        st->capkeys = st->capkeys ? 2 * st->capkeys : 64;
        st->keys = hk_xrealloc(st->keys, st->capkeys * sizeof *st->keys);
    }
    st->keys[st->nkeys++] = (key){s, n, orig};
}

typedef struct rest_ctx {
    int order; /* 0, or key_order's slot */
    int held;  /* the keys are the table's own (a plain table walked with next) */
} rest_ctx;

static int add_rest(enc *e, int t, void *ctx)
{
    (void)t;
    rest_ctx *r = ctx;
    lua_State *L = e->L;
    if (r->order) { /* key_order's keys are written first, once */
        for (lua_Integer i = 1; lua_geti(L, r->order, i) != LUA_TNIL; i++) {
            int same = lua_rawequal(L, -1, -2);
            lua_pop(L, 1);
            if (same) return 0;
        }
        lua_pop(L, 1);
    }
    keep_key(e, r->held);
    return 0;
}

static void object(enc *e, int t, int order, int depth)
{
    lua_State *L = e->L;
    state *st = e->st;
    size_t base = st->nkeys;
    int p = plain(e, t);
    if (order) {
        for (lua_Integer i = 1; lua_geti(L, order, i) != LUA_TNIL; i++) {
            keep_key(e, 0);
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
    }
    size_t first = st->nkeys;
    rest_ctx r = {order, p};
    each_key(e, t, add_rest, &r);
    size_t n = st->nkeys - base;
    if (!n) {
        hk_buf_append(e->out, "{}", 2);
        return;
    }
    if (st->nkeys > first) qsort(st->keys + first, st->nkeys - first, sizeof *st->keys, key_cmp);
    hk_buf_putc(e->out, '{');
    for (size_t i = 0; i < n; i++) {
        key k = st->keys[base + i]; /* by value: the stack may move as nested objects grow it */
        if (i) hk_buf_putc(e->out, ',');
        newline(e, depth + 1);
        hk_buf_json_string(e->out, k.s, k.n);
        hk_buf_append(e->out, ": ", e->compact ? 1 : 2);
        if (k.orig) lua_rawgeti(L, e->anchor_idx, k.orig);
        else lua_pushlstring(L, k.s, k.n);
        if (p) lua_rawget(L, t);
        else lua_gettable(L, t);
        value(e, lua_gettop(L), 0, depth + 1);
        lua_pop(L, 1);
    }
    newline(e, depth);
    hk_buf_putc(e->out, '}');
    st->nkeys = base;
}

static void value(enc *e, int v, int order, int depth)
{
    lua_State *L = e->L;
    switch (lua_type(L, v)) {
    case LUA_TSTRING: {
        size_t n;
        const char *s = lua_tolstring(L, v, &n);
        hk_buf_json_string(e->out, s, n);
        return;
    }
    case LUA_TNIL:
    case LUA_TNONE: hk_buf_append(e->out, "null", 4); return;
    case LUA_TBOOLEAN: hk_buf_puts(e->out, lua_toboolean(L, v) ? "true" : "false"); return;
    case LUA_TNUMBER:
        if (lua_isinteger(L, v)) hk_buf_printf(e->out, LUA_INTEGER_FMT, (LUAI_UACINT)lua_tointeger(L, v));
        else put_float(e->out, lua_tonumber(L, v));
        return;
    case LUA_TTABLE:
        luaL_checkstack(L, 12, "hk.json_encode");
        enter(e, v);
        if (is_array(e, v)) array(e, v, order, depth);
        else object(e, v, order, depth);
        e->depth--;
        return;
    default:
        if (lua_rawequal(L, v, e->null_idx)) {
            hk_buf_append(e->out, "null", 4);
            return;
        }
        size_t n;
        const char *s = luaL_tolstring(L, v, &n);
        hk_buf_json_string(e->out, s, n);
        lua_pop(L, 1);
    }
}

/* hk.json_encode(value[, key_order[, compact]]): compact may also be {compact = true}. */
int hkl_json_encode(lua_State *L)
{
    lua_settop(L, 3);
    int compact;
    if (lua_istable(L, 3)) {
        lua_getfield(L, 3, "compact");
        compact = lua_toboolean(L, -1);
        lua_pop(L, 1);
    } else {
        compact = lua_toboolean(L, 3);
    }
    enc e = {0};
    e.L = L;
    e.compact = compact;
    hkl_push_null(L);
    e.null_idx = lua_gettop(L);
    lua_getfield(L, LUA_REGISTRYINDEX, "hk.object_mt");
    e.mt_idx = lua_gettop(L);
    e.mt_plain = lua_istable(L, e.mt_idx);
    static const char *const meta[] = {"__index", "__pairs", "__len"};
    for (size_t i = 0; e.mt_plain && i < sizeof meta / sizeof *meta; i++) {
        lua_pushstring(L, meta[i]);
        e.mt_plain = lua_rawget(L, e.mt_idx) == LUA_TNIL;
        lua_pop(L, 1);
    }
    lua_newtable(L);
    e.anchor_idx = lua_gettop(L);
    e.st = push_state(L);
    e.out = &e.st->out;
    value(&e, 1, lua_istable(L, 2) ? 2 : 0, 0);
    lua_pushlstring(L, (const char *)e.out->data, e.out->len);
    return 1;
}
