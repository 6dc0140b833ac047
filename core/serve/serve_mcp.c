/* `hprofkit mcp DUMP`: the offered queries as Model Context Protocol tools over stdio, one
 * JSON-RPC 2.0 message a line.  initialize, tools/list (a tool per query, its input schema
 * from the query's declarations), tools/call (the query's JSON, as `hprofkit NAME --json`
 * prints it; a failure is a tool error with the one-line message), ping. */
#include "serve/serve_app.h"
#include "hk_config.h"
#include "util/hk_mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MCP_VERSION "2025-06-18"
#define MAX_ARGS    64

/* The request's id as JSON text, copied into the reply. */
static void put_id(lua_State *L, int msg, hk_buf *b)
{
    lua_getfield(L, msg, "id");
    if (lua_isinteger(L, -1)) hk_buf_printf(b, "%lld", (long long)lua_tointeger(L, -1));
    else if (lua_type(L, -1) == LUA_TNUMBER) hk_buf_printf(b, "%.17g", lua_tonumber(L, -1));
    else if (lua_type(L, -1) == LUA_TSTRING) hk_buf_json_string(b, lua_tostring(L, -1), lua_rawlen(L, -1));
    else hk_buf_puts(b, "null");
    lua_pop(L, 1);
}

static void send(hk_buf *b)
{
    fwrite(b->data, 1, b->len, stdout);
    fputc('\n', stdout);
    fflush(stdout);
}

static void reply_error(lua_State *L, int msg, int code, const char *text)
{
    hk_buf b;
    hk_buf_init(&b);
    hk_buf_puts(&b, "{\"jsonrpc\": \"2.0\", \"id\": ");
    if (msg) put_id(L, msg, &b);
    else hk_buf_puts(&b, "null");
    hk_buf_printf(&b, ", \"error\": {\"code\": %d, \"message\": ", code);
    hk_buf_json_string(&b, text, strlen(text));
    hk_buf_puts(&b, "}}");
    send(&b);
    hk_buf_free(&b);
}

/* {"jsonrpc", "id", "result": <result>} */
static void reply(lua_State *L, int msg, const char *result, size_t n)
{
    hk_buf b;
    hk_buf_init(&b);
    hk_buf_puts(&b, "{\"jsonrpc\": \"2.0\", \"id\": ");
    put_id(L, msg, &b);
    hk_buf_puts(&b, ", \"result\": ");
    hk_buf_append(&b, result, n);
    hk_buf_puts(&b, "}");
    send(&b);
    hk_buf_free(&b);
}

static void initialize(sv_app *a, lua_State *L, int msg)
{
    hk_buf b;
    hk_buf_init(&b);
    lua_getfield(L, msg, "params");
    const char *v = NULL;
    if (lua_istable(L, -1) && lua_getfield(L, -1, "protocolVersion") == LUA_TSTRING) v = lua_tostring(L, -1);
    hk_buf_puts(&b, "{\"protocolVersion\": ");
    hk_buf_json_string(&b, v ? v : MCP_VERSION, strlen(v ? v : MCP_VERSION));
    hk_buf_puts(&b, ", \"capabilities\": {\"tools\": {\"listChanged\": false}}, \"serverInfo\": "
                    "{\"name\": \"hprofkit\", \"version\": \"" HK_VERSION "\"}, \"instructions\": ");
    char text[1200];
    snprintf(text, sizeof text,
             "Each tool is an hprofkit query run on the heap dump %s (indexed once); its result is the "
             "query's JSON, as `hprofkit NAME --json` prints it. Object ids are hex strings.",
             a->dump_path);
    hk_buf_json_string(&b, text, strlen(text));
    hk_buf_puts(&b, "}");
    reply(L, msg, (const char *)b.data, b.len);
    hk_buf_free(&b);
    lua_settop(L, msg);
}

typedef struct tool_call {
    const char *name;
    sv_param ps[MAX_ARGS];
    char *own[MAX_ARGS]; /* the values' text */
    int n;
    sv_result r;
} tool_call;

static void run_call(sv_app *a, void *arg)
{
    tool_call *t = arg;
    sv_run_query(a, t->name, t->ps, t->n, &t->r);
}

static void add_pair(lua_State *L, tool_call *t, const char *k, int v)
{
    if (t->n >= MAX_ARGS) return;
    const char *s = lua_isboolean(L, v) ? (lua_toboolean(L, v) ? "true" : "false") : luaL_tolstring(L, v, NULL);
    t->own[t->n] = hk_xstrdup(s);
    if (!lua_isboolean(L, v)) lua_pop(L, 1);
    t->ps[t->n] = (sv_param){k, t->own[t->n]};
    t->n++;
}

/* arguments {k: v} as the pairs a URL would give: numbers and booleans as text, lists repeated
 * (the keys stay alive in the arguments table) */
static void take_arguments(lua_State *L, int args, tool_call *t)
{
    lua_pushnil(L);
    while (lua_next(L, args)) {
        if (lua_type(L, -2) == LUA_TSTRING) {
            const char *k = lua_tostring(L, -2);
            if (!lua_istable(L, -1)) add_pair(L, t, k, lua_gettop(L));
            else {
                for (lua_Integer i = 1; lua_rawgeti(L, -1, i) != LUA_TNIL; i++) {
                    add_pair(L, t, k, lua_gettop(L));
                    lua_pop(L, 1);
                }
                lua_pop(L, 1); /* the nil that ended the list */
            }
        }
        lua_pop(L, 1);
    }
}

static void call_tool(sv_app *a, lua_State *L, int msg)
{
    tool_call t = {.n = 0};
    hk_buf_init(&t.r.out);
    lua_getfield(L, msg, "params");
    int params = lua_gettop(L);
    if (!lua_istable(L, params) || lua_getfield(L, params, "name") != LUA_TSTRING) {
        reply_error(L, msg, -32602, "tools/call needs params.name");
        lua_settop(L, msg);
        return;
    }
    t.name = lua_tostring(L, -1);
    if (lua_getfield(L, params, "arguments") == LUA_TTABLE) take_arguments(L, lua_gettop(L), &t);
    int faulted = sv_guarded(a, run_call, &t) < 0;
    int ok = !faulted && sv_status(&t.r) == 200;
    const char *text = ok        ? hk_buf_cstr(&t.r.out)
                       : faulted ? "the dump changed on disk while it was being read; restart hprofkit mcp"
                                 : t.r.msg;
    hk_buf b;
    hk_buf_init(&b);
    hk_buf_puts(&b, "{\"content\": [{\"type\": \"text\", \"text\": ");
    hk_buf_json_string(&b, text, strlen(text));
    hk_buf_printf(&b, "}], \"isError\": %s}", ok ? "false" : "true");
    reply(L, msg, (const char *)b.data, b.len);
    hk_buf_free(&b);
    hk_buf_free(&t.r.out);
    for (int i = 0; i < t.n; i++) free(t.own[i]);
    lua_settop(L, msg);
}

static void list_tools(sv_app *a, lua_State *L, int msg)
{
    hk_buf b;
    hk_buf_init(&b);
    hk_buf_puts(&b, "{\"tools\": ");
    sv_list_queries(a, &b, 1);
    hk_buf_puts(&b, "}");
    reply(L, msg, (const char *)b.data, b.len);
    hk_buf_free(&b);
}

/* One message (the table at msg): a request gets one reply, a notification none. */
static void dispatch(sv_app *a, lua_State *L, int msg)
{
    lua_getfield(L, msg, "method");
    const char *m = lua_tostring(L, -1);
    lua_getfield(L, msg, "id");
    int notification = lua_isnil(L, -1);
    lua_pop(L, 1);
    if (!m) reply_error(L, msg, -32600, "not a JSON-RPC request: no method");
    else if (!strcmp(m, "initialize")) initialize(a, L, msg);
    else if (!strcmp(m, "tools/list")) list_tools(a, L, msg);
    else if (!strcmp(m, "tools/call")) call_tool(a, L, msg);
    else if (!strcmp(m, "ping")) reply(L, msg, "{}", 2);
    else if (!notification) {
        char text[300];
        snprintf(text, sizeof text, "method not found: %s", m);
        reply_error(L, msg, -32601, text);
    }
    lua_settop(L, msg);
}

static void mcp_usage(FILE *f)
{
    fputs("usage: hprofkit mcp DUMP [--baseline DUMP] [--base-map FILE] [--meminfo FILE] [--native TRACE]\n"
          "\n"
          "A Model Context Protocol server over stdio (JSON-RPC 2.0, one message a line) for an\n"
          "assistant: every query that reads DUMP and writes nothing is a tool (hprofkit queries\n"
          "lists them; yours included), its input schema made from the query's arguments; a call\n"
          "returns the query's JSON, as `hprofkit NAME --json` prints it.  DUMP is indexed once.\n"
          "With --baseline, the queries that take --baseline answer beside it, as serve's lists.\n",
          f);
}

static int mcp_args(sv_app *a, int argc, char **argv)
{
    for (int i = 0; i < argc; i++) {
        const char *o = argv[i], **slot = NULL;
        if (!strcmp(o, "--help") || !strcmp(o, "-h")) return mcp_usage(stdout), 1;
        if (!strcmp(o, "--baseline")) slot = &a->baseline;
        else if (!strcmp(o, "--base-map")) slot = &a->base_map;
        else if (!strcmp(o, "--meminfo")) slot = &a->meminfo;
        else if (!strcmp(o, "--native")) slot = &a->native;
        else if (o[0] != '-' && !a->dump_path) a->dump_path = o;
        else return fprintf(stderr, "hprofkit mcp: unexpected '%s' (see hprofkit mcp --help)\n", o), -1;
        if (slot && i + 1 >= argc) return fprintf(stderr, "hprofkit mcp: %s needs a value\n", o), -1;
        if (slot) *slot = argv[++i];
    }
    if (!a->dump_path) return fprintf(stderr, "hprofkit mcp: missing DUMP (usage: hprofkit mcp DUMP)\n"), -1;
    return 0;
}

int sv_mcp_main(cli_ctx *cx, int argc, char **argv)
{
    static sv_app a;
    a.time_limit = 10;
    int rc = mcp_args(&a, argc, argv);
    if (rc) return rc > 0 ? 0 : 2;
    rc = sv_app_open(&a, cx, a.dump_path);
    if (rc) return rc;
    sv_install_sigbus();
    lua_State *L = hkl_host_state(cx->host);
    char *line = NULL, err[256];
    size_t cap = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, stdin)) >= 0) {
        int top = lua_gettop(L);
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r')) line[--n] = 0;
        if (!n) continue;
        if (hkl_push_json(L, line, (size_t)n, err, sizeof err) < 0 || !lua_istable(L, -1))
            reply_error(L, 0, -32700, "parse error: not a JSON object");
        else dispatch(&a, L, lua_gettop(L));
        lua_settop(L, top);
    }
    free(line);
    return a.broken ? 1 : 0;
}
