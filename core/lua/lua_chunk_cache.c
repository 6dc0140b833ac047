/* Compiled Lua chunks kept between runs.  Every command compiles the built-in scripts that
 * register commands and the modules they require at start, most of a small command's time (a
 * fleet's triage of a small dump, a query in a loop).  The bytecode of each built-in script and
 * module is kept in $XDG_CACHE_HOME/hprofkit/lua (else ~/.cache/hprofkit/lua) and loaded
 * instead while the file is the one it was compiled from (its size, modification time to the
 * nanosecond, inode and device, as a build system tells), for this hprofkit and this Lua.
 * Anything that does not check out (no cache directory, a read-only one, an entry of another
 * size than it says, one Lua refuses, a file outside the built-in scripts: users' folders come
 * and go, and their entries would pile up) is compiled from the source as before, so the cache
 * never costs more than a compile.  Entries are written whole or not at all (renamed into
 * place), as Python's compiled files are, and like those not checksummed.  Entries keep their debug information: messages
 * name the same file and line. */
#include "hk_config.h"
#include "lua/lua_host.h"
#include "util/hk_buf.h"
#include "util/hk_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CACHE_MAGIC "HKLUAC1"
#define CACHE_BUILD HK_VERSION " " LUA_VERSION_RELEASE

typedef struct entry_head {
    char magic[8];
    char build[40];
    uint64_t size, mtime_s, mtime_ns, ino, dev; /* the source file's */
    uint64_t path_len, code_len;                /* then the path, then the bytecode */
} entry_head;

static char builtin[PATH_MAX]; /* the built-in scripts' folder, with a final '/' ("" none) */

/* The cache directory, found once; NULL when there is none to use. */
static const char *cache_dir(void)
{
    static char dir[PATH_MAX];
    static int state; /* 0 not looked for, 1 there, -1 none */
    if (state) return state > 0 ? dir : NULL;
    state = -1;
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    int n;
    if (xdg && *xdg == '/') n = snprintf(dir, sizeof dir, "%s/hprofkit/lua", xdg);
    else if (home && *home == '/') n = snprintf(dir, sizeof dir, "%s/.cache/hprofkit/lua", home);
    else return NULL;
    char err[8];
    if (n < 0 || (size_t)n >= sizeof dir - 40 || hk_file_make_dirs(dir, 0700, err, sizeof err)) return NULL;
    /* bytecode is run as it is: only from a folder no one else could have written to */
    struct stat st;
    if (stat(dir, &st) || st.st_uid != geteuid() || (st.st_mode & 022)) return NULL;
    state = 1;
    return dir;
}

/* An entry's file: its source's path with '%' for '/' (the entry holds the path too). */
static int entry_path(char *out, size_t n, const char *dir, const char *path)
{
    int len = snprintf(out, n, "%s/%s.luac", dir, path);
    if (len < 0 || (size_t)len >= n || strlen(path) + 5 > NAME_MAX) return -1;
    for (char *p = out + strlen(dir) + 1; *p; p++)
        if (*p == '/') *p = '%';
    return 0;
}

static void head_of(const char *path, const struct stat *st, entry_head *h)
{
    memset(h, 0, sizeof *h);
    memcpy(h->magic, CACHE_MAGIC, sizeof CACHE_MAGIC);
    snprintf(h->build, sizeof h->build, "%s", CACHE_BUILD);
    h->size = (uint64_t)st->st_size;
    h->mtime_s = (uint64_t)st->st_mtim.tv_sec;
    h->mtime_ns = (uint64_t)st->st_mtim.tv_nsec;
    h->ino = (uint64_t)st->st_ino;
    h->dev = (uint64_t)st->st_dev;
    h->path_len = strlen(path);
}

/* Loads the kept chunk of path when its entry matches; LUA_OK with the function pushed, else
 * nothing pushed. */
static int load_entry(lua_State *L, const char *entry, const char *path, const entry_head *want)
{
    int fd = open(entry, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    struct stat est;
    hk_buf b;
    hk_buf_init(&b);
    int rc = -1;
    if (fstat(fd, &est) == 0 && est.st_size > (off_t)sizeof(entry_head) && est.st_size < (off_t)64 << 20) {
        hk_buf_reserve(&b, (size_t)est.st_size);
        ssize_t got = 0, r;
        while (got < est.st_size && (r = read(fd, b.data + got, (size_t)(est.st_size - got))) > 0) got += r;
        entry_head h;
        if (got == est.st_size) {
            memcpy(&h, b.data, sizeof h);
            const unsigned char *p = b.data + sizeof h, *code = p + h.path_len;
            int same = !memcmp(h.magic, want->magic, sizeof h.magic) && !memcmp(h.build, want->build, sizeof h.build) &&
                       h.size == want->size && h.mtime_s == want->mtime_s && h.mtime_ns == want->mtime_ns &&
                       h.ino == want->ino && h.dev == want->dev && h.path_len == want->path_len &&
                       h.code_len < (uint64_t)got && sizeof h + h.path_len + h.code_len == (uint64_t)got &&
                       !memcmp(p, path, h.path_len);
            if (same) {
                lua_pushfstring(L, "@%s", path);
                rc = luaL_loadbufferx(L, (const char *)code, h.code_len, lua_tostring(L, -1), "b");
                lua_remove(L, -2); /* the chunk's name */
                if (rc != LUA_OK) {
                    lua_pop(L, 1);
                    rc = -1;
                }
            }
        }
    }
    close(fd);
    hk_buf_free(&b);
    return rc;
}

static int dump_writer(lua_State *L, const void *p, size_t n, void *ud)
{
    (void)L;
    hk_buf_append(ud, p, n);
    return 0;
}

/* Keeps the function on the top of the stack as path's entry: written beside it and renamed
 * over it, so a reader sees the old entry or the whole new one.  Not hk_file_write_atomic: its
 * fsync would cost the first run ~80 of them, and an entry a crash loses is only compiled again. */
static void save_entry(lua_State *L, const char *entry, const char *path, entry_head h)
{
    hk_buf code, all;
    hk_buf_init(&code);
    hk_buf_init(&all);
    if (lua_dump(L, dump_writer, &code, 0) == 0) {
        h.code_len = code.len;
        hk_buf_append(&all, &h, sizeof h);
        hk_buf_append(&all, path, h.path_len);
        hk_buf_append(&all, code.data, code.len);
        char tmp[PATH_MAX + 96];
        snprintf(tmp, sizeof tmp, "%s.%ld.tmp", entry, (long)getpid());
        int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (fd >= 0) {
            char err[8];
            int ok = hk_file_write_fd(fd, all.data, all.len, err, sizeof err) == 0;
            ok = close(fd) == 0 && ok;
            if (!ok || rename(tmp, entry)) unlink(tmp);
        }
    }
    hk_buf_free(&code);
    hk_buf_free(&all);
}

int hkl_load_file_cached(lua_State *L, const char *path)
{
    size_t nb = strlen(builtin);
    const char *dir = nb && path && !strncmp(path, builtin, nb) ? cache_dir() : NULL;
    char entry[PATH_MAX + 64];
    struct stat st;
    if (!dir || stat(path, &st) || !S_ISREG(st.st_mode) || entry_path(entry, sizeof entry, dir, path))
        return luaL_loadfile(L, path);
    entry_head h;
    head_of(path, &st, &h);
    if (load_entry(L, entry, path, &h) == LUA_OK) return LUA_OK;
    int rc = luaL_loadfile(L, path); /* as it always was: a first line of '#' and a BOM skipped */
    if (rc == LUA_OK) save_entry(L, entry, path, h);
    return rc;
}

/* package.searchers[2] with the cache: the standard Lua-file searcher's lookup, messages and
 * results (the loader and the file's name), its load through hkl_load_file_cached. */
static int searcher_cached(lua_State *L)
{
    const char *name = luaL_checkstring(L, 1);
    lua_getglobal(L, "package");
    if (lua_getfield(L, -1, "path") != LUA_TSTRING) return luaL_error(L, "'package.path' must be a string");
    lua_getfield(L, -2, "searchpath");
    lua_pushvalue(L, 1);
    lua_pushvalue(L, -3);
    lua_call(L, 2, 2); /* filename, or nil and the files looked for */
    if (lua_isnil(L, -2)) return 1;
    lua_pop(L, 1);
    const char *filename = lua_tostring(L, -1);
    if (hkl_load_file_cached(L, filename) != LUA_OK)
        return luaL_error(L, "error loading module '%s' from file '%s':\n\t%s", name, filename, lua_tostring(L, -1));
    lua_pushstring(L, filename);
    return 2;
}

void hkl_use_chunk_cache(lua_State *L, const char *scripts_dir)
{
    char *real = scripts_dir ? realpath(scripts_dir, NULL) : NULL;
    if (!real) return;
    int n = snprintf(builtin, sizeof builtin, "%s/", real);
    free(real);
    if (n < 0 || (size_t)n >= sizeof builtin) {
        builtin[0] = 0;
        return;
    }
    lua_getglobal(L, "package");
    if (lua_getfield(L, -1, "searchers") == LUA_TTABLE) {
        lua_pushcfunction(L, searcher_cached);
        lua_rawseti(L, -2, 2);
    }
    lua_pop(L, 2);
}
