/* The device members of the host table, over core/device (the adb host protocol). */
#include "host/plugin_internal.h"

#include <stdlib.h>
#include <string.h>

#include "device/device.h"

static int open_device(const char *serial, hk_adb *adb, hk_device *dev, char *err, size_t errlen)
{
    if (hk_adb_init(adb, err, errlen) < 0) return -1;
    return hk_device_open(adb, serial, dev, err, errlen);
}

int hk_host_device_shell(const char *serial, const char *cmd, hk_buf *out, int *exit_code, char *err, size_t errlen)
{
    hk_adb adb;
    hk_device dev;
    if (open_device(serial, &adb, &dev, err, errlen) < 0) return -1;
    char *o = NULL;
    size_t n = 0;
    int code = -1;
    if (hk_device_shell(&dev, cmd, &o, &n, &code, err, errlen) < 0) {
        free(o);
        return -1;
    }
    /* out may be NULL: a caller that only wants the command run (the jdwp plugin's nudge) */
    if (out) hk_buf_append(out, o, n);
    free(o);
    if (exit_code) *exit_code = code;
    return 0;
}

int hk_host_device_open(const char *serial, const char *service, int *fd, char *err, size_t errlen)
{
    hk_adb adb;
    if (hk_adb_init(&adb, err, errlen) < 0) return -1;
    int s = hk_adb_open_service(&adb, serial, service, err, errlen);
    if (s < 0) return -1;
    *fd = s;
    return 0;
}

int hk_host_device_dump_heap(const char *serial, const char *process, int gc, int bitmaps, const char *local_path,
                             char *err, size_t errlen)
{
    hk_adb adb;
    hk_device dev;
    if (open_device(serial, &adb, &dev, err, errlen) < 0) return -1;
    hk_dump_opts o;
    hk_dump_opts_init(&o);
    o.process = process;
    o.output = local_path;
    o.gc = gc;
    o.bitmaps = bitmaps;
    hk_dump_result res;
    memset(&res, 0, sizeof res);
    return hk_device_dump_heap(&dev, &o, &res, err, errlen) < 0 ? -1 : 0;
}
