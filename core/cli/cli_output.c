/* What a query's run turns into: rendered output, its help, its errors. */
#include "cli/cli.h"
#include "util/hk_file.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

/* Writes the rendered output: stdout, or atomically to outfile. */
int cli_emit(const char *cmd, hk_buf *b, const char *outfile)
{
    if (outfile && strcmp(outfile, "-")) {
        char err[512];
        if (hk_file_write_atomic(outfile, b->data ? b->data : (const unsigned char *)"", b->len, err, sizeof err) < 0) {
            fprintf(stderr, "hprofkit %s: -o %s\n", cmd, err);
            return 2; /* a path the user named */
        }
        return 0;
    }
    if (b->len && fwrite(b->data, 1, b->len, stdout) != b->len) {
        fprintf(stderr, "hprofkit %s: cannot write the output: %s\n", cmd, strerror(errno));
        return 1;
    }
    return fflush(stdout) == 0 ? 0 : 1;
}

/* Without --debug a script bug's traceback keeps the script frames only: where the C
 * primitives were entered says nothing to the script's author. */
static void print_traceback(const char *text, int debug)
{
    for (const char *l = text; *l;) {
        const char *nl = strchr(l, '\n');
        int len = nl ? (int)(nl - l) : (int)strlen(l);
        if (debug || (!memmem(l, (size_t)len, "[C]:", 4) && strncmp(l, "\t(...tail calls...)", 20)) || l == text)
            fprintf(stderr, "%.*s\n", len, l);
        l += len + (nl ? 1 : 0);
        if (!nl) break;
    }
}

int cli_report_error(lua_State *L, const char *cmd, int debug)
{
    int kind = hkl_error_kind(L, -1);
    const char *text = hkl_error_text(L, -1);
    int rc = kind == HKL_ERR_USAGE ? 2 : 1;
    if (kind == HKL_ERR_SCRIPT) {
        fprintf(stderr, "hprofkit %s: error: ", cmd);
        print_traceback(text, debug);
    } else {
        /* the message as the query wrote it, without the traceback hkl_pcall added */
        const char *tb = strstr(text, "\nstack traceback:");
        fprintf(stderr, "hprofkit %s: %.*s\n", cmd, tb && !debug ? (int)(tb - text) : (int)strlen(text), text);
        if (debug && kind == HKL_ERR_USAGE && lua_istable(L, -1)) {
            lua_getfield(L, -1, "traceback");
            if (lua_isstring(L, -1)) fprintf(stderr, "%s\n", lua_tostring(L, -1));
            lua_pop(L, 1);
        }
    }
    lua_pop(L, 1);
    return rc;
}

/* The declared argument an option line of options_help starts with (`  --min-bytes B ...`,
 * `  -n N`, `  --no-bitmaps`), pushed as its key in args; nothing pushed and 0 when the line
 * names none. */
static int line_option(lua_State *L, int args, int aliases, const char *line, size_t len)
{
    size_t i = 0;
    while (i < len && line[i] == ' ') i++;
    if (i + 1 >= len || line[i] != '-') return 0;
    while (i < len && line[i] == '-') i++;
    char k[128];
    size_t n = 0;
    for (; i < len && line[i] != ' ' && line[i] != '=' && n + 1 < sizeof k; i++)
        k[n++] = line[i] == '-' ? '_' : line[i];
    k[n] = 0;
    const char *key = k;
    if (aliases && lua_getfield(L, aliases, k) == LUA_TSTRING) key = lua_tostring(L, -1);
    if (aliases) lua_pop(L, 1); /* the alias's value stays interned: key is still valid */
    if (lua_getfield(L, args, key) == LUA_TNIL && !strncmp(key, "no_", 3)) {
        lua_pop(L, 1);
        key += 3;
        lua_getfield(L, args, key);
    }
    int found = !lua_isnil(L, -1);
    lua_pop(L, 1);
    if (found) lua_pushstring(L, key);
    return found;
}

/* What a default says in --help (nothing for an empty string or false); opt: the option's name
 * for a flag on by default, NULL when the line already shows its --no- form. */
static void print_default(lua_State *L, int idx, const char *opt)
{
    if (lua_istable(L, idx)) printf("  (repeatable: each one adds to the list)");
    else if (lua_isboolean(L, idx)) {
        if (lua_toboolean(L, idx) && opt) printf("  (on by default; --no-%s turns it off)", opt);
        else if (lua_toboolean(L, idx)) printf("  (default: on)");
    } else if (lua_type(L, idx) == LUA_TNUMBER || (lua_isstring(L, idx) && *lua_tostring(L, idx))) {
        printf("  (default: %s)", luaL_tolstring(L, idx, NULL));
        lua_pop(L, 1);
    }
}

/* Does the line s (len bytes) contain word? */
static int says(const char *s, size_t len, const char *word)
{
    size_t n = strlen(word);
    for (size_t i = 0; i + n <= len; i++)
        if (!strncmp(s + i, word, n)) return 1;
    return 0;
}

/* An argument's name as typed: --no-gc, not --no_gc. */
static void as_typed(const char *key, char *out, size_t n)
{
    snprintf(out, n, "%s", key);
    for (char *c = out; *c; c++)
        if (*c == '_') *c = '-';
}

/* options_help's lines, each option's default added where the line does not give one, then a
 * line for each declared argument options_help leaves out: one list (README, --help). */
static void print_options(lua_State *L, int def)
{
    if (lua_getfield(L, def, "args") != LUA_TTABLE) lua_pop(L, 1), lua_newtable(L);
    int args = lua_gettop(L);
    int aliases = lua_getfield(L, def, "aliases") == LUA_TTABLE ? lua_gettop(L) : 0;
    lua_newtable(L);
    int shown = lua_gettop(L);
    const char *text = lua_getfield(L, def, "options_help") == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
    if (!text) text = "";
    for (const char *s = text; *s;) {
        const char *nl = strchr(s, '\n');
        size_t len = nl ? (size_t)(nl - s) : strlen(s);
        printf("%.*s", (int)len, s);
        if (line_option(L, args, aliases, s, len)) {
            char opt[128];
            as_typed(lua_tostring(L, -1), opt, sizeof opt);
            lua_getfield(L, args, lua_tostring(L, -1));
            if (!says(s, len, "default") && !says(s, len, "repeatable"))
                print_default(L, -1, says(s, len, "--no-") ? NULL : opt);
            lua_pop(L, 1);
            lua_pushboolean(L, 1);
            lua_rawset(L, shown);
        }
        printf("\n");
        s += len + (nl != NULL);
    }
    lua_pop(L, 1);
    lua_pushnil(L);
    while (lua_next(L, args)) {
        lua_pushvalue(L, -2);
        if (lua_rawget(L, shown) == LUA_TNIL) {
            char opt[128];
            as_typed(lua_tostring(L, -3), opt, sizeof opt);
            printf("  --%s%s", opt, lua_isboolean(L, -2) ? "" : " VALUE");
            print_default(L, -2, opt);
            printf("\n");
        }
        lua_pop(L, 2);
    }
    lua_settop(L, args - 1);
}

/* The options every listing takes, less those the query declares itself (listed above). */
static void print_listing_options(lua_State *L, int def)
{
    int own_sort = 0, own_class = 0;
    if (lua_getfield(L, def, "args") == LUA_TTABLE) {
        own_sort = lua_getfield(L, -1, "sort") != LUA_TNIL;
        own_class = lua_getfield(L, -2, "class") != LUA_TNIL;
        lua_pop(L, 2);
    }
    lua_pop(L, 1);
    printf("  %s%s(listings)   --bytes  (tables: sizes as plain numbers)\n", own_sort ? "" : "--sort COLUMN   ",
           own_class ? "" : "--class GLOB   ");
}

void cli_print_query_help(lua_State *L, const char *name, int def)
{
    int needs_dump = 1;
    lua_getfield(L, def, "needs_dump");
    if (lua_isboolean(L, -1)) needs_dump = lua_toboolean(L, -1);
    lua_pop(L, 1);
    printf("usage: hprofkit %s", name);
    if (lua_getfield(L, def, "positional") == LUA_TTABLE) {
        for (lua_Integer i = 1; lua_rawgeti(L, -1, i) == LUA_TSTRING; i++) {
            printf(" ");
            for (const char *c = lua_tostring(L, -1); *c; c++) putchar(toupper((unsigned char)*c));
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
    } else if (needs_dump) {
        printf(" DUMP");
    }
    lua_pop(L, 1);
    printf(" [options]\n\n");
    lua_getfield(L, def, "help");
    if (lua_isstring(L, -1)) printf("%s\n", lua_tostring(L, -1));
    lua_pop(L, 1);
    printf("\noptions:\n");
    print_options(L, def);
    printf("  --format table|json|csv|...  (--json for json)   -o FILE  write to FILE (atomically)\n");
    print_listing_options(L, def);
    if (lua_getfield(L, def, "gates") == LUA_TTABLE) {
        printf("  --fail-on GATE[:PARAM][,GATE...]  exit 3 when a gate trips:\n");
        lua_pushnil(L);
        while (lua_next(L, -2)) {
            lua_getfield(L, -1, "help");
            printf("      %-16s %s\n", lua_tostring(L, -3), lua_isstring(L, -1) ? lua_tostring(L, -1) : "");
            lua_pop(L, 2);
        }
    }
    lua_pop(L, 1);
    lua_getfield(L, def, "source");
    printf("\ndefined in %s\n", lua_tostring(L, -1));
    lua_pop(L, 1);
}

int cli_check_format(lua_State *L, const char *cmd, const char *format)
{
    hkl_push_renderers(L);
    int found = lua_getfield(L, -1, format) == LUA_TTABLE;
    lua_pop(L, 1);
    if (!found) {
        fprintf(stderr, "hprofkit %s: no renderer '%s' (available:", cmd, format);
        lua_pushnil(L);
        while (lua_next(L, -2)) {
            fprintf(stderr, " %s", lua_tostring(L, -2));
            lua_pop(L, 1);
        }
        fprintf(stderr, ")\n");
    }
    lua_pop(L, 1);
    return found ? 0 : -1;
}

/* Calls the renderer for format with (rows, out, meta) and writes the result. */
int cli_render(lua_State *L, const char *cmd, const char *format, int rows, int meta, const char *outfile, int debug)
{
    if (cli_check_format(L, cmd, format) < 0) return 2;
    hkl_push_renderers(L);
    lua_getfield(L, -1, format);
    lua_getfield(L, -1, "render");
    hk_buf out;
    hk_buf_init(&out);
    lua_pushvalue(L, rows);
    hkl_push_writer(L, &out);
    int writer = lua_gettop(L);
    lua_pushvalue(L, meta);
    lua_pushvalue(L, writer);
    lua_remove(L, writer);
    lua_insert(L, -2);
    /* stack: render rows out meta */
    int w = lua_gettop(L) - 1;
    lua_pushvalue(L, w);
    int wref = luaL_ref(L, LUA_REGISTRYINDEX);
    int rc = hkl_pcall(L, 3, 0);
    lua_rawgeti(L, LUA_REGISTRYINDEX, wref);
    hkl_writer_detach(L, -1);
    lua_pop(L, 1);
    luaL_unref(L, LUA_REGISTRYINDEX, wref);
    if (rc != LUA_OK) {
        fprintf(stderr, "hprofkit %s: renderer '%s' failed:\n", cmd, format);
        rc = cli_report_error(L, cmd, debug);
        hk_buf_free(&out);
        return rc;
    }
    lua_pop(L, 2);
    rc = cli_emit(cmd, &out, outfile);
    hk_buf_free(&out);
    return rc;
}
