/* A scripts folder: which of its files run at start, and its lib/ for require.
 *
 *   renderers/, commands/, leak_rules/  run at start (with their subfolders), in that order
 *   lib/                                modules, loaded by require (first folder's first)
 *   queries/, recipes/, leaks/, top     the old flat layout: still run, with one note per folder
 *
 * A file that names no registration call (lua_scan.c) is not run at start. */
#include "lua/lua_host.h"
#include "lua/lua_scan.h"
#include "util/hk_buf.h"
#include "util/hk_file.h"
#include "util/hk_mem.h"
#include "util/hk_report.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_DEPTH 8 /* subfolders of a run folder (a symlink loop ends here) */

typedef struct {
    char **paths;
    size_t n;
} path_list;

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The .lua files of dir, and of its subfolders when depth > 0, sorted by name at each level. */
static void list_scripts(const char *dir, int depth, path_list *out)
{
    DIR *dp = opendir(dir);
    if (!dp) return;
    path_list here = {0};
    struct dirent *e;
    while ((e = readdir(dp))) {
        if (e->d_name[0] == '.') continue;
        here.paths = hk_xrealloc(here.paths, (here.n + 1) * sizeof *here.paths);
        here.paths[here.n++] = hk_xstrdup(e->d_name);
    }
    closedir(dp);
    if (here.n) qsort(here.paths, here.n, sizeof *here.paths, cmp_str);
    for (size_t i = 0; i < here.n; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, here.paths[i]);
        size_t l = strlen(here.paths[i]);
        struct stat st;
        if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
            if (depth > 0) list_scripts(path, depth - 1, out);
        } else if (l > 4 && !strcmp(here.paths[i] + l - 4, ".lua")) {
            out->paths = hk_xrealloc(out->paths, (out->n + 1) * sizeof *out->paths);
            out->paths[out->n++] = hk_xstrdup(path);
        }
        free(here.paths[i]);
    }
    free(here.paths);
}

/* Whether the file registers anything; one that cannot be read is run, so its error is said. */
static int registers(const char *path)
{
    hk_buf b;
    hk_buf_init(&b);
    char err[300];
    int yes = hk_file_read_all(path, &b, err, sizeof err) < 0 || hkl_script_registers((const char *)b.data, b.len);
    hk_buf_free(&b);
    return yes;
}

/* Runs the registering scripts of dir/sub; counts those run and those that failed. */
static void run_folder(hkl_host *h, const char *dir, const char *sub, int depth, int *ran, int *failed)
{
    char path[4096];
    snprintf(path, sizeof path, "%s%s%s", dir, *sub ? "/" : "", sub);
    path_list files = {0};
    list_scripts(path, depth, &files);
    for (size_t i = 0; i < files.n; i++) {
        if (registers(files.paths[i])) {
            (*ran)++;
            if (hkl_host_load_file(h, files.paths[i]) < 0) (*failed)++;
        }
        free(files.paths[i]);
    }
    free(files.paths);
}

/* package.path = every loaded folder's lib/ (in load order), then Lua's own path. */
static void add_lib_path(lua_State *L, const char *dir)
{
    lua_getglobal(L, "package");
    if (!lua_istable(L, -1)) {
        lua_pop(L, 1);
        return;
    }
    if (lua_getfield(L, LUA_REGISTRYINDEX, "hk.lib_path") != LUA_TSTRING) {
        lua_pop(L, 1);
        lua_pushliteral(L, "");
        lua_getfield(L, -2, "path");
        lua_setfield(L, LUA_REGISTRYINDEX, "hk.lua_path");
    }
    lua_pushfstring(L, "%s%s/lib/?.lua;%s/lib/?/init.lua;", lua_tostring(L, -1), dir, dir);
    lua_pushvalue(L, -1);
    lua_setfield(L, LUA_REGISTRYINDEX, "hk.lib_path");
    lua_getfield(L, LUA_REGISTRYINDEX, "hk.lua_path");
    lua_concat(L, 2);
    lua_setfield(L, -3, "path");
    lua_pop(L, 2);
}

int hkl_scripts_load_dir(hkl_host *h, const char *dir)
{
    static const char *const current[] = {"renderers", "commands", "leak_rules"};
    static const char *const old[] = {"queries", "recipes", "leaks", ""}; /* "": the top level */
    add_lib_path(hkl_host_state(h), dir);
    int ran = 0, failed = 0, old_ran = 0;
    for (size_t i = 0; i < sizeof current / sizeof *current; i++)
        run_folder(h, dir, current[i], MAX_DEPTH, &ran, &failed);
    for (size_t i = 0; i < sizeof old / sizeof *old; i++) run_folder(h, dir, old[i], 0, &old_ran, &failed);
    if (old_ran)
        hk_report(HK_REPORT_NOTE,
                  "%s holds scripts in the old layout (queries/, recipes/, leaks/ or the top level); they still "
                  "load, but move commands to commands/, leak finders, inspectors and matchers to leak_rules/ "
                  "and shared modules to lib/ (docs/lua-api.md)",
                  dir);
    return failed;
}
