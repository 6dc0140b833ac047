/* The deaths plugin's entry: the parsers as Lua-callable functions (the host turns the JSON
 * into tables)
 *   hk.deaths.logcat(text)     -> [{kind, layout, line, <fields by name>}]  (README.md)
 *   hk.deaths.exit_info(text)  -> [{kind = "exit_info", layout, line, pid, reason, ...}]
 * Numbers are JSON numbers; everything else is a string as printed. */
#include <stdio.h>
#include <string.h>

#include "deaths.h"
#include "hprofkit.h"

static void record_json(hk_buf *out, const dl_record *r)
{
    hk_api->buf_printf(out, "{\"kind\":\"%s\",\"layout\":\"%s\",\"line\":%d", r->kind, r->layout ? r->layout : "",
                       r->line);
    for (int i = 0; i < r->nfields; i++) {
        hk_api->buf_printf(out, ",\"%s\":", r->f[i].name);
        if (r->f[i].numeric) hk_api->buf_printf(out, "%s", r->f[i].value);
        else hk_api->buf_json_string(out, r->f[i].value, strlen(r->f[i].value));
    }
    hk_api->buf_append(out, "}", 1);
}

static int run(void (*parse)(const char *, size_t, dl_records *), const char *usage, int argc, const char *const *argv,
               const size_t *argl, hk_buf *out, char *err, size_t errlen)
{
    if (argc < 1) {
        snprintf(err, errlen, "%s", usage);
        return -1;
    }
    dl_records rs = {0};
    parse(argv[0], argl[0], &rs);
    hk_api->buf_append(out, "[", 1);
    for (int i = 0; i < rs.n; i++) {
        if (i) hk_api->buf_append(out, ",", 1);
        record_json(out, &rs.r[i]);
    }
    hk_api->buf_append(out, "]", 1);
    dl_records_free(&rs);
    return 0;
}

static int fn_logcat(void *ud, int argc, const char *const *argv, const size_t *argl, hk_buf *out, char *err,
                     size_t errlen)
{
    (void)ud;
    return run(dl_logcat_parse, "deaths.logcat(text): pass logcat output (any layout)", argc, argv, argl, out, err,
               errlen);
}

static int fn_exit_info(void *ud, int argc, const char *const *argv, const size_t *argl, hk_buf *out, char *err,
                        size_t errlen)
{
    (void)ud;
    return run(dl_exitinfo_parse,
               "deaths.exit_info(text): pass `dumpsys activity exit-info` output or ApplicationExitInfo lines", argc,
               argv, argl, out, err, errlen);
}

static int dl_init(hk_plugin *self, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    hk_api->describe(self, "deaths", "0.1.0", "how an app died: kill and crash records in logcat, exit-info");
    return hk_api->register_function(self, "logcat",
                                     "logcat(text): the kill, death, crash and memory-pressure records of a log",
                                     fn_logcat, NULL) |
           hk_api->register_function(self, "exit_info",
                                     "exit_info(text): `dumpsys activity exit-info` or ApplicationExitInfo lines "
                                     "-> one record each, fields by name",
                                     fn_exit_info, NULL);
}

HK_PLUGIN_INIT(dl_init)
