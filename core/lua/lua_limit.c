/* A time limit for scripts that never end: a query, a recipe or `run SCRIPT` whose outermost
 * call runs longer than the limit is stopped with one line (exit 1 at the CLI).  The limit is
 * a wall-clock budget checked every 10,000 Lua instructions (a count hook; time spent inside
 * one C primitive is noticed when it returns), and hk.sleep ends at it.  Past the deadline
 * the hook fires on every instruction, so a script that catches the error with pcall is
 * stopped at its next instruction outside the protected call.  Set with the global option
 * --lua-time-limit SECONDS or HPROFKIT_LUA_TIME_LIMIT; none by default. */
#include "lua/lua_host.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double g_limit = -1; /* seconds; 0 none; -1 not set (HPROFKIT_LUA_TIME_LIMIT decides) */
static double g_deadline;
static int g_depth;
/* the limit of the call running now and how its user changes it: the global option's, or a
 * caller's own (the explorer's console: hkl_limit_enter_with) */
static double g_active;
static const char *g_hint;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int parse_seconds(const char *v, double *out)
{
    char *end;
    double s = v ? strtod(v, &end) : -1;
    if (!v || !*v || *end || !(s >= 0) || s > 1e9) return -1;
    *out = s;
    return 0;
}

int hkl_time_limit_set(const char *v, char *err, size_t errlen)
{
    if (parse_seconds(v, &g_limit) == 0) return 0;
    snprintf(err, errlen, "--lua-time-limit needs seconds (0: none), got '%s'", v ? v : "");
    return -1;
}

double hkl_time_limit(void)
{
    if (g_limit < 0) {
        const char *e = getenv("HPROFKIT_LUA_TIME_LIMIT");
        if (e && *e && parse_seconds(e, &g_limit) != 0) {
            fprintf(stderr, "hprofkit: warning: HPROFKIT_LUA_TIME_LIMIT='%s' is not seconds: no limit\n", e);
            g_limit = 0;
        }
        if (g_limit < 0) g_limit = 0;
    }
    return g_limit;
}

static int over_limit(lua_State *L)
{
    char msg[200];
    snprintf(msg, sizeof msg, "the script ran past its time limit of %g s (%s)", g_active, g_hint);
    /* a table, not a string: coroutine.wrap would put its position before a string */
    lua_createtable(L, 0, 2);
    lua_pushstring(L, msg);
    lua_setfield(L, -2, "message");
    lua_pushinteger(L, 1);
    lua_setfield(L, -2, "exit_code");
    return lua_error(L);
}

static void on_count(lua_State *L, lua_Debug *ar)
{
    (void)ar;
    if (now_s() <= g_deadline) return;
    lua_sethook(L, on_count, LUA_MASKCOUNT, 1);
    over_limit(L);
}

void hkl_limit_enter_with(lua_State *L, double seconds, const char *hint)
{
    if (g_depth++) return;
    g_active = seconds;
    g_hint = hint;
    if (seconds <= 0) return;
    g_deadline = now_s() + seconds;
    lua_sethook(L, on_count, LUA_MASKCOUNT, 10000);
}

void hkl_limit_enter(lua_State *L)
{
    hkl_limit_enter_with(L, hkl_time_limit(), "--lua-time-limit or HPROFKIT_LUA_TIME_LIMIT");
}

void hkl_limit_leave(lua_State *L)
{
    if (--g_depth || g_active <= 0) return;
    lua_sethook(L, NULL, 0, 0);
}

double hkl_limit_left(void)
{
    return g_depth && g_active > 0 ? g_deadline - now_s() : HUGE_VAL;
}

void hkl_limit_check(lua_State *L)
{
    if (hkl_limit_left() <= 0) over_limit(L);
}
