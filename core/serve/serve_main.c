/* `hprofkit serve DUMP`: index once, serve the explorer until Ctrl-C. */
#include "serve/serve_app.h"
#include "hk_config.h"
#include "open/open.h"
#include "util/hk_file.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct serve_opts {
    const char *dump, *baseline, *base_map, *meminfo, *native;
    double time_limit;
    int open;
    sv_options http;
} serve_opts;

static void serve_usage(FILE *f)
{
    fputs("usage: hprofkit serve DUMP [--baseline DUMP] [--base-map FILE] [--meminfo FILE] [--native TRACE]\n"
          "                      [--port N] [--bind ADDR] [--allow-host NAME]... [--time-limit SECONDS] [--open]\n"
          "\n"
          "Explore DUMP in a browser: indexes it once, prints the address to open (with this run's\n"
          "token) and serves until Ctrl-C.  Pages for the overview, classes, objects, dominators,\n"
          "leaks, bitmaps, duplicates, a console and search, on a JSON API (/api/query/NAME runs\n"
          "any query that reads the dump, with its arguments, as `hprofkit NAME --json` would).\n"
          "  --baseline DUMP   diff mode: every list beside this earlier dump, marked NEW / REMOVED /\n"
          "                    GREW / SHRANK, and a Diff page (--base-map: its map); indexed once too\n"
          "  --meminfo FILE    dumpsys meminfo beside the dump's numbers on the overview\n"
          "  --native TRACE    a heapprofd profile of the app: its hotspots and flame graph on the overview\n"
          "  --port N          0 (default): a free port\n"
          "  --bind ADDR       listen on ADDR instead of 127.0.0.1 and ::1 (a warning: the dump is\n"
          "                    then reachable by anyone who can reach ADDR and has the token)\n"
          "  --allow-host NAME a Host name besides localhost and the bound address\n"
          "  --time-limit S    how long a console snippet may run (default 10); API requests wait\n"
          "                    for a running snippet, the page's own files do not\n"
          "  --open            start the desktop's browser (xdg-open) when there is a display\n",
          f);
}

static int take_value(int argc, char **argv, int *i, const char **v)
{
    if (*i + 1 >= argc) {
        fprintf(stderr, "hprofkit serve: %s needs a value\n", argv[*i]);
        return -1;
    }
    *v = argv[++*i];
    return 0;
}

static int number(const char *opt, const char *v, double lo, double hi, double *out)
{
    char *end;
    *out = strtod(v, &end);
    if (end == v || *end || *out < lo || *out > hi) {
        fprintf(stderr, "hprofkit serve: %s needs a number from %g to %g, got '%s'\n", opt, lo, hi, v);
        return -1;
    }
    return 0;
}

/* One option at argv[*i]; 1 when it was --help, -1 on a usage error. */
static int one_option(serve_opts *o, int argc, char **argv, int *i)
{
    const char *a = argv[*i], *v = NULL;
    double n;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) return 1;
    if (!strcmp(a, "--open")) o->open = 1;
    else if (a[0] != '-' && !o->dump) o->dump = a;
    else if (!strcmp(a, "--baseline")) return take_value(argc, argv, i, &o->baseline);
    else if (!strcmp(a, "--base-map")) return take_value(argc, argv, i, &o->base_map);
    else if (!strcmp(a, "--meminfo")) return take_value(argc, argv, i, &o->meminfo);
    else if (!strcmp(a, "--native")) return take_value(argc, argv, i, &o->native);
    else if (!strcmp(a, "--bind")) return take_value(argc, argv, i, &o->http.bind);
    else if (!strcmp(a, "--allow-host")) {
        if (take_value(argc, argv, i, &v) < 0) return -1;
        if (o->http.nallow >= SV_MAX_HOSTS) return fprintf(stderr, "hprofkit serve: too many --allow-host\n"), -1;
        o->http.allow_hosts[o->http.nallow++] = v;
    } else if (!strcmp(a, "--port") || !strcmp(a, "--time-limit")) {
        int port = a[2] == 'p';
        if (take_value(argc, argv, i, &v) < 0 || number(a, v, port ? 0 : 0.1, port ? 65535 : 3600, &n) < 0) return -1;
        if (port && n != (int)n) return fprintf(stderr, "hprofkit serve: --port needs a whole number\n"), -1;
        if (port) o->http.port = (int)n;
        else o->time_limit = n;
    } else {
        fprintf(stderr, "hprofkit serve: %s '%s' (see hprofkit serve --help)\n",
                a[0] == '-' ? "unknown option" : "unexpected argument", a);
        return -1;
    }
    return 0;
}

static int parse(serve_opts *o, int argc, char **argv)
{
    for (int i = 0; i < argc; i++) {
        int rc = one_option(o, argc, argv, &i);
        if (rc) return rc;
    }
    if (!o->dump) {
        fprintf(stderr, "hprofkit serve: missing DUMP (usage: hprofkit serve DUMP [options])\n");
        return -1;
    }
    char err[1024];
    const char *files[] = {o->baseline, o->base_map, o->meminfo, o->native},
               *what[] = {"--baseline", "--base-map", "--meminfo", "--native"};
    for (int k = 0; k < 4; k++)
        if (files[k] && hk_check_file(what[k], files[k], err, sizeof err) < 0)
            return fprintf(stderr, "hprofkit serve: %s\n", err), -1;
    return 0;
}

/* The page's files, installed with the scripts (scripts/report/): read once, served from memory. */
static const struct {
    const char *path, *file, *type;
} asset_files[] = {
    {"/", "explorer.html", "text/html; charset=utf-8"},
    {"/ui.js", "ui.js", "text/javascript; charset=utf-8"},
    {"/explorer.js", "explorer.js", "text/javascript; charset=utf-8"},
    {"/report.css", "report.css", "text/css; charset=utf-8"},
    {"/explorer.css", "explorer.css", "text/css; charset=utf-8"},
};
#define NASSETS (int)(sizeof asset_files / sizeof asset_files[0])

static int load_assets(const cli_ctx *cx, sv_asset *out)
{
    for (int i = 0; i < NASSETS; i++) {
        char path[4200], err[512];
        snprintf(path, sizeof path, "%s/report/%s", cx->scripts_dir, asset_files[i].file);
        out[i] = (sv_asset){asset_files[i].path, asset_files[i].type, {0}};
        hk_buf_init(&out[i].data);
        if (hk_file_read_all(path, &out[i].data, err, sizeof err) < 0) {
            fprintf(stderr, "hprofkit serve: the explorer's page is not installed: %s\n", err);
            return -1;
        }
    }
    return 0;
}

int sv_app_open(sv_app *a, cli_ctx *cx, const char *dump)
{
    lua_State *L = hkl_host_state(cx->host);
    a->cx = cx;
    a->dump_path = dump;
    pthread_mutex_init(&a->lock, NULL);
    int rc = cli_push_dump(cx, "serve", dump);
    if (rc) return rc;
    cx->dump_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    /* the graph once, now, with what the pages ask for kept, and the first page of each large
     * class ranked (the instances query keeps it): every request after is quick */
    static const char warm[] =
        "local dump, path, baseline, base_map = ...\n"
        "dump:graph_plan{'referrers', 'reachability', 'dominators', 'paths'}\n"
        "hk.keep_open(path, dump)\n"
        "if baseline then -- diff mode: the baseline indexed once too, for every list beside it\n"
        "  local base = hk.open(baseline, {map = base_map or hk.diff_base_map(baseline, dump)})\n"
        "  base:graph_plan{'referrers', 'reachability', 'dominators'}\n"
        "  hk.keep_open(baseline, base)\n"
        "end\n"
        "local top = dump:top_retained(1)\n"
        "if top[1] then top[1]:referrers(); dump:path_to_root(top[1]) end\n"
        "for _, c in ipairs(dump:classes()) do\n"
        "  if c.instance_count >= 100000 then hk.run('instances', dump, {class = c.name, n = 1}) end\n"
        "end\n";
    luaL_loadbuffer(L, warm, sizeof warm - 1, "=serve-warm");
    lua_rawgeti(L, LUA_REGISTRYINDEX, cx->dump_ref);
    lua_pushstring(L, dump);
    a->baseline ? (void)lua_pushstring(L, a->baseline) : lua_pushnil(L);
    a->base_map ? (void)lua_pushstring(L, a->base_map) : lua_pushnil(L);
    if (hkl_pcall(L, 4, 0) != LUA_OK) return cli_report_error(L, "serve", cx->g.debug);
    return 0;
}

/* --open: the desktop's browser, when there is a desktop. */
static void open_browser(const char *url)
{
    const char *d = getenv("DISPLAY"), *w = getenv("WAYLAND_DISPLAY");
    if ((!d || !*d) && (!w || !*w)) {
        fprintf(stderr, "hprofkit serve: --open: no display (DISPLAY and WAYLAND_DISPLAY are unset); "
                        "open the address above in a browser\n");
        return;
    }
    pid_t pid = fork();
    if (pid == 0) {
        execlp("xdg-open", "xdg-open", url, (char *)NULL);
        _exit(127);
    }
    fprintf(stderr, "hprofkit serve: --open: started xdg-open\n");
}

/* Serves until SIGINT or SIGTERM: the signals are blocked before the server's threads start
 * (they inherit that) and taken here. */
static int run_server(sv_app *a, serve_opts *o, sv_asset *assets)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    signal(SIGPIPE, SIG_IGN);
    sv_install_sigbus();
    o->http.assets = assets;
    o->http.nassets = NASSETS;
    o->http.api = sv_api;
    o->http.api_ctx = a;
    int status;
    char err[512], url[512];
    sv_server *s = sv_start(&o->http, &status, err, sizeof err);
    if (!s) {
        fprintf(stderr, "hprofkit serve: %s\n", err);
        return status;
    }
    if (o->http.bind && strcmp(o->http.bind, "127.0.0.1") && strcmp(o->http.bind, "::1"))
        fprintf(stderr,
                "hprofkit serve: warning: listening on %s: anyone who can reach it and has the token "
                "can read this dump and run code\n",
                o->http.bind);
    snprintf(url, sizeof url, "http://%s:%d/?token=%s", sv_host(s), sv_port(s), sv_token(s));
    printf("serving %s at %s\n", o->dump, url);
    fflush(stdout);
    if (o->open) open_browser(url);
    int sig = 0;
    while (sigwait(&set, &sig) != 0) {}
    fprintf(stderr, "hprofkit serve: stopping\n");
    sv_stop(s);
    return 0;
}

int sv_serve_main(cli_ctx *cx, int argc, char **argv)
{
    static serve_opts o;
    static sv_app a;
    static sv_asset assets[NASSETS];
    o.time_limit = 10;
    int rc = parse(&o, argc, argv);
    if (rc) {
        if (rc > 0) serve_usage(stdout);
        return rc > 0 ? 0 : 2;
    }
    if (load_assets(cx, assets) < 0) return 1;
    char err[512];
    if (sv_probe(&o.http, err, sizeof err) < 0) {
        fprintf(stderr, "hprofkit serve: %s\n", err);
        return 2;
    }
    a.baseline = o.baseline;
    a.base_map = o.base_map;
    a.meminfo = o.meminfo;
    a.native = o.native;
    a.time_limit = o.time_limit;
    rc = sv_app_open(&a, cx, o.dump);
    if (!rc) rc = run_server(&a, &o, assets);
    for (int i = 0; i < NASSETS; i++) hk_buf_free(&assets[i].data);
    if (a.broken) {
        fflush(stdout);
        _exit(rc); /* the Lua state a fault interrupted is not closed */
    }
    return rc;
}
