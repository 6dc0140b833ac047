/* The CLI's steps: find the resources, load plugins and scripts, run a query or script. */
#ifndef HK_CLI_H
#define HK_CLI_H

#include "host/lua_host.h"
#include "host/plugin_host.h"
#include "host/plugin_lua.h"

typedef struct cli_ctx {
    const char *plugin_files[16];
    int nplugin_files;
    const char *map_path;       /* --map FILE, "" for --no-map, else NULL */
    char scripts_dir[4096];     /* the built-in scripts/ */
    char plugin_dir[4096];
    char plugins_ini[4096];
    hkl_host *host;
    hk_plugins *plugins;
} cli_ctx;

void cli_add_plugins_file(cli_ctx *cx, const char *path);
/* Takes --map FILE / --map=FILE / --no-map out of argv[from..argc), wherever it is; returns the new
 * argc, or -1 after a usage error. */
int cli_take_map(cli_ctx *cx, int argc, char **argv, int from);
int cli_setup(cli_ctx *cx, const char *argv0);
void cli_teardown(cli_ctx *cx);
int cli_run_query(cli_ctx *cx, const char *name, int argc, char **argv);
int cli_run_script(cli_ctx *cx, int argc, char **argv);
int cli_list_queries(cli_ctx *cx, int argc, char **argv);
/* Turns --KEY VALUE... into the table at stack top, typed by the defaults in the table
 * at defaults_idx (0: every value is a string); positional names fill in order.
 * Returns 0, or -1 after printing a usage error. */
int cli_parse_args(lua_State *L, const char *cmd, int defaults_idx, int aliases_idx, int positional_idx,
                   int argc, char **argv, const char **format, const char **outfile, int *help);

#endif
