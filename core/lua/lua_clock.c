/* Time and signals for scripts that run until stopped (watch):
 *   hk.clock()            -> seconds on a monotonic clock (a float; only differences mean anything)
 *   hk.sleep(seconds)     -> true when the time passed, false when an interrupt cut it short (it
 *                         ends at the script time limit, lua_limit.c, with its error)
 *   hk.trap_interrupt()   Ctrl-C (SIGINT) and SIGTERM stop being fatal: they only set a flag, so
 *                         the script can finish what it is doing (a sample, a dump) and end cleanly
 *   hk.interrupted()      -> true once such a signal has arrived since hk.trap_interrupt()
 * Blocking device reads retry on EINTR, so a signal never cuts a transfer in half. */
#include "lua/lua_host.h"
#include "lua/lua_open.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <time.h>

static volatile sig_atomic_t g_interrupted;

static void on_signal(int sig)
{
    (void)sig;
    g_interrupted = 1;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int l_clock(lua_State *L)
{
    lua_pushnumber(L, now_s());
    return 1;
}

static int l_sleep(lua_State *L)
{
    double s = luaL_checknumber(L, 1), limit = hkl_limit_left();
    if (s > limit) s = limit; /* not past the script time limit */
    double end = now_s() + (s > 0 ? s : 0);
    for (;;) {
        if (g_interrupted) {
            lua_pushboolean(L, 0);
            return 1;
        }
        double left = end - now_s();
        if (left <= 0) break;
        struct timespec ts = {(time_t)left, (long)((left - (double)(time_t)left) * 1e9)};
        /* a signal ends nanosleep early with EINTR; the loop then sees the flag */
        if (nanosleep(&ts, NULL) != 0 && errno != EINTR) break;
    }
    hkl_limit_check(L);
    lua_pushboolean(L, 1);
    return 1;
}

static int l_trap_interrupt(lua_State *L)
{
    (void)L;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0; /* no SA_RESTART: sleeps end at once; socket reads retry on EINTR themselves */
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    g_interrupted = 0;
    return 0;
}

static int l_interrupted(lua_State *L)
{
    lua_pushboolean(L, g_interrupted != 0);
    return 1;
}

static const luaL_Reg hk_funcs[] = {
    {"clock", l_clock}, {"sleep", l_sleep}, {"trap_interrupt", l_trap_interrupt}, {"interrupted", l_interrupted},
    {NULL, NULL},
};

void hkl_open_clock(lua_State *L)
{
    hkl_add_functions(L, hk_funcs);
}
