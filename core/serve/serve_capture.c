/* A query run for the explorer writes where the CLI's would (stdout, one line on stderr); these
 * send both to memory for the time of the run, so the API answers exactly what the CLI prints.
 * Only the holder of the Lua lock runs queries, so one capture at a time. */
#include "serve/serve_app.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static FILE *saved_out, *saved_err;
static char *out_data, *err_data;
static size_t out_len, err_len;
static int active;

void sv_capture_begin(void)
{
    fflush(stdout);
    fflush(stderr);
    saved_out = stdout;
    saved_err = stderr;
    FILE *o = open_memstream(&out_data, &out_len), *e = open_memstream(&err_data, &err_len);
    if (!o || !e) {
        if (o) fclose(o);
        if (e) fclose(e);
        o = e = NULL;
        return; /* out of memory for a stream: the run writes where it would */
    }
    stdout = o;
    stderr = e;
    active = 1;
}

static void take(FILE *f, char **data, size_t *len, hk_buf *into)
{
    fclose(f);
    if (into) hk_buf_append(into, *data, *len);
    free(*data);
    *data = NULL;
    *len = 0;
}

void sv_capture_end(hk_buf *out, hk_buf *err)
{
    if (!active) return;
    active = 0;
    if (stdout != saved_out) take(stdout, &out_data, &out_len, out);
    if (stderr != saved_err) take(stderr, &err_data, &err_len, err);
    stdout = saved_out;
    stderr = saved_err;
}

/* Notes, warnings and progress are not why a run failed: the last other line that names the
 * command is (a script error's traceback follows its first line). */
void sv_error_line(const char *err, const char *name, char *msg, size_t n)
{
    char prefix[160];
    snprintf(prefix, sizeof prefix, "hprofkit %s: ", name);
    size_t plen = strlen(prefix);
    msg[0] = 0;
    for (const char *l = err; l && *l;) {
        const char *nl = strchr(l, '\n'), *cr;
        size_t len = nl ? (size_t)(nl - l) : strlen(l);
        while ((cr = memchr(l, '\r', len))) len -= (size_t)(cr + 1 - l), l = cr + 1; /* progress redraws */
        int named = len > plen && !strncmp(l, prefix, plen);
        int aside = named && (!strncmp(l + plen, "note", 4) || !strncmp(l + plen, "warning", 7));
        if (named && !aside) {
            snprintf(msg, n, "%.*s", (int)len, l);
            if (!strncmp(l + plen, "error:", 6)) return;
        } else if (!msg[0] && len && !aside) {
            snprintf(msg, n, "%.*s", (int)len, l);
        }
        l = nl ? nl + 1 : NULL;
    }
    if (!msg[0]) snprintf(msg, n, "hprofkit %s: failed (no message)", name);
}
