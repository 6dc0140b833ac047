/* The meminfo plugin's entry: registers the parsers as Lua-callable functions
 *   hk.meminfo.parse(text)            -> `dumpsys meminfo` parsed (JSON -> table)
 *   hk.meminfo.smaps(text)            -> /proc/PID/smaps classified
 *   hk.meminfo.device(process[, serial]) -> runs `dumpsys meminfo PROCESS` on a device, parsed
 * The parsing itself lives in the host-independent files next to this one. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "hprofkit.h"
#include "meminfo.h"

/* Moves a finished JSON document into the host's buffer. */
static int mi_hand_over(int rc, mi_buf *b, hk_buf *out, char *err, size_t errlen)
{
    if (rc == 0) hk_api->buf_append(out, b->data, b->len);
    mi_buf_free(b);
    return rc;
}

/* The text functions: one text argument, one parser; usage says what to pass. */
static int mi_text_fn(int (*parse)(const char *, size_t, mi_buf *, char *, size_t), const char *usage, int argc,
                      const char *const *argv, const size_t *argl, hk_buf *out, char *err, size_t errlen)
{
    if (argc < 1) {
        snprintf(err, errlen, "%s", usage);
        return -1;
    }
    mi_buf b;
    mi_buf_init(&b);
    return mi_hand_over(parse(argv[0], argl[0], &b, err, errlen), &b, out, err, errlen);
}

static int mi_fn_parse(void *ud, int argc, const char *const *argv, const size_t *argl, hk_buf *out, char *err,
                       size_t errlen)
{
    return mi_text_fn(mi_parse, "meminfo.parse(text): pass the text of `dumpsys meminfo <pid|package>`", argc, argv,
                      argl, out, err, errlen);
}

static int mi_fn_smaps(void *ud, int argc, const char *const *argv, const size_t *argl, hk_buf *out, char *err,
                       size_t errlen)
{
    return mi_text_fn(mi_smaps, "meminfo.smaps(text): pass the text of /proc/PID/smaps", argc, argv, argl, out, err,
                      errlen);
}

/* A process is a pid or a package/process name; anything else could reach
 * the device's shell, so it is refused. */
static int mi_safe_process(const char *s, size_t n)
{
    if (n == 0 || n > 200) return 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
              c == ':' || c == '-'))
            return 0;
    }
    return s[0] != '-';
}

static int mi_fn_device(void *ud, int argc, const char *const *argv, const size_t *argl, hk_buf *out, char *err,
                        size_t errlen)
{
    if (argc < 1 || !mi_safe_process(argv[0], argl[0])) {
        snprintf(err, errlen,
                 "meminfo.device(process[, serial]): process must be a pid or a package name ([A-Za-z0-9._:-])");
        return -1;
    }
    if (!hk_api->device_shell) {
        snprintf(err, errlen,
                 "this hprofkit has no device transport: capture `adb shell dumpsys meminfo %s` into a file instead",
                 argv[0]);
        return -1;
    }
    const char *serial = argc >= 2 && argl[1] ? argv[1] : NULL;
    char cmd[256];
    snprintf(cmd, sizeof cmd, "dumpsys meminfo %.*s", (int)argl[0], argv[0]);
    /* The host owns hk_buf; borrow the output buffer for the raw text, then
	 * replace it with the parsed JSON. */
    int code = 0;
    if (hk_api->device_shell(serial, cmd, out, &code, err, errlen) < 0) return -1;
    size_t n = hk_api->buf_len(out);
    mi_buf text;
    mi_buf_init(&text);
    mi_buf_put(&text, (const char *)hk_api->buf_data(out), n);
    hk_api->buf_reset(out);
    mi_buf b;
    mi_buf_init(&b);
    int rc = mi_parse(text.data ? text.data : "", text.len, &b, err, errlen);
    mi_buf_free(&text);
    return mi_hand_over(rc, &b, out, err, errlen);
}

static int mi_init(hk_plugin *self, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    hk_api->describe(self, "meminfo", "0.1.0", "dumpsys meminfo and /proc/PID/smaps: parsed, checked, classified");
    /* a refusal is the host's reason */
    return hk_api->register_function(
               self, "parse", "parse(text): `dumpsys meminfo <pid|package>` text -> table, summary, objects, checks",
               mi_fn_parse, NULL) |
           hk_api->register_function(self, "smaps",
                                     "smaps(text): /proc/PID/smaps text -> meminfo categories, Unknown by name",
                                     mi_fn_smaps, NULL) |
           hk_api->register_function(
               self, "device", "device(process[, serial]): run `dumpsys meminfo PROCESS` on a device and parse it",
               mi_fn_device, NULL);
}

HK_PLUGIN_INIT(mi_init)
