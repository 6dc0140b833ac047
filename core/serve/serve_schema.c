/* The offered queries described for a program: name, help and a JSON Schema of the arguments,
 * made from what the query declares (its defaults type its options, its positionals are
 * required), so a user's own query is described with no extra work. */
#include "serve/serve_app.h"

#include <string.h>

static const char *json_type(lua_State *L, int idx)
{
    switch (lua_type(L, idx)) {
    case LUA_TBOOLEAN: return "boolean";
    case LUA_TNUMBER: return lua_isinteger(L, idx) ? "integer" : "number";
    case LUA_TTABLE: return "array";
    default: return "string";
    }
}

/* What a client may not set (the server's files, the output): left out of the schema. */
static int hidden(const char *k)
{
    static const char *const keys[] = {"export",   "sidecar", "meminfo", "baseline", "samples", "report",
                                       "base_map", "trace",   "hprof",   "output",   "native",  NULL};
    for (int i = 0; keys[i]; i++)
        if (!strcmp(keys[i], k)) return 1;
    return 0;
}

static void put_key(hk_buf *b, int *first, const char *k)
{
    hk_buf_puts(b, *first ? "" : ", ");
    *first = 0;
    hk_buf_json_string(b, k, strlen(k));
    hk_buf_puts(b, ": ");
}

static void option_props(lua_State *L, int def, hk_buf *b, int *first)
{
    if (lua_getfield(L, def, "args") == LUA_TTABLE) {
        lua_pushnil(L);
        while (lua_next(L, -2)) {
            const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
            if (k && !hidden(k)) {
                const char *t = json_type(L, -1);
                put_key(b, first, k);
                hk_buf_printf(b, "{\"type\": \"%s\"", t);
                if (!strcmp(t, "array")) hk_buf_puts(b, ", \"items\": {\"type\": \"string\"}");
                else if (lua_isboolean(L, -1))
                    hk_buf_printf(b, ", \"default\": %s", lua_toboolean(L, -1) ? "true" : "false");
                else if (lua_type(L, -1) == LUA_TNUMBER) hk_buf_printf(b, ", \"default\": %s", lua_tostring(L, -1));
                else {
                    hk_buf_puts(b, ", \"default\": ");
                    hk_buf_json_string(b, lua_tostring(L, -1), lua_rawlen(L, -1));
                }
                hk_buf_puts(b, "}");
            }
            lua_pop(L, 1);
        }
    }
    lua_pop(L, 1);
    put_key(b, first, "sort");
    hk_buf_puts(b,
                "{\"type\": \"string\", \"description\": \"a column to sort a listing by (numbers largest first)\"}");
    put_key(b, first, "class");
    hk_buf_puts(b, "{\"type\": \"string\", \"description\": \"keep rows whose class matches this shell glob\"}");
}

/* The positionals besides the dump (and diff's base): required strings. */
static void positional_props(lua_State *L, int def, hk_buf *b, int *first, hk_buf *req)
{
    int rfirst = 1;
    if (lua_getfield(L, def, "positional") == LUA_TTABLE) {
        for (lua_Integer i = 1; lua_rawgeti(L, -1, i) == LUA_TSTRING; i++) {
            const char *p = lua_tostring(L, -1);
            if (strcmp(p, "dump") && strcmp(p, "base") && !strstr(p, "...")) {
                put_key(b, first, p);
                hk_buf_puts(b, "{\"type\": \"string\"}");
                hk_buf_puts(req, rfirst ? "" : ", ");
                rfirst = 0;
                hk_buf_json_string(req, p, strlen(p));
            }
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
}

static void describe(lua_State *L, const char *name, int def, hk_buf *b, int mcp)
{
    hk_buf req;
    hk_buf_init(&req);
    hk_buf_puts(b, "{\"name\": ");
    hk_buf_json_string(b, name, strlen(name));
    hk_buf_puts(b, mcp ? ", \"description\": " : ", \"help\": ");
    lua_getfield(L, def, "help");
    size_t hl = 0;
    const char *help = lua_isstring(L, -1) ? lua_tolstring(L, -1, &hl) : "";
    hk_buf_json_string(b, help, hl);
    lua_pop(L, 1);
    hk_buf_puts(b, mcp ? ", \"inputSchema\": " : ", \"input_schema\": ");
    hk_buf_puts(b, "{\"type\": \"object\", \"properties\": {");
    int first = 1;
    positional_props(L, def, b, &first, &req);
    option_props(L, def, b, &first);
    hk_buf_printf(b, "}, \"required\": [%s]}}", hk_buf_cstr(&req));
    hk_buf_free(&req);
}

void sv_list_queries(sv_app *a, hk_buf *b, int mcp)
{
    lua_State *L = hkl_host_state(a->cx->host);
    int top = lua_gettop(L);
    hkl_push_queries(L);
    int q = lua_gettop(L);
    cli_push_sorted_keys(L, q);
    int names = lua_gettop(L);
    hk_buf_puts(b, "[");
    int first = 1;
    for (lua_Integer i = 1; lua_rawgeti(L, names, i) == LUA_TSTRING; i++) {
        const char *name = lua_tostring(L, -1);
        lua_getfield(L, q, name);
        if (sv_offered(L, a, name, lua_gettop(L))) {
            hk_buf_puts(b, first ? (mcp ? "" : "\n ") : (mcp ? ", " : ",\n ")); /* MCP: one line a message */
            first = 0;
            describe(L, name, lua_gettop(L), b, mcp);
        }
        lua_pop(L, 2);
    }
    hk_buf_puts(b, mcp ? "]" : "\n]");
    lua_settop(L, top);
}
