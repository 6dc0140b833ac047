/* The console: a Lua snippet run against the open dump (`dump` bound to it), its print()s and
 * its first return value (as JSON) handed back, within a time limit.  The snippet runs in the
 * one Lua state, so other API requests wait for it (the page says so); its globals are its own
 * (a table over _G), and os.exit is not among them, nor can its dump:close() close the dump the
 * pages read: the server goes on. */
#include "serve/serve_app.h"

#include <stdio.h>
#include <string.h>

static const char runner[] = "local code, dump = ...\n"
                             "local printed = {}\n"
                             "local safe_os = {clock = os.clock, time = os.time, date = os.date, getenv = os.getenv}\n"
                             "local env = setmetatable({dump = dump, os = safe_os}, {__index = _G})\n"
                             "env.print = function(...)\n"
                             "  local t = table.pack(...)\n"
                             "  for i = 1, t.n do t[i] = tostring(t[i]) end\n"
                             "  printed[#printed + 1] = table.concat(t, '\\t', 1, t.n)\n"
                             "end\n"
                             "local fn, err = load(code, '=console', 't', env)\n"
                             "if not fn then error(err, 0) end\n"
                             "local v = fn()\n"
                             "local text = table.concat(printed, '\\n')\n"
                             "if v == nil then return text, 'null' end\n"
                             "return text, hk.json_encode(v)\n";

/* The error's first line (a script error's traceback is not for the page). */
static void first_line(const char *text, char *msg, size_t n)
{
    const char *nl = strchr(text, '\n');
    snprintf(msg, n, "%.*s", nl ? (int)(nl - text) : (int)strlen(text), text);
}

void sv_run_lua(sv_app *a, const char *code, size_t len, sv_result *r)
{
    lua_State *L = hkl_host_state(a->cx->host);
    int top = lua_gettop(L);
    r->rc = 0;
    r->msg[0] = 0;
    if (luaL_loadbufferx(L, runner, sizeof runner - 1, "=console-runner", "t") != LUA_OK) {
        first_line(lua_tostring(L, -1), r->msg, sizeof r->msg);
        r->rc = 1;
        lua_settop(L, top);
        return;
    }
    lua_pushlstring(L, code, len);
    lua_rawgeti(L, LUA_REGISTRYINDEX, a->cx->dump_ref);
    hk_dump *d = hkl_check_dump(L, -1);
    lua_pop(L, 1);
    hkl_push_dump(L, d, 1); /* borrowed: the snippet's dump:close() closes its handle, not the dump */
    /* the scripts' one limit, at the console's length: past it even a pcall loop is stopped */
    hkl_limit_enter_with(L, a->time_limit, "hprofkit serve --time-limit SECONDS");
    int rc = lua_pcall(L, 2, 2, 0);
    hkl_limit_leave(L);
    if (rc != LUA_OK) {
        first_line(hkl_error_text(L, -1), r->msg, sizeof r->msg);
        r->rc = 1;
    } else {
        size_t olen, jlen;
        const char *out = lua_tolstring(L, -2, &olen), *json = lua_tolstring(L, -1, &jlen);
        hk_buf_puts(&r->out, "{\"output\": ");
        hk_buf_json_string(&r->out, out ? out : "", out ? olen : 0);
        hk_buf_puts(&r->out, ", \"result\": ");
        hk_buf_append(&r->out, json ? json : "null", json ? jlen : 4);
        hk_buf_puts(&r->out, "}\n");
    }
    lua_settop(L, top);
}
