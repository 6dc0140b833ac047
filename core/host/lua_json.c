/* JSON text to Lua values: how plugin functions hand results to scripts. */
#include "host/lua_host.h"

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
        if (p->s >= p->end) return bad(p, "unterminated escape", start);
        c = *p->s++;
        switch (c) {
        case 'n': luaL_addchar(&b, '\n'); break;
        case 't': luaL_addchar(&b, '\t'); break;
        case 'r': luaL_addchar(&b, '\r'); break;
        case 'b': luaL_addchar(&b, '\b'); break;
        case 'f': luaL_addchar(&b, '\f'); break;
        case 'u': {
            unsigned cp;
            if (p->end - p->s < 4 || hex4(p->s, &cp) < 0) return bad(p, "bad \\u escape", start);
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
    if (p->s >= p->end) return bad(p, "unterminated string", start);
    p->s++;
    luaL_pushresult(&b);
    return 0;
}

static int value(lua_State *L, jp *p, const char *start)
{
    ws(p);
    if (p->s >= p->end) return bad(p, "unexpected end", start);
    if (++p->depth > 200) return bad(p, "nested too deeply", start);
    luaL_checkstack(L, 4, "json");
    int rc = 0;
    char c = *p->s;
    if (c == '{') {
        p->s++;
        lua_newtable(L);
        /* marked as an object so an empty one is written back as {} rather than [] */
        lua_getfield(L, LUA_REGISTRYINDEX, "hk.object_mt");
        lua_setmetatable(L, -2);
        ws(p);
        if (p->s < p->end && *p->s == '}') {
            p->s++;
            goto done;
        }
        for (;;) {
            ws(p);
            if (p->s >= p->end || *p->s != '"') {
                rc = bad(p, "object key expected", start);
                goto done;
            }
            if ((rc = string(L, p, start)) < 0) goto done;
            ws(p);
            if (p->s >= p->end || *p->s != ':') {
                rc = bad(p, "':' expected", start);
                goto done;
            }
            p->s++;
            if ((rc = value(L, p, start)) < 0) goto done;
            lua_rawset(L, -3);
            ws(p);
            if (p->s < p->end && *p->s == ',') {
                p->s++;
                continue;
            }
            if (p->s < p->end && *p->s == '}') {
                p->s++;
                break;
            }
            rc = bad(p, "',' or '}' expected", start);
            goto done;
        }
    } else if (c == '[') {
        p->s++;
        lua_newtable(L);
        ws(p);
        if (p->s < p->end && *p->s == ']') {
            p->s++;
            goto done;
        }
        for (lua_Integer i = 1;; i++) {
            if ((rc = value(L, p, start)) < 0) goto done;
            lua_rawseti(L, -2, i);
            ws(p);
            if (p->s < p->end && *p->s == ',') {
                p->s++;
                continue;
            }
            if (p->s < p->end && *p->s == ']') {
                p->s++;
                break;
            }
            rc = bad(p, "',' or ']' expected", start);
            goto done;
        }
    } else if (c == '"') {
        rc = string(L, p, start);
    } else if (p->end - p->s >= 4 && !strncmp(p->s, "true", 4)) {
        p->s += 4;
        lua_pushboolean(L, 1);
    } else if (p->end - p->s >= 5 && !strncmp(p->s, "false", 5)) {
        p->s += 5;
        lua_pushboolean(L, 0);
    } else if (p->end - p->s >= 4 && !strncmp(p->s, "null", 4)) {
        p->s += 4;
        lua_getfield(L, LUA_REGISTRYINDEX, "hk.null");
    } else {
        char tmp[64];
        size_t n = 0;
        while (p->s + n < p->end && n < sizeof tmp - 1 && strchr("+-0123456789.eE", p->s[n])) n++;
        if (!n) {
            rc = bad(p, "value expected", start);
            goto done;
        }
        memcpy(tmp, p->s, n);
        tmp[n] = 0;
        if (!lua_stringtonumber(L, tmp)) {
            rc = bad(p, "bad number", start);
            goto done;
        }
        p->s += n;
    }
done:
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
