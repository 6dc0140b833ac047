/* adbtool: a small driver over the device transport's C API, for tests until the CLI exists.
 *   adbtool version | devices | features [-s S] | processes [-s S] | shell [-s S] CMD
 *           pull [-s S] REMOTE LOCAL | dump [-s S] PROCESS [-o FILE] [--no-gc] [--bitmaps|--no-bitmaps] [--progress]
 *           jdwp [-s S] PID      (opens jdwp:PID and does the JDWP handshake)
 *           lua SCRIPT [ARGS]    (runs SCRIPT with a global `hk` holding hk.devices and hk.device)
 * Errors go to stderr as "adbtool: MESSAGE" with exit status 1. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lualib.h>

#include "device.h"
#include "lua/lua_device.h"
#include "lua/lua_open.h"
#include "util/hk_report.h"

static int die(const char *msg)
{
    fprintf(stderr, "adbtool: %s\n", msg);
    return 1;
}

int main(int argc, char **argv)
{
    char err[1024];
    hk_adb adb;
    hk_report_set(hk_report_stderr, NULL); /* the device layer's notes and warnings, as hprofkit shows them */
    if (argc < 2) return die("usage: adbtool version|devices|features|processes|shell|pull|dump|jdwp ...");
    if (hk_adb_init(&adb, err, sizeof err) != 0) return die(err);
    const char *sub = argv[1], *serial = NULL, *output = NULL;
    const char *pos[8];
    int npos = 0, gc = 1, bitmaps = -1, progress = -1;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "-s") && i + 1 < argc) serial = argv[++i];
        else if (!strcmp(argv[i], "-o") && i + 1 < argc) output = argv[++i];
        else if (!strcmp(argv[i], "--no-gc")) gc = 0;
        else if (!strcmp(argv[i], "--bitmaps")) bitmaps = 1;
        else if (!strcmp(argv[i], "--no-bitmaps")) bitmaps = 0;
        else if (!strcmp(argv[i], "--progress")) progress = 1;
        else if (npos < 8) pos[npos++] = argv[i];
    }
    if (!strcmp(sub, "lua") && argc >= 3) {
        lua_State *L = luaL_newstate();
        luaL_openlibs(L);
        lua_newtable(L);
        lua_setglobal(L, "hk");
        hkl_open_device(L);
        lua_createtable(L, argc, 0);
        for (int i = 3; i < argc; i++) {
            lua_pushstring(L, argv[i]);
            lua_rawseti(L, -2, i - 2);
        }
        lua_setglobal(L, "arg");
        int rc = luaL_dofile(L, argv[2]);
        if (rc != LUA_OK) fprintf(stderr, "adbtool: %s\n", lua_tostring(L, -1));
        lua_close(L);
        return rc == LUA_OK ? 0 : 1;
    }
    if (!strcmp(sub, "version")) {
        int v;
        if (hk_adb_server_version(&adb, &v, err, sizeof err) != 0) return die(err);
        printf("%d\n", v);
        return 0;
    }
    if (!strcmp(sub, "devices")) {
        hk_device_info *d;
        size_t n;
        if (hk_device_list(&adb, &d, &n, err, sizeof err) != 0) return die(err);
        for (size_t i = 0; i < n; i++)
            printf("%s\t%s\t%s\t%d\t%d\t%s\n", d[i].serial, d[i].state, d[i].model, d[i].sdk, d[i].debuggable,
                   d[i].hint);
        free(d);
        return 0;
    }
    if (!strcmp(sub, "features")) {
        char *f;
        if (hk_adb_features(&adb, serial, &f, err, sizeof err) != 0) return die(err);
        printf("%s\n", f);
        free(f);
        return 0;
    }
    hk_device dev;
    if (hk_device_open(&adb, serial, &dev, err, sizeof err) != 0) return die(err);
    if (!strcmp(sub, "processes")) {
        hk_process *p;
        size_t n;
        if (hk_device_processes(&dev, &p, &n, err, sizeof err) != 0) return die(err);
        for (size_t i = 0; i < n; i++) printf("%d\t%s\t%d\n", p[i].pid, p[i].name, p[i].is_app);
        free(p);
        return 0;
    }
    if (!strcmp(sub, "shell") && npos == 1) {
        char *out;
        int code;
        if (hk_device_shell(&dev, pos[0], &out, NULL, &code, err, sizeof err) != 0) return die(err);
        fputs(out, stdout);
        free(out);
        fprintf(stderr, "exit: %d\n", code);
        return code > 0 ? code : 0;
    }
    if (!strcmp(sub, "pull") && npos == 2) {
        if (hk_device_pull(&dev, pos[0], pos[1], NULL, NULL, err, sizeof err) != 0) return die(err);
        return 0;
    }
    if (!strcmp(sub, "dump") && npos == 1) {
        hk_dump_opts o;
        hk_dump_result r;
        hk_dump_opts_init(&o);
        o.process = pos[0];
        o.output = output;
        o.gc = gc;
        o.bitmaps = bitmaps;
        o.progress = progress;
        if (hk_device_dump_heap(&dev, &o, &r, err, sizeof err) != 0) return die(err);
        printf("%s\t%llu\t%d\t%d\n", r.path, (unsigned long long)r.bytes, r.gc, r.bitmaps);
        return 0;
    }
    if (!strcmp(sub, "jdwp") && npos == 1) {
        char svc[64];
        snprintf(svc, sizeof svc, "jdwp:%s", pos[0]);
        int fd = hk_adb_open_service(&adb, dev.serial, svc, err, sizeof err);
        if (fd < 0) return die(err);
        if (hk_adb_write_all(fd, "JDWP-Handshake", 14, 5000, "the JDWP handshake", err, sizeof err) != 0)
            return die(err);
        char reply[15] = "";
        if (hk_adb_read_exact(fd, reply, 14, "the JDWP handshake reply", 5000, err, sizeof err) != 0) return die(err);
        close(fd);
        printf("%s\n", reply);
        return 0;
    }
    return die("unknown subcommand or wrong arguments");
}
