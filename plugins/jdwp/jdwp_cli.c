/* jdwp_cli: drives the JDWP client against a VM on HOST:PORT, for tests and benchmarks.
 *   jdwp_cli fetch --jdwp HOST:PORT --out DIR [--budget-seconds S] [--budget-bytes B]
 *                  [--safe-point-ms MS] [--quiet]
 *   jdwp_cli gc --jdwp HOST:PORT [--safe-point-ms MS]
 * Prints one JSON object on stdout; progress and errors on stderr; exit 0 ok, 1 error, 2 usage. */
#include "jdwp_bitmaps.h"
#include "hprofkit.h"
#include "jdwp_gc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* a program without a host: hk_alloc & co. use the C library, with the same out-of-memory end */
const hk_host *hk_api;

#define JDWP_CLI_TIMEOUT_MS 10000

static double cli_secs(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void cli_progress(void *ctx, const jdwp_fetch_progress *p)
{
    if (*(int *)ctx) return;
    fprintf(stderr, "jdwp: bitmap %zu of %zu (0x%llx) %s, %llu bytes, %.1f s left\n", p->k, p->n,
            (unsigned long long)p->ptr, p->ok ? "ok" : "failed", (unsigned long long)p->bytes, p->seconds_left);
}

/* JSON string body: escapes quotes, backslashes and control bytes. */
static void cli_json_str(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\') printf("\\%c", ch);
        else if (ch < 0x20) printf("\\u%04x", ch);
        else putchar(ch);
    }
    putchar('"');
}

static int cli_usage(void)
{
    fprintf(stderr, "usage: jdwp_cli fetch --jdwp HOST:PORT --out DIR [--budget-seconds S] "
                    "[--budget-bytes B] [--safe-point-ms MS] [--quiet]\n"
                    "       jdwp_cli gc --jdwp HOST:PORT [--safe-point-ms MS]\n");
    return 2;
}

int main(int argc, char **argv)
{
    if (argc < 2) return cli_usage();
    const char *cmd = argv[1], *hostport = NULL, *out = NULL;
    jdwp_fetch_opts o = {0};
    int quiet = 0;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--quiet")) {
            quiet = 1;
            continue;
        }
        if (!v) return cli_usage();
        if (!strcmp(a, "--jdwp")) hostport = v;
        else if (!strcmp(a, "--out")) out = v;
        else if (!strcmp(a, "--budget-seconds")) o.budget_seconds = strtod(v, NULL);
        else if (!strcmp(a, "--budget-bytes")) o.budget_bytes = strtoull(v, NULL, 10);
        else if (!strcmp(a, "--safe-point-ms")) o.safe_point_ms = atoi(v);
        else return cli_usage();
        i++;
    }
    int is_fetch = !strcmp(cmd, "fetch");
    if (!hostport || (is_fetch && !out) || (!is_fetch && strcmp(cmd, "gc"))) return cli_usage();

    char err[512] = "";
    double t0 = cli_secs();
    int fd, rc;
    jdwp_conn *c = NULL;
    if (jdwp_tcp_connect(hostport, JDWP_CLI_TIMEOUT_MS, &fd, err, sizeof err) < 0 ||
        jdwp_conn_open(&c, fd, JDWP_CLI_TIMEOUT_MS, err, sizeof err) < 0) {
        fprintf(stderr, "jdwp_cli: %s\n", err);
        printf("{\"ok\":false,\"error\":");
        cli_json_str(err);
        printf("}\n");
        return 1;
    }
    double t_attach = cli_secs() - t0;
    if (is_fetch) {
        jdwp_fetch_summary s;
        o.outdir = out;
        o.progress = cli_progress;
        o.progress_ctx = &quiet;
        rc = jdwp_fetch_bitmaps(c, &o, &s, err, sizeof err);
        jdwp_conn_close(c);
        printf("{\"ok\":%s,\"instances\":%zu,\"candidates\":%zu,\"fetched\":%zu,\"skipped\":%zu,"
               "\"skipped_recycled\":%zu,\"skipped_empty\":%zu,\"skipped_null_ptr\":%zu,\"skipped_gone\":%zu,"
               "\"failed\":%zu,\"not_attempted\":%zu,\"stopped_by_budget\":%s,\"stopped_by_time\":%s,"
               "\"stopped_by_bytes\":%s,\"lost_connection\":%s,\"classes_loaded\":%d,\"bytes\":%llu,"
               "\"seconds_attach\":%.4f,\"seconds_safe_point\":%.4f,\"seconds_first_image\":%.4f,"
               "\"seconds_total\":%.4f",
               rc == 0 ? "true" : "false", s.instances, s.candidates, s.fetched, s.skipped, s.skipped_recycled,
               s.skipped_empty, s.skipped_null_ptr, s.skipped_gone, s.failed, s.not_attempted,
               s.stopped_by_budget ? "true" : "false", s.stopped_by_time ? "true" : "false",
               s.stopped_by_bytes ? "true" : "false", s.lost_connection ? "true" : "false", s.classes_loaded,
               (unsigned long long)s.bytes, t_attach, t_attach + s.seconds_safe_point,
               s.fetched ? t_attach + s.seconds_first_image : 0.0, cli_secs() - t0);
        printf(",\"busy_waits\":%d,\"seconds_busy\":%.4f", s.hold.busy, s.hold.seconds_busy);
        if (s.hold.busy) {
            printf(",\"busy_thread\":");
            cli_json_str(s.hold.busy_thread);
            printf(",\"thread\":");
            cli_json_str(s.hold.thread);
        }
        if (s.first_failure[0]) {
            printf(",\"first_failure\":");
            cli_json_str(s.first_failure);
        }
    } else {
        rc = jdwp_gc(c, o.safe_point_ms, NULL, NULL, err, sizeof err);
        jdwp_conn_close(c);
        printf("{\"ok\":%s,\"seconds_total\":%.4f", rc == 0 ? "true" : "false", cli_secs() - t0);
    }
    if (rc < 0) {
        fprintf(stderr, "jdwp_cli: %s\n", err);
        printf(",\"error\":");
        cli_json_str(err);
    }
    printf("}\n");
    return rc < 0 ? 1 : 0;
}
