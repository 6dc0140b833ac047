/* Global options: one table, accepted anywhere on the command line, for every command. */
#include "cli/cli.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "open/open.h"
#include "hprof/hprof_layout.h"
#include "trace/trace.h"
#include "util/hk_jobs.h"

static int set_plugins(cli_globals *g, const char *v, char *err, size_t errlen)
{
    if (hk_check_file("--plugins", v, err, errlen) < 0) return -1;
    if (g->nplugin_files >= (int)(sizeof g->plugin_files / sizeof g->plugin_files[0])) {
        snprintf(err, errlen, "--plugins: at most %d files", g->nplugin_files);
        return -1;
    }
    g->plugin_files[g->nplugin_files++] = v;
    return 0;
}

static int set_debug(cli_globals *g, const char *v, char *err, size_t errlen)
{
    g->debug = 1;
    return 0;
}

static int set_jobs(cli_globals *g, const char *v, char *err, size_t errlen)
{
    char *end;
    errno = 0;
    long n = strtol(v, &end, 10);
    if (*v < '0' || *v > '9' || *end || errno || n < 1 || n > 1024) {
        snprintf(err, errlen, "-j needs a number of workers from 1 to 1024, got '%s'", v);
        return -1;
    }
    g->jobs = (int)n;
    hk_set_jobs(g->jobs);
    return 0;
}

static int set_map(cli_globals *g, const char *v, char *err, size_t errlen)
{
    if (hk_check_file("--map", v, err, errlen) < 0) return -1;
    g->map_path = v;
    return 0;
}

static int set_no_map(cli_globals *g, const char *v, char *err, size_t errlen)
{
    g->map_path = "";
    return 0;
}

/* A Perfetto trace with several processes: which one opens (core/trace keeps the choice). */
static int set_trace_pid(cli_globals *g, const char *v, char *err, size_t errlen)
{
    char *end;
    errno = 0;
    long pid = strtol(v, &end, 10);
    if (*v < '0' || *v > '9' || *end || errno || pid <= 0 || pid > INT32_MAX) {
        snprintf(err, errlen, "--trace-pid needs a process id, got '%s'", v);
        return -1;
    }
    hk_trace_select((int)pid, NULL);
    g->trace_pid = (int)pid;
    return 0;
}

static int set_trace_process(cli_globals *g, const char *v, char *err, size_t errlen)
{
    if (!*v) {
        snprintf(err, errlen, "--trace-process needs a process name");
        return -1;
    }
    hk_trace_select(0, v);
    g->trace_process = v;
    return 0;
}

/* Which dump of a trace that holds several in time (continuous heapprofd dumps): a number from
 * 1 in the order of the trace, "last", or a timestamp of the trace's clock. */
static int set_trace_dump(cli_globals *g, const char *v, char *err, size_t errlen)
{
    char *end;
    errno = 0;
    unsigned long long n = strtoull(v, &end, 10);
    if (strcmp(v, "last") && (*v < '0' || *v > '9' || *end || errno || n == 0)) {
        snprintf(err, errlen, "--trace-dump takes a number from 1, 'last' or a timestamp, got '%s'", v);
        return -1;
    }
    g->trace_dump = v;
    hk_trace_select_dump(v);
    return 0;
}

/* How HotSpot dumps are sized (core/hprof keeps the choice for every dump opened after). */
static int set_jvm_layout(cli_globals *g, const char *v, char *err, size_t errlen)
{
    return hk_layout_select(v, err, errlen);
}

static int set_lua_time_limit(cli_globals *g, const char *v, char *err, size_t errlen)
{
    (void)g;
    return hkl_time_limit_set(v, err, errlen);
}

const char *cli_map_path(const cli_globals *g, const char *who)
{
    const char *env = getenv("HPROFKIT_MAP");
    if (g->map_path || !env || !*env) return g->map_path;
    if (who) fprintf(stderr, "%s: note: using the map %s from HPROFKIT_MAP\n", who, env);
    return env;
}

/* The global options.  Adding one: a field in cli_globals (cli.h), an apply function above
 * (hk_check_file for a FILE the user names), one row here, and a line in cli_push_globals
 * when scripts should see it as hk.options.NAME.  The usage lists the rows in this order. */
static const cli_global_opt globals[] = {
    {"--plugins", NULL, "FILE", "load the plugins a plugins.ini-style FILE names (repeatable)", set_plugins},
    {"--debug", NULL, NULL, "show the full Lua traceback of any error", set_debug},
    {"--jobs", "-j", "N", "worker threads for the phases that use them (default: one per core)", set_jobs},
    {"--map", NULL, "FILE",
     "R8/ProGuard mapping file for the dump's names (default: HPROFKIT_MAP, else DUMP.map or STEM.map beside the dump)",
     set_map},
    {"--no-map", NULL, NULL, "no mapping file, not even one beside the dump", set_no_map},
    {"--jvm-layout", NULL, "LAYOUT",
     "how HotSpot dumps' objects are sized: auto (from the dump), dump (its field bytes), compressed, plain, compact, "
     "or HEADER/REF[/ALIGN] like 12/8",
     set_jvm_layout},
    {"--lua-time-limit", NULL, "SECONDS",
     "stop a command's Lua (a query, a recipe, run SCRIPT) that runs longer, with one line and exit 1 "
     "(default: HPROFKIT_LUA_TIME_LIMIT, else none; 0: none)",
     set_lua_time_limit},
    {"--trace-pid", NULL, "PID", "in a Perfetto trace of several processes, open this one's heap", set_trace_pid},
    {"--trace-process", NULL, "NAME", "in a Perfetto trace of several processes, open the one of this name",
     set_trace_process},
    {"--trace-dump", NULL, "N|last|TS",
     "in a trace with several dumps of the process in time, use the Nth (from 1), the last, or the one at TS "
     "(default: the last)",
     set_trace_dump},
};

/* Which entry argv[i] is, and where its value is: "--x V", "--x=V", "-jV". */
static const cli_global_opt *match(char **argv, int argc, int i, const char **value, int *used)
{
    const char *a = argv[i];
    for (size_t k = 0; k < sizeof globals / sizeof globals[0]; k++) {
        const cli_global_opt *o = &globals[k];
        const char *names[2] = {o->name, o->short_name};
        for (int n = 0; n < 2; n++) {
            if (!names[n]) continue;
            size_t l = strlen(names[n]);
            if (strncmp(a, names[n], l)) continue;
            *used = 1;
            *value = NULL;
            if (!a[l]) {
                if (o->value) {
                    if (i + 1 >= argc) {
                        *value = "";
                        *used = 0;
                        return o;
                    } /* missing */
                    *value = argv[i + 1];
                    *used = 2;
                }
                return o;
            }
            if (!o->value) continue;
            if (a[l] == '=') {
                *value = a + l + 1;
                return o;
            }
            if (n == 1) {
                *value = a + l;
                return o;
            } /* -j4 */
        }
    }
    return NULL;
}

int cli_take_globals(cli_globals *g, int *argc, char **argv)
{
    int out = 1;
    for (int i = 1; i < *argc;) {
        const char *value;
        int used;
        const cli_global_opt *o = match(argv, *argc, i, &value, &used);
        if (!o) {
            argv[out++] = argv[i++];
            continue;
        }
        if (!used) {
            fprintf(stderr, "hprofkit: %s needs %s\n", o->name, o->value);
            return -1;
        }
        char err[512];
        if (o->apply(g, value, err, sizeof err) < 0) {
            fprintf(stderr, "hprofkit: %s\n", err);
            return -1;
        }
        i += used;
    }
    argv[out] = NULL;
    *argc = out;
    return 0;
}

void cli_print_globals(FILE *f)
{
    fputs("global options (before or after the command):\n", f);
    for (size_t k = 0; k < sizeof globals / sizeof globals[0]; k++) {
        const cli_global_opt *o = &globals[k];
        char left[64];
        snprintf(left, sizeof left, "%s%s%s%s%s", o->short_name ? o->short_name : "", o->short_name ? ", " : "",
                 o->name, o->value ? " " : "", o->value ? o->value : "");
        fprintf(f, "  %-20s %s\n", left, o->help);
    }
}

void cli_push_globals(lua_State *L, const cli_globals *g)
{
    lua_createtable(L, 0, 3);
    lua_pushboolean(L, g->debug);
    lua_setfield(L, -2, "debug");
    lua_pushinteger(L, g->jobs);
    lua_setfield(L, -2, "jobs");
    lua_createtable(L, g->nplugin_files, 0);
    for (int i = 0; i < g->nplugin_files; i++) {
        lua_pushstring(L, g->plugin_files[i]);
        lua_rawseti(L, -2, i + 1);
    }
    lua_setfield(L, -2, "plugins");
    lua_pushstring(L, hk_layout_selected());
    lua_setfield(L, -2, "jvm_layout");
    if (g->map_path) { /* hk.options.map: the file, false for --no-map */
        if (*g->map_path) lua_pushstring(L, g->map_path);
        else lua_pushboolean(L, 0);
        lua_setfield(L, -2, "map");
    }
    if (g->trace_pid) {
        lua_pushinteger(L, g->trace_pid);
        lua_setfield(L, -2, "trace_pid");
    }
    if (g->trace_process) {
        lua_pushstring(L, g->trace_process);
        lua_setfield(L, -2, "trace_process");
    }
    if (g->trace_dump) {
        lua_pushstring(L, g->trace_dump);
        lua_setfield(L, -2, "trace_dump");
    }
}
