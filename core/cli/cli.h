/* The CLI's steps: find the resources, load plugins and scripts, run a query or script. */
#ifndef HK_CLI_H
#define HK_CLI_H

#include "lua/lua_host.h"
#include "host/plugin_host.h"
#include "lua/lua_plugins.h"

/* What the global options set (see cli_global.c); a new global option adds its field here. */
typedef struct cli_globals {
    const char *plugin_files[16]; /* --plugins FILE (repeatable) */
    int nplugin_files;
    int debug;                 /* --debug: full tracebacks */
    int jobs;                  /* -j N: worker threads for the phases that use them (0: default) */
    const char *map_path;      /* --map FILE, "" for --no-map, NULL: neither given */
    int trace_pid;             /* --trace-pid PID (0: not given) */
    const char *trace_process; /* --trace-process NAME */
    const char *trace_dump;    /* --trace-dump N|last|TIMESTAMP */
} cli_globals;

/* One global option: accepted before or after the command name, for every command.  A new
 * global option is one entry in the table in cli_global.c and its field in cli_globals. */
typedef struct cli_global_opt {
    const char *name;       /* "--plugins" */
    const char *short_name; /* "-j", or NULL */
    const char *value;      /* what it takes, for the usage ("FILE"); NULL: a flag */
    const char *help;
    /* stores value (NULL for a flag); returns 0, or -1 with a one-line err (exit 2) */
    int (*apply)(cli_globals *g, const char *value, char *err, size_t errlen);
} cli_global_opt;

/* Removes the global options from argv (anywhere), applying each; returns 0, or -1 after
 * printing a one-line error. */
int cli_take_globals(cli_globals *g, int *argc, char **argv);
/* The global options' usage lines. */
void cli_print_globals(FILE *f);
/* The map for the dump a command reads: --map, else HPROFKIT_MAP (said on stderr by who,
 * unless NULL); NULL: the one beside the dump, if any; "": none (--no-map). */
const char *cli_map_path(const cli_globals *g, const char *who);
/* hk.options: the global options as Lua sees them. */
void cli_push_globals(lua_State *L, const cli_globals *g);

typedef struct cli_ctx {
    cli_globals g;
    char scripts_dir[4096]; /* the built-in scripts/ */
    char plugin_dir[4096];
    char plugins_ini[4096];
    hkl_host *host;
    hk_plugins *plugins;
    int dump_ref; /* > 0: a Dump already open (the explorer's, in the registry): queries run on it */
} cli_ctx;

int cli_setup(cli_ctx *cx, const char *argv0);
/* Opens the dump at path with its map (the global options) and pushes it; 0, or an exit code
 * after one line on stderr ("hprofkit NAME: ..."). */
int cli_push_dump(const cli_ctx *cx, const char *name, const char *path);
void cli_teardown(cli_ctx *cx);
int cli_run_query(cli_ctx *cx, const char *name, int argc, char **argv);
int cli_run_script(cli_ctx *cx, int argc, char **argv);
int cli_list_queries(cli_ctx *cx, int argc, char **argv);
/* Pushes an array of the keys of the table at idx (strings: query names, gate names), sorted. */
void cli_push_sorted_keys(lua_State *L, int idx);
/* Writes the rendered output: stdout, or atomically to outfile (not "-"). */
/* SIGINT, SIGTERM, SIGHUP and out of memory remove the temporary files of writes under way. */
void cli_trap_stops(void);
int cli_emit(const char *cmd, hk_buf *b, const char *outfile);
/* Prints a caught Lua error (at stack top) for cmd and returns its exit code: a usage error
 * one line and 2, a user message one line and 1, a script bug with its traceback and 1. */
int cli_report_error(lua_State *L, const char *cmd, int debug);

void cli_print_query_help(lua_State *L, const char *name, int def);
/* Is there a renderer for format?  0, or -1 after printing the ones there are. */
int cli_check_format(lua_State *L, const char *cmd, const char *format);
/* Calls the renderer for format with (rows, out, meta) and writes the result; an exit code. */
int cli_render(lua_State *L, const char *cmd, const char *format, int rows, int meta, const char *outfile, int debug);

/* The options every query takes besides its own. */
typedef struct cli_common {
    const char *format, *outfile;
    int help;
    int raw_bytes;           /* --bytes: sizes as plain numbers in tables */
    const char *sort;        /* --sort COLUMN */
    int sort_ranked;         /* the query ranks by that column itself (its `sorts`) */
    const char *class_glob;  /* --class GLOB */
    const char *fail_on[16]; /* --fail-on GATE[:PARAM][,...] as given, in order */
    int nfail_on;
} cli_common;

/* Turns --KEY VALUE... into the table at stack top, typed by the defaults in the table
 * at defaults_idx (0: every value is a string; a table default {} is a list that repeats
 * append to); positional names fill in order.  Returns 0, or -1 after printing a usage error. */
int cli_parse_args(lua_State *L, const char *cmd, int defaults_idx, int aliases_idx, int positional_idx, int argc,
                   char **argv, cli_common *common);

#endif
