#include "util/hk_report.h"

#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

static hk_report_fn sink;
static void *sink_ctx;
/* set when the stderr sink has a progress line on screen that a later line must clear first */
static int progress_shown;

void hk_report_set(hk_report_fn fn, void *ctx)
{
    sink = fn;
    sink_ctx = ctx;
}

int hk_report_wants_progress(void)
{
    return sink && (sink != hk_report_stderr || isatty(2));
}

void hk_report(hk_report_kind kind, const char *fmt, ...)
{
    if (!sink || (kind == HK_REPORT_PROGRESS && !hk_report_wants_progress())) return;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    sink(sink_ctx, kind, msg);
}

void hk_report_stderr(void *ctx, hk_report_kind kind, const char *msg)
{
    (void)ctx;
    if (kind == HK_REPORT_PROGRESS) {
        if (!isatty(2)) return;
        fprintf(stderr, "\r\033[K%s", msg);
        progress_shown = msg[0] != 0;
        return;
    }
    if (progress_shown) fputs("\r\033[K", stderr);
    progress_shown = 0;
    fprintf(stderr, "hprofkit: %s: %s\n", kind == HK_REPORT_WARNING ? "warning" : "note", msg);
}
