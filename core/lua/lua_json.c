/* JSON text to Lua values: how plugin functions hand results to scripts. */
#include "lua/lua_host.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct jp {
    const char *s, *end;
    char *err;
    size_t errlen;
    int depth;
} jp;

static void ws(jp *p)
{
    while (p->s < p->end && (*p->s == ' ' || *p->s == '\t' || *p->s == '\n' || *p->s == '\r')) p->s++;
}

static int bad(jp *p, const char *what, const char *start)
{
    snprintf(p->err, p->errlen, "invalid JSON at byte %ld: %s", (long)(p->s - start), what);
    return -1;
}

static int value(lua_State *L, jp *p, const char *start);

static int hex4(const char *s, unsigned *out)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        char c = s[i];
        v <<= 4;
        if (c >= '0' && c <= '9') v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f') v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') v |= (unsigned)(c - 'A' + 10);
        else return -1;
    }
    *out = v;
    return 0;
}

/* A string that fails midway closes its buffer first: the buffer's box is a to-be-closed slot,
 * and Lua 5.4.4's lua_settop, which would otherwise close it when the caller unwinds, can write
 * through a stale stack pointer when closing reallocates the stack (fixed in 5.4.5): a
 * use-after-free that the facts fuzz target hit once (t_lua_bindings json-decode-unwind). */
static int bad_string(lua_State *L, luaL_Buffer *b, jp *p, const char *what, const char *start)
{
    luaL_pushresult(b);
    lua_pop(L, 1);
    return bad(p, what, start);
}

static int string(lua_State *L, jp *p, const char *start)
{
    luaL_Buffer b;
    p->s++;
    luaL_buffinit(L, &b);
    while (p->s < p->end && *p->s != '"') {
        char c = *p->s++;
        if (c != '\\') {
            luaL_addchar(&b, c);
            continue;
        }
        if (p->s >= p->end) return bad_string(L, &b, p, "unterminated escape", start);
        c = *p->s++;
        switch (c) {
        case 'n': luaL_addchar(&b, '\n'); break;
        case 't': luaL_addchar(&b, '\t'); break;
        case 'r': luaL_addchar(&b, '\r'); break;
        case 'b': luaL_addchar(&b, '\b'); break;
        case 'f': luaL_addchar(&b, '\f'); break;
        case 'u': {
            unsigned cp;
            if (p->end - p->s < 4 || hex4(p->s, &cp) < 0) return bad_string(L, &b, p, "bad \\u escape", start);
            p->s += 4;
            if (cp >= 0xD800 && cp < 0xDC00 && p->end - p->s >= 6 && p->s[0] == '\\' && p->s[1] == 'u') {
                unsigned lo;
                if (hex4(p->s + 2, &lo) == 0 && lo >= 0xDC00 && lo < 0xE000) {
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                    p->s += 6;
                }
            }
            char u[8];
            lua_pushfstring(L, "%U", (long)cp);
            size_t n;
            const char *t = lua_tolstring(L, -1, &n);
            memcpy(u, t, n);
            lua_pop(L, 1);
            luaL_addlstring(&b, u, n);
            break;
        }
        default: luaL_addchar(&b, c);
        }
    }
    if (p->s >= p->end) return bad_string(L, &b, p, "unterminated string", start);
    p->s++;
    luaL_pushresult(&b);
    return 0;
}

/* Consumes c when it comes next (after white space): 1, else 0. */
static int eat(jp *p, char c)
{
    ws(p);
    if (p->s >= p->end || *p->s != c) return 0;
    p->s++;
    return 1;
}

/* After an object's member or an array's element: 1 when a ',' says another follows, 0 when
 * the closing bracket ends it (consumed), -1 for anything else. */
static int next_or_close(jp *p, char close, const char *start)
{
    if (eat(p, ',')) return 1;
    if (eat(p, close)) return 0;
    return bad(p, close == '}' ? "',' or '}' expected" : "',' or ']' expected", start);
}

static int object(lua_State *L, jp *p, const char *start)
{
    p->s++;
    lua_newtable(L);
    /* marked as an object so an empty one is written back as {} rather than [] */
    lua_getfield(L, LUA_REGISTRYINDEX, "hk.object_mt");
    lua_setmetatable(L, -2);
    if (eat(p, '}')) return 0;
    int rc;
    do {
        ws(p);
        if (p->s >= p->end || *p->s != '"') return bad(p, "object key expected", start);
        if (string(L, p, start) < 0) return -1;
        if (!eat(p, ':')) return bad(p, "':' expected", start);
        if (value(L, p, start) < 0) return -1;
        lua_rawset(L, -3);
    } while ((rc = next_or_close(p, '}', start)) > 0);
    return rc;
}

static int array(lua_State *L, jp *p, const char *start)
{
    p->s++;
    lua_newtable(L);
    if (eat(p, ']')) return 0;
    lua_Integer i = 0;
    int rc;
    do {
        if (value(L, p, start) < 0) return -1;
        lua_rawseti(L, -2, ++i);
    } while ((rc = next_or_close(p, ']', start)) > 0);
    return rc;
}

static int number(lua_State *L, jp *p, const char *start)
{
    char tmp[64];
    size_t n = 0;
    while (p->s + n < p->end && n < sizeof tmp - 1 && strchr("+-0123456789.eE", p->s[n])) n++;
    if (!n) return bad(p, "value expected", start);
    memcpy(tmp, p->s, n);
    tmp[n] = 0;
    if (!lua_stringtonumber(L, tmp)) return bad(p, "bad number", start);
    p->s += n;
    return 0;
}

/* true, false, null (hk.null), or else a number */
static int scalar(lua_State *L, jp *p, const char *start)
{
    static const struct {
        const char *word;
        int boolean; /* -1: null */
    } words[] = {{"true", 1}, {"false", 0}, {"null", -1}};
    for (size_t i = 0; i < sizeof words / sizeof *words; i++) {
        size_t n = strlen(words[i].word);
        if ((size_t)(p->end - p->s) < n || strncmp(p->s, words[i].word, n)) continue;
        p->s += n;
        if (words[i].boolean < 0) hkl_push_null(L);
        else lua_pushboolean(L, words[i].boolean);
        return 0;
    }
    return number(L, p, start);
}

static int value(lua_State *L, jp *p, const char *start)
{
    ws(p);
    if (p->s >= p->end) return bad(p, "unexpected end", start);
    if (p->depth >= 200) return bad(p, "nested too deeply", start);
    luaL_checkstack(L, 4, "json");
    p->depth++;
    int rc = *p->s == '{'   ? object(L, p, start)
             : *p->s == '[' ? array(L, p, start)
             : *p->s == '"' ? string(L, p, start)
                            : scalar(L, p, start);
    p->depth--;
    return rc;
}

int hkl_push_json(lua_State *L, const char *text, size_t len, char *err, size_t errlen)
{
    jp p = {text, text + len, err, errlen, 0};
    int top = lua_gettop(L);
    if (value(L, &p, text) < 0) {
        lua_settop(L, top);
        return -1;
    }
    ws(&p);
    if (p.s != p.end) {
        lua_settop(L, top);
        return bad(&p, "trailing characters", text);
    }
    return 0;
}
