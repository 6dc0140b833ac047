/* A small SQLite face for scripts that keep results across runs (fleet-ingest, fleet-report):
 *   hk.sqlite_open(path)     -> db (created when missing); a bad path is a usage error
 *   db:exec(sql)             runs one or more statements without parameters
 *   db:rows(sql, ...)        -> an array of rows (column name -> value; SQL NULL is absent)
 *   db:run(sql, ...)         runs one statement with parameters -> rows changed
 *   db:close()               (also done when the db is collected)
 * Parameters bind by position: integers, floats, strings; nil and hk.null bind NULL, booleans
 * 0/1.  Prepared statements are kept per SQL text, so a loop of db:run costs one prepare. */
#include "lua/lua_host.h"
#include "lua/lua_open.h"

#include <sqlite3.h>
#include <string.h>

#define HKL_SQLITE "hk.SQLite"
#define STMT_CACHE 16

typedef struct {
    sqlite3 *db;
    struct {
        char *sql;
        sqlite3_stmt *st;
    } cache[STMT_CACHE];
    int next; /* the slot the next new statement replaces */
} hkl_sqlite;

static hkl_sqlite *check_db(lua_State *L)
{
    hkl_sqlite *s = luaL_checkudata(L, 1, HKL_SQLITE);
    if (!s->db) hkl_fail(L, "the database is closed");
    return s;
}

static void close_db(hkl_sqlite *s)
{
    for (int i = 0; i < STMT_CACHE; i++) {
        sqlite3_finalize(s->cache[i].st);
        sqlite3_free(s->cache[i].sql);
        s->cache[i].st = NULL;
        s->cache[i].sql = NULL;
    }
    sqlite3_close(s->db);
    s->db = NULL;
}

static int l_close(lua_State *L)
{
    hkl_sqlite *s = luaL_checkudata(L, 1, HKL_SQLITE);
    if (s->db) close_db(s);
    return 0;
}

static int l_open(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    hkl_sqlite *s = lua_newuserdatauv(L, sizeof *s, 0);
    memset(s, 0, sizeof *s);
    luaL_setmetatable(L, HKL_SQLITE);
    if (sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
        const char *msg = s->db ? sqlite3_errmsg(s->db) : "out of memory";
        lua_pushfstring(L, "%s: %s", path, msg);
        close_db(s);
        return hkl_usage_error(L, "%s", lua_tostring(L, -1));
    }
    sqlite3_busy_timeout(s->db, 10000);
    return 1;
}

static int l_exec(lua_State *L)
{
    hkl_sqlite *s = check_db(L);
    char *err = NULL;
    if (sqlite3_exec(s->db, luaL_checkstring(L, 2), NULL, NULL, &err) != SQLITE_OK) {
        lua_pushstring(L, err ? err : sqlite3_errmsg(s->db));
        sqlite3_free(err);
        return hkl_fail(L, "sqlite: %s", lua_tostring(L, -1));
    }
    return 0;
}

/* The statement for sql with args 3.. bound, reset and ready to step. */
static sqlite3_stmt *prepare(lua_State *L, hkl_sqlite *s)
{
    const char *sql = luaL_checkstring(L, 2);
    sqlite3_stmt *st = NULL;
    for (int i = 0; i < STMT_CACHE && !st; i++)
        if (s->cache[i].sql && !strcmp(s->cache[i].sql, sql)) st = s->cache[i].st;
    if (!st) {
        if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
            hkl_fail(L, "sqlite: %s", sqlite3_errmsg(s->db));
        int slot = s->next;
        s->next = (s->next + 1) % STMT_CACHE;
        sqlite3_finalize(s->cache[slot].st);
        sqlite3_free(s->cache[slot].sql);
        s->cache[slot].st = st;
        s->cache[slot].sql = sqlite3_mprintf("%s", sql);
    }
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    int n = lua_gettop(L);
    for (int i = 3; i <= n; i++) {
        int k = i - 2, rc;
        switch (lua_type(L, i)) {
        case LUA_TNUMBER:
            rc = lua_isinteger(L, i) ? sqlite3_bind_int64(st, k, lua_tointeger(L, i))
                                     : sqlite3_bind_double(st, k, lua_tonumber(L, i));
            break;
        case LUA_TSTRING: {
            size_t len;
            const char *v = lua_tolstring(L, i, &len);
            rc = sqlite3_bind_text(st, k, v, (int)len, SQLITE_TRANSIENT);
            break;
        }
        case LUA_TBOOLEAN: rc = sqlite3_bind_int(st, k, lua_toboolean(L, i)); break;
        default: rc = sqlite3_bind_null(st, k); break; /* nil, hk.null */
        }
        if (rc != SQLITE_OK) hkl_fail(L, "sqlite: parameter %d: %s", k, sqlite3_errmsg(s->db));
    }
    return st;
}

static void push_column(lua_State *L, sqlite3_stmt *st, int c)
{
    switch (sqlite3_column_type(st, c)) {
    case SQLITE_INTEGER: lua_pushinteger(L, sqlite3_column_int64(st, c)); break;
    case SQLITE_FLOAT: lua_pushnumber(L, sqlite3_column_double(st, c)); break;
    case SQLITE_NULL: lua_pushnil(L); break;
    default: lua_pushlstring(L, (const char *)sqlite3_column_text(st, c), (size_t)sqlite3_column_bytes(st, c)); break;
    }
}

static int l_rows(lua_State *L)
{
    hkl_sqlite *s = check_db(L);
    sqlite3_stmt *st = prepare(L, s);
    lua_newtable(L);
    int ncol = sqlite3_column_count(st), rc;
    lua_Integer n = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        lua_createtable(L, 0, ncol);
        for (int c = 0; c < ncol; c++) {
            push_column(L, st, c);
            lua_setfield(L, -2, sqlite3_column_name(st, c));
        }
        lua_rawseti(L, -2, ++n);
    }
    if (rc != SQLITE_DONE) return hkl_fail(L, "sqlite: %s", sqlite3_errmsg(s->db));
    sqlite3_reset(st);
    return 1;
}

static int l_run(lua_State *L)
{
    hkl_sqlite *s = check_db(L);
    sqlite3_stmt *st = prepare(L, s);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {}
    if (rc != SQLITE_DONE) return hkl_fail(L, "sqlite: %s", sqlite3_errmsg(s->db));
    sqlite3_reset(st);
    lua_pushinteger(L, sqlite3_changes(s->db));
    return 1;
}

static const luaL_Reg db_methods[] = {
    {"exec", l_exec}, {"rows", l_rows}, {"run", l_run}, {"close", l_close}, {NULL, NULL},
};

static const luaL_Reg db_meta[] = {
    {"__gc", l_close},
    {NULL, NULL},
};

static const luaL_Reg hk_funcs[] = {
    {"sqlite_open", l_open},
    {NULL, NULL},
};

void hkl_open_sqlite(lua_State *L)
{
    hkl_new_metatable(L, HKL_SQLITE, db_methods, db_meta);
    hkl_add_functions(L, hk_funcs);
}
