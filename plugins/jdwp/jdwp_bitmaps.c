/* The live bitmap fetch (API 26-34): enumerate android.graphics.Bitmap instances, and for each
 * drawable one, largest first, have the app run compress(PNG, 100, new ByteArrayOutputStream())
 * on an event-stopped thread, read the byte[] back, and write it beside the dump. */
#include "jdwp_bitmaps.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define BITMAP_SIG   "Landroid/graphics/Bitmap;"
#define FORMAT_SIG   "Landroid/graphics/Bitmap$CompressFormat;"
#define BAOS_SIG     "Ljava/io/ByteArrayOutputStream;"
#define COMPRESS_SIG "(Landroid/graphics/Bitmap$CompressFormat;ILjava/io/OutputStream;)Z"
/* A single compressed image larger than this is refused (a 4K RGBA PNG is ~40 MB worst case). */
#define JDWP_MAX_IMAGE ((size_t)256 << 20)

enum { F_PTR, F_WIDTH, F_HEIGHT, F_RECYCLED, F_COUNT };

typedef struct jdwp_bitmap {
    uint64_t obj, ptr;
    int32_t width, height;
} jdwp_bitmap;

/* What compress needs, resolved once on the event thread. */
typedef struct jdwp_compress_kit {
    uint64_t thread, bitmap_class, compress, png, baos_class, baos_init, to_byte_array;
} jdwp_compress_kit;

static double jdwp_secs(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Writes data atomically to dir/name: in a host, through the host's writer (a file without a
 * name until it is whole, so even SIGKILL leaves nothing); alone (jdwp_cli), temp file + rename. */
static int jdwp_write_file_atomic(const char *dir, const char *name, const uint8_t *data, size_t len, char *err,
                                  size_t errlen)
{
    char tmp[4096], dst[4096];
    if (snprintf(dst, sizeof dst, "%s/%s", dir, name) >= (int)sizeof dst ||
        snprintf(tmp, sizeof tmp, "%s/.%s.tmpXXXXXX", dir, name) >= (int)sizeof tmp) {
        snprintf(err, errlen, "output path too long: %s/%s", dir, name);
        return -1;
    }
    if (hk_api) return hk_api->write_file_atomic(dst, data, len, err, errlen);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        snprintf(err, errlen, "cannot create a file in %s: %s", dir, strerror(errno));
        return -1;
    }
    size_t off = 0;
    while (off < len) {
        ssize_t w = write(fd, data + off, len - off);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            snprintf(err, errlen, "cannot write %s: %s", tmp, w < 0 ? strerror(errno) : "short write");
            close(fd);
            unlink(tmp);
            return -1;
        }
        off += (size_t)w;
    }
    fchmod(fd, 0644);
    if (close(fd) < 0 || rename(tmp, dst) < 0) {
        snprintf(err, errlen, "cannot write %s: %s", dst, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}

static int jdwp_bitmap_cmp(const void *a, const void *b)
{
    const jdwp_bitmap *x = a, *y = b;
    int64_t px = (int64_t)x->width * x->height, py = (int64_t)y->width * y->height;
    if (px != py) return px > py ? -1 : 1;
    return x->ptr < y->ptr ? -1 : x->ptr > y->ptr;
}

/* Lists Bitmaps with their fields (VM running: nothing here needs a thread), keeps the
 * drawable ones sorted largest first. */
static int jdwp_list_bitmaps(jdwp_conn *c, uint64_t cls, jdwp_bitmap **out, jdwp_fetch_summary *s, char *err,
                             size_t errlen)
{
    static const char *const names[F_COUNT] = {"mNativePtr", "mWidth", "mHeight", "mRecycled"};
    uint64_t fields[F_COUNT];
    if (jdwp_fields_find(c, cls, names, F_COUNT, fields, err, errlen) < 0) return -1;
    uint64_t *objs;
    size_t n;
    if (jdwp_instances(c, cls, &objs, &n, err, errlen) < 0) return -1;
    s->instances = n;
    jdwp_value *vals = hk_alloc((n ? n * F_COUNT : 1) * sizeof *vals);
    jdwp_bitmap *bm = hk_alloc((n ? n : 1) * sizeof *bm);
    if (jdwp_get_values_many(c, objs, n, fields, F_COUNT, vals, err, errlen) < 0) {
        hk_free(objs);
        hk_free(vals);
        hk_free(bm);
        return -1;
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const jdwp_value *v = vals + i * F_COUNT;
        if (!v[F_PTR].tag) {
            s->skipped_gone++;
            continue;
        }
        if (v[F_RECYCLED].v) {
            s->skipped_recycled++;
            continue;
        }
        int32_t w = (int32_t)(uint32_t)v[F_WIDTH].v, h = (int32_t)(uint32_t)v[F_HEIGHT].v;
        if (w <= 0 || h <= 0) {
            s->skipped_empty++;
            continue;
        }
        if (!v[F_PTR].v) {
            s->skipped_null_ptr++;
            continue;
        }
        bm[k++] = (jdwp_bitmap){.obj = objs[i], .ptr = v[F_PTR].v, .width = w, .height = h};
    }
    s->skipped = s->skipped_gone + s->skipped_recycled + s->skipped_empty + s->skipped_null_ptr;
    qsort(bm, k, sizeof *bm, jdwp_bitmap_cmp);
    s->candidates = k;
    hk_free(objs);
    hk_free(vals);
    *out = bm;
    return 0;
}

static int jdwp_resolve_kit(jdwp_conn *c, jdwp_compress_kit *kit, jdwp_fetch_summary *s, char *err, size_t errlen)
{
    char e[300];
    if (jdwp_method_find(c, kit->bitmap_class, "compress", COMPRESS_SIG, &kit->compress, e, sizeof e) < 0) {
        snprintf(err, errlen, "Bitmap.compress(CompressFormat, int, OutputStream) is missing in the app: %s", e);
        return -1;
    }
    uint64_t loader, fmt;
    int loaded;
    if (jdwp_class_loader(c, kit->bitmap_class, &loader, err, errlen) < 0) return -1;
    if (jdwp_class_load(c, kit->thread, FORMAT_SIG, loader, &fmt, &loaded, err, errlen) < 0) return -1;
    s->classes_loaded += loaded;
    static const char *const png_name[1] = {"PNG"};
    uint64_t png_field;
    jdwp_value png;
    if (jdwp_fields_find(c, fmt, png_name, 1, &png_field, err, errlen) < 0 ||
        jdwp_static_value(c, fmt, png_field, &png, err, errlen) < 0)
        return -1;
    if (!png.v) {
        snprintf(err, errlen, "Bitmap.CompressFormat.PNG is null in the app");
        return -1;
    }
    kit->png = png.v;
    if (jdwp_class_load(c, kit->thread, BAOS_SIG, loader, &kit->baos_class, &loaded, err, errlen) < 0) return -1;
    s->classes_loaded += loaded;
    if (jdwp_method_find(c, kit->baos_class, "<init>", "()V", &kit->baos_init, err, errlen) < 0 ||
        jdwp_method_find(c, kit->baos_class, "toByteArray", "()[B", &kit->to_byte_array, err, errlen) < 0)
        return -1;
    return 0;
}

/* One bitmap: new stream, compress, toByteArray, read. *png malloc'd on success. *over_budget
 * set (and nothing read) when the image would pass the byte budget. */
static int jdwp_compress_one(jdwp_conn *c, const jdwp_compress_kit *kit, const jdwp_bitmap *b, int timeout_ms,
                             uint64_t bytes_left, int *over_budget, uint8_t **png, size_t *len, char *err,
                             size_t errlen)
{
    *png = NULL;
    *over_budget = 0;
    uint64_t stream = 0, arr = 0;
    int rc = -1;
    if (jdwp_new_instance(c, kit->baos_class, kit->thread, kit->baos_init, NULL, 0, &stream, err, errlen) < 0)
        return -1;
    if (jdwp_disable_gc(c, stream, err, errlen) < 0) return -1;
    jdwp_value args[3] = {{'L', kit->png}, {'I', 100}, {'L', stream}};
    jdwp_invoke_result res;
    if (jdwp_invoke_method(c, b->obj, kit->thread, kit->bitmap_class, kit->compress, args, 3, timeout_ms, &res, err,
                           errlen) < 0)
        goto out;
    if (!res.ret.v) {
        snprintf(err, errlen, "Bitmap.compress returned false");
        goto out;
    }
    if (jdwp_invoke_method(c, stream, kit->thread, kit->baos_class, kit->to_byte_array, NULL, 0, -1, &res, err,
                           errlen) < 0)
        goto out;
    arr = res.ret.v;
    if (!arr) {
        snprintf(err, errlen, "ByteArrayOutputStream.toByteArray returned null");
        goto out;
    }
    if (jdwp_disable_gc(c, arr, err, errlen) < 0) {
        arr = 0;
        goto out;
    }
    uint32_t n;
    if (jdwp_array_length(c, arr, &n, err, errlen) < 0) goto out;
    if (n > bytes_left) {
        *over_budget = 1;
        rc = 0;
        goto out;
    }
    if (n > JDWP_MAX_IMAGE) {
        snprintf(err, errlen, "a %u-byte PNG is over the %zu-byte limit for one image", n, JDWP_MAX_IMAGE);
        goto out;
    }
    rc = jdwp_byte_array_read(c, arr, n, png, err, errlen);
    *len = n;
    if (rc == 0 && (*len < 24 || memcmp(*png, "\x89PNG\r\n\x1a\n", 8) != 0)) {
        snprintf(err, errlen, "Bitmap.compress wrote something that is not a PNG");
        hk_free(*png);
        *png = NULL;
        rc = -1;
    }
out:
    jdwp_enable_gc(c, arr);
    jdwp_enable_gc(c, stream);
    return rc;
}

/* One fetch: its connection, options, summary and what the phases hand on. */
typedef struct jdwp_fetch_run {
    jdwp_conn *c;
    const jdwp_fetch_opts *o;
    jdwp_fetch_summary *s;
    jdwp_compress_kit kit;
    jdwp_bitmap *bm; /* the candidates, in fetch order */
    double t0, th;   /* call start, app held */
    double budget_s;
    uint64_t budget_b;
} jdwp_fetch_run;

/* Before the app is held: the output folder, and the drawable bitmaps (the VM runs meanwhile). */
static int jdwp_fetch_list(jdwp_fetch_run *run, char *err, size_t errlen)
{
    if (mkdir(run->o->outdir, 0755) < 0 && errno != EEXIST) {
        snprintf(err, errlen, "cannot create %s: %s", run->o->outdir, strerror(errno));
        return -1;
    }
    int can;
    if (jdwp_can_list_instances(run->c, &can, err, errlen) < 0) return -1;
    if (!can) {
        snprintf(err, errlen,
                 "this VM cannot list the instances of a class (JDWP canGetInstanceInfo is off); "
                 "live bitmaps need Android 8 (API 26) or later");
        return -1;
    }
    if (jdwp_class_find(run->c, BITMAP_SIG, &run->kit.bitmap_class, err, errlen) < 0) return -1;
    if (!run->kit.bitmap_class) {
        snprintf(err, errlen, "android.graphics.Bitmap was never loaded in this process: it has no bitmaps");
        return -1;
    }
    return jdwp_list_bitmaps(run->c, run->kit.bitmap_class, &run->bm, run->s, err, errlen);
}

/* A bitmap that failed: a timeout or a lost connection ends the fetch (-1 with err), any other
 * failure is counted and the fetch goes on. */
static int jdwp_fetch_failed(jdwp_fetch_run *run, size_t i, const char *e, char *err, size_t errlen)
{
    jdwp_fetch_summary *s = run->s;
    uint64_t ptr = run->bm[i].ptr;
    s->failed++;
    if (jdwp_last_error(run->c) == JDWP_ERR_TIMEOUT) {
        /* The app is still inside that call: further invokes on its thread would all fail. */
        snprintf(err, errlen,
                 "the app did not finish with bitmap 0x%" PRIx64 " in time (%.200s); stopped "
                 "after %zu images, which are kept",
                 ptr, e, s->fetched);
    } else if (jdwp_conn_dead(run->c)) {
        s->lost_connection = 1;
        snprintf(err, errlen,
                 "connection to the app lost after %zu of %zu bitmaps (%s); the %zu images "
                 "fetched so far are kept",
                 i, s->candidates, e, s->fetched);
    } else {
        if (s->failed == 1) snprintf(s->first_failure, sizeof s->first_failure, "0x%" PRIx64 ": %.200s", ptr, e);
        return 0;
    }
    s->not_attempted = s->candidates - i - 1;
    return -1;
}

/* Writes image i beside the dump; a disk problem will not get better on the next bitmap, so a
 * failure ends the fetch. */
static int jdwp_fetch_keep(jdwp_fetch_run *run, size_t i, uint8_t *png, size_t len, char *err, size_t errlen)
{
    jdwp_fetch_summary *s = run->s;
    char name[40];
    snprintf(name, sizeof name, "0x%" PRIx64 ".png", run->bm[i].ptr);
    int r = jdwp_write_file_atomic(run->o->outdir, name, png, len, err, errlen);
    hk_free(png);
    if (r < 0) {
        s->not_attempted = s->candidates - i;
        return -1;
    }
    s->fetched++;
    s->bytes += len;
    if (s->fetched == 1) s->seconds_first_image = jdwp_secs() - run->t0;
    return 0;
}

enum { JDWP_STEP_NEXT, JDWP_STEP_BUDGET, JDWP_STEP_FAIL };

/* Bitmap i, with the app held: compress, read, write, report progress. */
static int jdwp_fetch_step(jdwp_fetch_run *run, size_t i, char *err, size_t errlen)
{
    jdwp_fetch_summary *s = run->s;
    double left = run->budget_s - (jdwp_secs() - run->th);
    if (left <= 0) {
        s->stopped_by_time = 1;
        return JDWP_STEP_BUDGET;
    }
    if (s->bytes >= run->budget_b) {
        s->stopped_by_bytes = 1;
        return JDWP_STEP_BUDGET;
    }
    uint8_t *png;
    size_t len;
    int over;
    char e[300];
    /* compress may outlive the budget; give it the rest of the budget plus a grace. */
    int tmo = (int)(left * 1000) + 30000;
    int r = jdwp_compress_one(run->c, &run->kit, &run->bm[i], tmo, run->budget_b - s->bytes, &over, &png, &len, e,
                              sizeof e);
    if (r == 0 && over) {
        s->stopped_by_bytes = 1;
        return JDWP_STEP_BUDGET;
    }
    int kept = r == 0 ? jdwp_fetch_keep(run, i, png, len, err, errlen) : jdwp_fetch_failed(run, i, e, err, errlen);
    if (kept < 0) return JDWP_STEP_FAIL;
    if (run->o->progress) {
        jdwp_fetch_progress p = {.k = i + 1,
                                 .n = s->candidates,
                                 .ptr = run->bm[i].ptr,
                                 .ok = r == 0,
                                 .bytes = s->bytes,
                                 .seconds_left = run->budget_s - (jdwp_secs() - run->th)};
        run->o->progress(run->o->progress_ctx, &p);
    }
    return JDWP_STEP_NEXT;
}

/* With the app held: the candidates in order until done, a budget, or a failure that ends it. */
static int jdwp_fetch_all(jdwp_fetch_run *run, char *err, size_t errlen)
{
    jdwp_fetch_summary *s = run->s;
    int step = JDWP_STEP_NEXT;
    for (size_t i = 0; i < s->candidates && step == JDWP_STEP_NEXT; i++) step = jdwp_fetch_step(run, i, err, errlen);
    if (step == JDWP_STEP_FAIL) return -1;
    s->stopped_by_budget = s->stopped_by_time || s->stopped_by_bytes;
    if (s->stopped_by_budget) s->not_attempted = s->candidates - s->fetched - s->failed;
    if (s->failed && !s->fetched) {
        /* Nothing that was tried came back: a fetch of nothing is a failure, not a result. */
        snprintf(err, errlen, "none of the %zu bitmaps tried could be fetched; the first failure: %s", s->failed,
                 s->first_failure);
        return -1;
    }
    return 0;
}

int jdwp_fetch_bitmaps(jdwp_conn *c, const jdwp_fetch_opts *o, jdwp_fetch_summary *s, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    jdwp_fetch_run run = {.c = c, .o = o, .s = s, .t0 = jdwp_secs()};
    run.budget_s = o->budget_seconds > 0 ? o->budget_seconds : JDWP_BUDGET_SECONDS;
    run.budget_b = o->budget_bytes ? o->budget_bytes : JDWP_BUDGET_BYTES;
    int rc = -1, held = 0;
    if (jdwp_fetch_list(&run, err, errlen) < 0) goto done;
    if (s->candidates == 0) {
        rc = 0;
        goto done;
    }
    if (jdwp_hold_thread(c, o->safe_point_ms, o->nudge, o->nudge_ctx, &s->hold, &run.kit.thread, err, errlen) < 0)
        goto done;
    held = 1;
    run.th = jdwp_secs();
    s->seconds_safe_point = run.th - run.t0;
    if (jdwp_resolve_kit(c, &run.kit, s, err, errlen) < 0) goto done;
    rc = jdwp_fetch_all(&run, err, errlen);
done:
    if (held && !jdwp_conn_dead(c)) {
        char e[200];
        if (jdwp_vm_resume(c, e, sizeof e) < 0 && rc == 0) {
            snprintf(err, errlen, "%s", e);
            rc = -1;
        }
    }
    hk_free(run.bm);
    s->seconds_total = jdwp_secs() - run.t0;
    return rc;
}
