/*
 * The explorer's and the MCP server's one door to the queries: the dump opened once, every
 * registered query that reads it and writes nothing run exactly as `hprofkit QUERY --json` runs
 * it (cli_run_query, its output and one-line errors captured), and the Lua console.  The Lua
 * state is one: whoever holds `lock` uses it; a request for a page's files never takes it.
 */
#ifndef HK_SERVE_APP_H
#define HK_SERVE_APP_H

#include "cli/cli.h"
#include "serve/serve_http.h"

#include <pthread.h>
#include <signal.h>

typedef struct sv_app {
    cli_ctx *cx;
    pthread_mutex_t lock;
    const char *dump_path, *baseline, *base_map, *meminfo, *native;
    double time_limit;            /* seconds a console snippet may run */
    volatile sig_atomic_t broken; /* a SIGBUS: the dump changed on disk; no more requests on it */
} sv_app;

/* A query's run: the exit status the CLI would have, its JSON output, the error's one line. */
typedef struct sv_result {
    int rc;
    hk_buf out;
    char msg[1024];
} sv_result;

/* Opens the dump (and keeps it in cx->dump_ref); 0 or an exit code after one line on stderr. */
int sv_app_open(sv_app *a, cli_ctx *cx, const char *dump);
/* Is the query (its definition at def) offered over HTTP and MCP?  Those that read the open dump
 * and write nothing: not the device and fleet commands, diff only with a baseline. */
int sv_offered(lua_State *L, const sv_app *a, const char *name, int def);
/* Runs a query with its arguments as name=value pairs (a list repeats the name); with the lock
 * held.  Refused arguments (those that write or name files) give rc 2 and the reason. */
void sv_run_query(sv_app *a, const char *name, const sv_param *ps, int n, sv_result *r);
/* The offered queries as JSON: [{name, help, input_schema}] (mcp: MCP's tools shape). */
void sv_list_queries(sv_app *a, hk_buf *b, int mcp);
/* Runs a Lua snippet with `dump` bound, within the time limit: {"output", "result"} or rc != 0. */
void sv_run_lua(sv_app *a, const char *code, size_t len, sv_result *r);
/* HTTP status for a result: 200, 400 (bad arguments), 404 (no such object/class), 422. */
int sv_status(const sv_result *r);

/* Output capture around a run: stdout and stderr go to memory (serve_capture.c). */
void sv_capture_begin(void);
void sv_capture_end(hk_buf *out, hk_buf *err);
/* The one line of a failed run's stderr that says why. */
void sv_error_line(const char *err, const char *name, char *msg, size_t n);

/* The SIGBUS guard (serve_guard_bus.c): runs fn(a, arg) with the lock held; 0, or -1 when the
 * dump's mapping faulted (a->broken set, never cleared). */
int sv_guarded(sv_app *a, void (*fn)(sv_app *a, void *arg), void *arg);
void sv_install_sigbus(void);

/* The answers of triage, diff and leaks kept once given (serve_cache.c): 1 with the answer
 * appended to out, else 0; put keeps a 200 answer.  With the Lua lock held. */
int sv_cache_get(const char *name, const sv_param *ps, int n, hk_buf *out);
void sv_cache_put(const char *name, const sv_param *ps, int n, const hk_buf *body);

/* The API callback for serve_http.c. */
void sv_api(void *ctx, const sv_request *rq, sv_reply *rp);

/* Entry points for main.c. */
int sv_serve_main(cli_ctx *cx, int argc, char **argv);
int sv_mcp_main(cli_ctx *cx, int argc, char **argv);

#endif
