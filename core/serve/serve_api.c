/* The JSON API under /api/: the offered queries, a query's run, the console, a bitmap's
 * picture.  Every answer that reads the dump runs under the SIGBUS guard with the Lua lock. */
#include "serve/serve_app.h"

#include <stdio.h>
#include <string.h>

typedef struct call {
    const sv_request *rq;
    sv_reply *rp;
    const char *name;
} call;

static void error_reply(sv_reply *rp, int status, const char *msg)
{
    rp->status = status;
    rp->type = "application/json";
    hk_buf_reset(&rp->body);
    hk_buf_puts(&rp->body, "{\"error\": ");
    hk_buf_json_string(&rp->body, msg, strlen(msg));
    hk_buf_puts(&rp->body, "}\n");
}

static void result_reply(sv_reply *rp, sv_result *r)
{
    int status = sv_status(r);
    if (status != 200) error_reply(rp, status, r->msg);
    else {
        rp->status = 200;
        hk_buf_append(&rp->body, r->out.data, r->out.len);
    }
}

static void do_query(sv_app *a, void *arg)
{
    call *c = arg;
    if (sv_cache_get(c->name, c->rq->params, c->rq->nparams, &c->rp->body)) {
        c->rp->status = 200;
        c->rp->cached = 1;
        return;
    }
    sv_result r = {0};
    hk_buf_init(&r.out);
    sv_run_query(a, c->name, c->rq->params, c->rq->nparams, &r);
    result_reply(c->rp, &r);
    if (c->rp->status == 200) sv_cache_put(c->name, c->rq->params, c->rq->nparams, &c->rp->body);
    hk_buf_free(&r.out);
}

static void do_lua(sv_app *a, void *arg)
{
    call *c = arg;
    sv_result r = {0};
    hk_buf_init(&r.out);
    sv_run_lua(a, c->rq->body, c->rq->body_len, &r);
    if (r.rc) error_reply(c->rp, 400, r.msg);
    else result_reply(c->rp, &r);
    hk_buf_free(&r.out);
}

static void do_queries(sv_app *a, void *arg)
{
    call *c = arg;
    c->rp->status = 200;
    sv_list_queries(a, &c->rp->body, 0);
    hk_buf_puts(&c->rp->body, "\n");
}

static const char *param(const sv_request *rq, const char *key)
{
    for (int i = 0; i < rq->nparams; i++)
        if (!strcmp(rq->params[i].key, key)) return rq->params[i].value;
    return NULL;
}

/* /api/bitmap?id=ID: the picture bitmaps finds for it (the dump, the sidecar folder, a plugin). */
static void do_bitmap(sv_app *a, void *arg)
{
    call *c = arg;
    lua_State *L = hkl_host_state(a->cx->host);
    int top = lua_gettop(L);
    const char *id = param(c->rq, "id");
    lua_rawgeti(L, LUA_REGISTRYINDEX, a->cx->dump_ref);
    lua_getfield(L, -1, "bitmap_image");
    lua_insert(L, -2);
    lua_pushstring(L, id ? id : "");
    sv_capture_begin();
    int rc = hkl_pcall(L, 2, 2);
    sv_capture_end(NULL, NULL);
    if (rc != LUA_OK || !lua_isstring(L, -2)) {
        const char *why = rc != LUA_OK ? hkl_error_text(L, -1) : lua_tostring(L, -1);
        char msg[512];
        snprintf(msg, sizeof msg, "no picture for %s: %s", id ? id : "(no id)", why ? why : "none found");
        error_reply(c->rp, 404, msg);
    } else {
        size_t n;
        const char *png = lua_tolstring(L, -2, &n);
        c->rp->status = 200;
        c->rp->type = "image/png";
        hk_buf_append(&c->rp->body, png, n);
    }
    lua_settop(L, top);
}

static void do_info(sv_app *a, void *arg)
{
    call *c = arg;
    hk_buf *b = &c->rp->body;
    c->rp->status = 200;
    hk_buf_puts(b, "{\"dump\": ");
    hk_buf_json_string(b, a->dump_path, strlen(a->dump_path));
    hk_buf_puts(b, ", \"baseline\": ");
    if (a->baseline) hk_buf_json_string(b, a->baseline, strlen(a->baseline));
    else hk_buf_puts(b, "null");
    hk_buf_printf(b, ", \"meminfo\": %s, \"native\": %s, \"time_limit\": %g, \"console_blocks_api\": true}\n",
                  a->meminfo ? "true" : "false", a->native ? "true" : "false", a->time_limit);
}

void sv_api(void *ctx, const sv_request *rq, sv_reply *rp)
{
    sv_app *a = ctx;
    call c = {rq, rp, NULL};
    void (*fn)(sv_app *, void *) = NULL;
    if (!strncmp(rq->path, "query/", 6)) c.name = rq->path + 6, fn = do_query;
    else if (!strcmp(rq->path, "queries")) fn = do_queries;
    else if (!strcmp(rq->path, "info")) fn = do_info;
    else if (!strcmp(rq->path, "bitmap")) fn = do_bitmap;
    else if (!strcmp(rq->path, "lua")) {
        if (strcmp(rq->method, "POST")) return error_reply(rp, 405, "the console takes its snippet as a POST body");
        fn = do_lua;
    }
    if (!fn)
        return error_reply(rp, 404, "no such API: /api/queries, /api/query/NAME, /api/lua, /api/bitmap, /api/info");
    if (sv_guarded(a, fn, &c) < 0)
        error_reply(rp, 500,
                    "the dump changed on disk while the server was reading it (truncated or rewritten); "
                    "restart hprofkit serve on the new file");
}
