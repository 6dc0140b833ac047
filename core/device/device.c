/* Devices and processes. */
#include "device.h"
#include "util/hk_mem.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *state_hint(const char *state)
{
    if (!strcmp(state, "device")) return "";
    if (!strcmp(state, "unauthorized")) return "accept the USB debugging dialog on the device";
    if (!strcmp(state, "offline")) return "reconnect the cable or restart adb (adb kill-server)";
    if (!strcmp(state, "authorizing") || !strcmp(state, "connecting")) return "wait a moment and list again";
    if (!strncmp(state, "no permissions", 14)) return "the USB device is not accessible: fix the udev rules";
    if (!strcmp(state, "bootloader") || !strcmp(state, "recovery") || !strcmp(state, "sideload") ||
        !strcmp(state, "rescue"))
        return "boot the device into Android";
    return "the device is not ready";
}

/* Parses `getprop` output ("[key]: [value]" lines) for one key. */
static void prop(const char *props, const char *key, char *out, size_t outlen)
{
    char pat[160];
    snprintf(pat, sizeof pat, "[%s]: [", key);
    out[0] = 0;
    const char *p = props;
    while ((p = strstr(p, pat)) != NULL) {
        if (p == props || p[-1] == '\n') {
            p += strlen(pat);
            const char *e = strstr(p, "]");
            size_t l = e ? (size_t)(e - p) : strlen(p);
            if (l >= outlen) l = outlen - 1;
            memcpy(out, p, l);
            out[l] = 0;
            return;
        }
        p++;
    }
}

/* Reads model, sdk and debuggable with one `getprop`. */
static int read_props(hk_adb *adb, const char *serial, int v2, char *model, size_t ml, int *sdk, int *debuggable,
                      char *err, size_t errlen)
{
    char *out = NULL;
    int code;
    if (hk_adb_shell(adb, serial, "getprop", v2, 0, &out, NULL, &code, err, errlen) != 0) return -1;
    char v[128], type[64];
    prop(out, "ro.product.model", model, ml);
    prop(out, "ro.build.version.sdk", v, sizeof v);
    *sdk = atoi(v);
    prop(out, "ro.debuggable", v, sizeof v);
    prop(out, "ro.build.type", type, sizeof type);
    *debuggable = !strcmp(v, "1") || !strcmp(type, "userdebug") || !strcmp(type, "eng");
    free(out);
    if (*sdk <= 0) {
        snprintf(err, errlen, "device %s: getprop did not report ro.build.version.sdk", serial);
        return -1;
    }
    return 0;
}

static int shell_v2_of(hk_adb *adb, const char *serial)
{
    char *f = NULL, e[256];
    if (hk_adb_features(adb, serial, &f, e, sizeof e) != 0) return 0;
    int r = hk_adb_has_feature(f, "shell_v2");
    free(f);
    return r;
}

int hk_device_list(hk_adb *adb, hk_device_info **out, size_t *count, char *err, size_t errlen)
{
    char *s = NULL;
    *out = NULL;
    *count = 0;
    if (hk_adb_host_query(adb, "host:devices-l", &s, NULL, err, errlen) != 0) {
        /* very old servers only know host:devices; any other failure is final */
        if (!strstr(err, "unknown host service")) return -1;
        if (hk_adb_host_query(adb, "host:devices", &s, NULL, err, errlen) != 0) return -1;
    }
    size_t cap = 8, n = 0;
    hk_device_info *v = hk_xcalloc(cap, sizeof *v);
    for (char *save = NULL, *line = strtok_r(s, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char serial[128], state[64];
        if (sscanf(line, "%127s %63s", serial, state) != 2) continue;
        if (!strcmp(state, "no")) snprintf(state, sizeof state, "no permissions");
        if (n == cap) v = hk_xrealloc(v, (cap *= 2) * sizeof *v);
        hk_device_info *d = &v[n++];
        memset(d, 0, sizeof *d);
        snprintf(d->serial, sizeof d->serial, "%s", serial);
        snprintf(d->state, sizeof d->state, "%s", state);
        snprintf(d->hint, sizeof d->hint, "%s", state_hint(state));
        d->debuggable = -1;
        /* model from devices-l; getprop below replaces it for online devices */
        const char *m = strstr(line, " model:");
        if (m) sscanf(m + 7, "%127s", d->model);
        if (strcmp(state, "device") != 0) continue;
        char perr[512];
        if (read_props(adb, serial, shell_v2_of(adb, serial), d->model, sizeof d->model, &d->sdk, &d->debuggable, perr,
                       sizeof perr) != 0)
            snprintf(d->hint, sizeof d->hint, "%.159s", perr);
    }
    free(s);
    *out = v;
    *count = n;
    return 0;
}

int hk_device_open(hk_adb *adb, const char *serial, hk_device *dev, char *err, size_t errlen)
{
    memset(dev, 0, sizeof *dev);
    dev->adb = adb;
    char *s = NULL;
    /* list without asking anything (no getprop on every device) */
    if (hk_adb_host_query(adb, "host:devices", &s, NULL, err, errlen) != 0) return -1;
    char found_state[64] = "", names[512] = "";
    int online = 0;
    char only[128] = "";
    for (char *save = NULL, *line = strtok_r(s, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char ser[128], st[64];
        if (sscanf(line, "%127s %63s", ser, st) != 2) continue;
        if (serial && *serial && !strcmp(ser, serial)) snprintf(found_state, sizeof found_state, "%s", st);
        if (!strcmp(st, "device")) {
            online++;
            snprintf(only, sizeof only, "%s", ser);
            size_t l = strlen(names);
            snprintf(names + l, sizeof names - l, "%s%s", l ? ", " : "", ser);
        }
    }
    free(s);
    if (serial && *serial) {
        if (!found_state[0]) {
            snprintf(err, errlen, "device %s not found (see `hprofkit devices`)", serial);
            return -1;
        }
        if (strcmp(found_state, "device") != 0) {
            if (!strcmp(found_state, "no")) snprintf(found_state, sizeof found_state, "no permissions");
            snprintf(err, errlen, "device %s is %s: %s", serial, found_state, state_hint(found_state));
            return -1;
        }
        snprintf(dev->serial, sizeof dev->serial, "%s", serial);
    } else {
        if (online == 0) {
            snprintf(err, errlen, "no device online (see `hprofkit devices`): connect one and enable USB debugging");
            return -1;
        }
        if (online > 1) {
            snprintf(err, errlen, "%d devices online (%s): choose one with -s SERIAL", online, names);
            return -1;
        }
        snprintf(dev->serial, sizeof dev->serial, "%s", only);
    }
    dev->shell_v2 = shell_v2_of(adb, dev->serial);
    return read_props(adb, dev->serial, dev->shell_v2, dev->model, sizeof dev->model, &dev->sdk, &dev->debuggable, err,
                      errlen);
}

int hk_device_shell(hk_device *dev, const char *cmd, char **out, size_t *outlen, int *exit_code, char *err,
                    size_t errlen)
{
    return hk_adb_shell(dev->adb, dev->serial, cmd, dev->shell_v2, 0, out, outlen, exit_code, err, errlen);
}

int hk_device_pull(hk_device *dev, const char *remote, const char *local, hk_adb_progress_fn progress, void *ctx,
                   char *err, size_t errlen)
{
    return hk_adb_pull(dev->adb, dev->serial, remote, local, -1, progress, ctx, err, errlen);
}

/* ---------- processes ---------- */

static int cmp_proc(const void *a, const void *b)
{
    const hk_process *x = a, *y = b;
    if (x->is_app != y->is_app) return y->is_app - x->is_app;
    int c = strcmp(x->name, y->name);
    return c ? c : x->pid - y->pid;
}

/* Package names, one per line in `pm list packages` ("package:NAME"); returns a "\nNAME\n..." string
 * so membership is a strstr of "\nNAME\n". */
static char *package_set(const char *pm)
{
    size_t cap = strlen(pm) + 3;
    char *set = hk_xmalloc(cap), *w = set;
    *w++ = '\n';
    for (const char *p = pm; *p;) {
        const char *e = strchr(p, '\n');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        if (l > 8 && !strncmp(p, "package:", 8)) {
            size_t nl = l - 8;
            while (nl && (p[8 + nl - 1] == '\r' || p[8 + nl - 1] == ' ')) nl--;
            memcpy(w, p + 8, nl);
            w += nl;
            *w++ = '\n';
        }
        p = e ? e + 1 : p + l;
    }
    *w = 0;
    return set;
}

static int in_set(const char *set, const char *name)
{
    char key[300];
    size_t l = strcspn(name, ":"); /* com.app:remote is the app com.app */
    if (l > 256) return 0;
    snprintf(key, sizeof key, "\n%.*s\n", (int)l, name);
    return strstr(set, key) != NULL;
}

int hk_device_processes(hk_device *dev, hk_process **out, size_t *count, char *err, size_t errlen)
{
    char *ps = NULL, *pm = NULL, *set = NULL;
    int code;
    *out = NULL;
    *count = 0;
    /* toybox ps (API 26+) lists only the shell's own processes without -A; old toolbox ps lists all */
    const char *cmd = dev->sdk >= 26 ? "ps -A -o PID,NAME" : "ps";
    if (hk_device_shell(dev, cmd, &ps, NULL, &code, err, errlen) != 0) return -1;
    if (hk_device_shell(dev, "pm list packages", &pm, NULL, &code, err, errlen) != 0) {
        free(ps);
        return -1;
    }
    set = package_set(pm);
    size_t cap = 64, n = 0;
    hk_process *v = hk_xmalloc(cap * sizeof *v);
    int pid_col = -1;
    for (char *save = NULL, *line = strtok_r(ps, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *tok[32];
        int nt = 0;
        for (char *s2 = NULL, *t = strtok_r(line, " \t\r", &s2); t && nt < 32; t = strtok_r(NULL, " \t\r", &s2))
            tok[nt++] = t;
        if (nt < 2) continue;
        if (pid_col < 0) {
            /* the header says where PID is; the name is the last column in both ps dialects */
            for (int i = 0; i < nt; i++)
                if (!strcmp(tok[i], "PID")) pid_col = i;
            if (pid_col < 0) {
                snprintf(err, errlen, "device %s: unexpected `%s` output (no PID column): %.80s", dev->serial, cmd,
                         tok[0]);
                goto fail;
            }
            continue;
        }
        if (pid_col >= nt) continue;
        char *end;
        long pid = strtol(tok[pid_col], &end, 10);
        if (*end || pid <= 0) continue;
        const char *name = tok[nt - 1];
        if (!strcmp(name, "ps") || !strcmp(name, "sh")) continue; /* our own command */
        if (n == cap) v = hk_xrealloc(v, (cap *= 2) * sizeof *v);
        v[n].pid = (int)pid;
        snprintf(v[n].name, sizeof v[n].name, "%s", name);
        v[n].is_app = in_set(set, name);
        n++;
    }
    qsort(v, n, sizeof *v, cmp_proc);
    free(ps);
    free(pm);
    free(set);
    *out = v;
    *count = n;
    return 0;
fail:
    free(ps);
    free(pm);
    free(set);
    free(v);
    return -1;
}
