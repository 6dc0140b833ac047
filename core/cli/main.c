/* hprofkit: resolve a command to a registered Lua query, run it, render its rows. */
#include "cli/cli.h"
#include "hk_config.h"
#include "lua/lua_host.h"
#include "serve/serve_app.h"
#include "trace/trace.h"
#include "util/hk_file.h"
#include "util/hk_jobs.h"
#include "util/hk_report.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE *f)
{
    fputs("usage: hprofkit COMMAND [ARGS] [--KEY VALUE]... [--format F | --json] [-o FILE] [GLOBAL OPTIONS]\n"
          "\n"
          "Commands are Lua queries (built-in ones in scripts/commands/, yours in commands/ of\n"
          "~/.config/hprofkit/scripts or any directory in HPROFKIT_SCRIPTS):\n"
          "  hprofkit queries            list every query with its help\n"
          "  hprofkit QUERY --help       a query's arguments\n"
          "  hprofkit run FILE.lua [DUMP] [--KEY VALUE]...   run a one-off script ('-': from stdin)\n"
          "  hprofkit serve DUMP [--port N] [--baseline DUMP]  explore DUMP in a browser (--help)\n"
          "  hprofkit mcp DUMP           the queries as MCP tools over stdio, for an assistant\n"
          "  hprofkit --version\n"
          "\n"
          "Sizes: an ART dump's are its own (each class's recorded object size; an array its\n"
          "length times the element size plus the 12-byte header); a HotSpot dump's objects are\n"
          "sized as the JVM lays them out (--jvm-layout; info says which layout and why).\n"
          "Object ids are accepted in hex (0x...) or decimal and printed as lowercase hex.\n"
          "Every query also takes --sort COLUMN, --class GLOB (listings), --bytes (tables: sizes\n"
          "as plain numbers) and, where it offers gates, --fail-on GATE[:PARAM][,GATE...].\n"
          "A Perfetto trace opens like a dump: --trace-pid / --trace-process pick the process\n"
          "when it holds several (info lists them).\n"
          "Exit status: 0 ok; 1 the data or the device failed (a file that is not a dump, a device\n"
          "offline); 2 the request is wrong (an unknown option, a file that is not there, --heap\n"
          "nosuch); 3 a --fail-on gate tripped (README, \"Exit statuses\").\n\n",
          f);
    cli_print_globals(f);
}

int main(int argc, char **argv)
{
    cli_ctx cx;
    memset(&cx, 0, sizeof cx);
    hk_report_set(hk_report_stderr, NULL);
    cli_trap_stops();
    if (cli_take_globals(&cx.g, &argc, argv) < 0) return 2;
    int i = 1;
    if (i >= argc || !strcmp(argv[i], "-h") || !strcmp(argv[i], "--help") || !strcmp(argv[i], "help")) {
        usage(i >= argc ? stderr : stdout);
        return i >= argc ? 2 : 0;
    }
    if (!strcmp(argv[i], "--version") || !strcmp(argv[i], "version")) {
        printf("hprofkit %s\n", HK_VERSION);
        return 0;
    }
    int rc = cli_setup(&cx, argv[0]);
    if (rc == 0) {
        if (!strcmp(argv[i], "run")) rc = cli_run_script(&cx, argc - i - 1, argv + i + 1);
        else if (!strcmp(argv[i], "queries")) rc = cli_list_queries(&cx, argc - i - 1, argv + i + 1);
        else if (!strcmp(argv[i], "serve")) rc = sv_serve_main(&cx, argc - i - 1, argv + i + 1);
        else if (!strcmp(argv[i], "mcp")) rc = sv_mcp_main(&cx, argc - i - 1, argv + i + 1);
        else rc = cli_run_query(&cx, argv[i], argc - i - 1, argv + i + 1);
    }
    cli_teardown(&cx);
    return rc;
}
