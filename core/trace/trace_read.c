/* Reading a trace: its packets (trace_packets.c walks the framing and compressed blocks),
 * each packet decoded with protobuf-c and routed to the heap graph or embedded dump of its
 * process; then the picked process's dump as HPROF. */
#include "trace/trace_internal.h"
#include "util/hk_mem.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace.pb-c.h"
#include "hprof_dump.pb-c.h"

static struct {
    int pid;
    char *process;
    char *dump; /* N (from 1), "last" or a timestamp; NULL: the last */
} pick;

void hk_trace_select(int pid, const char *process)
{
    free(pick.process);
    pick.pid = pid;
    pick.process = process ? hk_xstrdup(process) : NULL;
}

void hk_trace_select_dump(const char *spec)
{
    free(pick.dump);
    pick.dump = spec ? hk_xstrdup(spec) : NULL;
}

void pf_warn(pf_trace *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    t->warnings++;
    if (t->warnings <= 20) {
        hk_buf_puts(&t->notes, "warning: ");
        hk_buf_vprintf(&t->notes, fmt, ap);
        hk_buf_putc(&t->notes, '\n');
    }
    va_end(ap);
}

static const char *pf_process_name(const pf_trace *t, int pid)
{
    for (size_t i = 0; i < t->nprocs; i++)
        if (t->procs[i].pid == pid) return t->procs[i].name;
    return NULL;
}

static void add_process_tree(pf_trace *t, const Perfetto__Protos__ProcessTree *pt)
{
    for (size_t i = 0; i < pt->n_processes; i++) {
        const Perfetto__Protos__ProcessTree__Process *pr = pt->processes[i];
        if (!pr->has_pid || !pr->n_cmdline || pf_process_name(t, pr->pid)) continue;
        t->procs = hk_grow(t->procs, &t->capprocs, t->nprocs + 1, sizeof *t->procs);
        t->procs[t->nprocs].pid = pr->pid;
        t->procs[t->nprocs].name = hk_xstrdup(pr->cmdline[0]);
        t->nprocs++;
    }
}

/* "0x7a001000.png" (any directory before it) -> 0x7a001000; 0 when the name has no pointer. */
static uint64_t pointer_of_name(const char *name)
{
    const char *b = strrchr(name, '/');
    b = b ? b + 1 : name;
    if (b[0] != '0' || (b[1] != 'x' && b[1] != 'X')) return 0;
    char *e;
    unsigned long long v = strtoull(b + 2, &e, 16);
    return e != b + 2 && (*e == '.' || !*e) ? v : 0;
}

static void add_hprof_chunk(pf_trace *t, uint32_t seq, uint64_t ts, const Hprofkit__HprofDump *hd)
{
    int pid = hd->has_pid ? hd->pid : 0;
    pf_embedded *e = NULL;
    for (size_t i = t->ndumps; i-- > 0;)
        if (t->dumps[i].pid == pid && t->dumps[i].seq == seq && !t->dumps[i].done) {
            e = &t->dumps[i];
            break;
        }
    uint32_t idx = hd->has_chunk_index ? hd->chunk_index : 0;
    if (!e) {
        t->dumps = hk_grow(t->dumps, &t->capdumps, t->ndumps + 1, sizeof *t->dumps);
        e = &t->dumps[t->ndumps++];
        memset(e, 0, sizeof *e);
        e->pid = pid;
        e->seq = seq;
        e->ts = ts;
    }
    if (idx != e->next_chunk) {
        e->missing += idx > e->next_chunk ? idx - e->next_chunk : 1;
        pf_warn(t, "embedded heap dump of pid %d: chunk %u follows chunk %d", pid, idx, (int)e->next_chunk - 1);
    }
    e->next_chunk = idx + 1;
    if (hd->has_hprof_data) hk_buf_append(&e->data, hd->hprof_data.data, hd->hprof_data.len);
    if (hd->has_last_chunk && hd->last_chunk) e->done = 1;
}

/* heapprofd's dumps, listed so `info` tells what else the trace holds (core/native reads them). */
static void add_profiles(pf_trace *t, const Perfetto__Protos__ProfilePacket *pp, uint64_t ts)
{
    for (size_t i = 0; i < pp->n_process_dumps; i++) {
        const Perfetto__Protos__ProfilePacket__ProcessHeapSamples *ph = pp->process_dumps[i];
        int pid = ph->has_pid ? (int)ph->pid : 0;
        const char *heap = ph->heap_name && *ph->heap_name ? ph->heap_name : "unknown";
        uint64_t at = ph->has_timestamp ? ph->timestamp : ts;
        pf_profile *p = NULL;
        for (size_t k = 0; k < t->nprofiles && !p; k++)
            if (t->profiles[k].pid == pid && t->profiles[k].ts == at && !strcmp(t->profiles[k].heap, heap))
                p = &t->profiles[k];
        if (!p) {
            t->profiles = hk_grow(t->profiles, &t->capprofiles, t->nprofiles + 1, sizeof *t->profiles);
            p = &t->profiles[t->nprofiles++];
            p->pid = pid;
            p->ts = at;
            p->heap = hk_xstrdup(heap);
            p->samples = 0;
        }
        p->samples += ph->n_samples;
    }
}

static void add_bitmap(pf_trace *t, const Hprofkit__HprofBitmap *hb)
{
    t->pngs = hk_grow(t->pngs, &t->cappngs, t->npngs + 1, sizeof *t->pngs);
    pf_png *p = &t->pngs[t->npngs++];
    memset(p, 0, sizeof *p);
    p->pid = hb->has_pid ? hb->pid : 0;
    p->name = hk_xstrdup(hb->filename ? hb->filename : "");
    p->ptr = pointer_of_name(p->name);
    if (hb->has_png_image) hk_buf_append(&p->png, hb->png_image.data, hb->png_image.len);
}

static int packet(void *ctx, const uint8_t *p, size_t n, char *err, size_t errlen)
{
    pf_trace *t = ctx;
    (void)err, (void)errlen;
    t->packets++;
    Perfetto__Protos__TracePacket *tp = perfetto__protos__trace_packet__unpack(NULL, n, p);
    if (!tp) {
        pf_warn(t, "packet %llu does not decode as a TracePacket: skipped", (unsigned long long)t->packets);
        return 0;
    }
    uint32_t seq = tp->optional_trusted_packet_sequence_id_case ? tp->trusted_packet_sequence_id : 0;
    uint64_t ts = tp->has_timestamp ? tp->timestamp : 0;
    int used = 0;
    if (tp->process_tree) {
        add_process_tree(t, tp->process_tree);
        used = 1;
    }
    if (tp->heap_graph) {
        pf_graph_add(t, seq, ts, tp->heap_graph);
        used = 1;
    }
    if (tp->profile_packet) {
        add_profiles(t, tp->profile_packet, ts);
        used = 1;
    }
    if (tp->base.n_unknown_fields) {
        /* hprofkit's own fields sit beside Perfetto's in the same packet */
        Hprofkit__HprofTracePacket *hp = hprofkit__hprof_trace_packet__unpack(NULL, n, p);
        if (hp && hp->hprof_dump) {
            add_hprof_chunk(t, seq, ts, hp->hprof_dump);
            used = 1;
        }
        if (hp && hp->hprof_bitmap) {
            add_bitmap(t, hp->hprof_bitmap);
            used = 1;
        }
        if (hp && hp->has_heap_graph_from_hprof && hp->heap_graph_from_hprof) t->from_hprof = 1;
        if (hp) hprofkit__hprof_trace_packet__free_unpacked(hp, NULL);
    }
    if (!used) t->other_packets++;
    perfetto__protos__trace_packet__free_unpacked(tp, NULL);
    return 0;
}

static void walk_warn(void *ctx, const char *msg)
{
    pf_warn(ctx, "%s", msg);
}

static int packets(pf_trace *t, const uint8_t *data, size_t n, char *err, size_t errlen)
{
    hk_trace_walk w = {.packet = packet, .warn = walk_warn, .ctx = t};
    int rc = hk_trace_walk_packets(&w, data, n, err, errlen);
    t->compressed = w.compressed;
    t->packets = w.packets;
    t->truncated_at = w.truncated_at;
    return rc;
}

static void trace_free(pf_trace *t)
{
    for (size_t i = 0; i < t->ngraphs; i++) pf_graph_free(&t->graphs[i]);
    free(t->graphs);
    for (size_t i = 0; i < t->ndumps; i++) hk_buf_free(&t->dumps[i].data);
    free(t->dumps);
    for (size_t i = 0; i < t->npngs; i++) {
        free(t->pngs[i].name);
        hk_buf_free(&t->pngs[i].png);
    }
    free(t->pngs);
    for (size_t i = 0; i < t->nprocs; i++) free(t->procs[i].name);
    free(t->procs);
    for (size_t i = 0; i < t->nprofiles; i++) free(t->profiles[i].heap);
    free(t->profiles);
    hk_buf_free(&t->notes);
}

static int matches(const pf_trace *t, int pid)
{
    if (pick.pid && pid != pick.pid) return 0;
    if (pick.process) {
        const char *name = pf_process_name(t, pid);
        if (!name) return 0;
        const char *b = strrchr(name, '/');
        if (strcmp(name, pick.process) && !(b && !strcmp(b + 1, pick.process))) return 0;
    }
    return 1;
}

/* "#2 of 3 at ts 1234, " when pid has several dumps of a kind (graphs: is_graph), else "". */
static void nth_of(const pf_trace *t, hk_buf *b, int is_graph, size_t i)
{
    int pid = is_graph ? t->graphs[i].pid : t->dumps[i].pid;
    size_t n = 0, k = 0, count = is_graph ? t->ngraphs : t->ndumps;
    for (size_t j = 0; j < count; j++)
        if ((is_graph ? t->graphs[j].pid : t->dumps[j].pid) == pid) {
            n++;
            if (j <= i) k++;
        }
    if (n > 1)
        hk_buf_printf(b, " #%zu of %zu at ts %llu", k, n,
                      (unsigned long long)(is_graph ? t->graphs[i].ts : t->dumps[i].ts));
}

static void list_name(const pf_trace *t, hk_buf *b, int pid)
{
    const char *name = pf_process_name(t, pid);
    hk_buf_printf(b, "trace dump: pid %d%s%s%s: ", pid, name ? " (" : "", name ? name : "", name ? ")" : "");
}

static void list_dumps(const pf_trace *t, hk_buf *b, int chosen_graph, int chosen_dump)
{
    for (size_t i = 0; i < t->ngraphs; i++) {
        const pf_graph *g = &t->graphs[i];
        list_name(t, b, g->pid);
        hk_buf_puts(b, "heap graph");
        nth_of(t, b, 1, i);
        hk_buf_printf(b, ", %zu objects, %zu types, %zu roots%s%s\n", g->nobjs, g->ntypes, g->nroots,
                      g->missing || !g->done ? ", incomplete" : "", (int)i == chosen_graph ? " [opened]" : "");
    }
    for (size_t i = 0; i < t->ndumps; i++) {
        const pf_embedded *e = &t->dumps[i];
        list_name(t, b, e->pid);
        hk_buf_puts(b, "embedded HPROF");
        nth_of(t, b, 0, i);
        hk_buf_printf(b, ", %zu bytes in %u chunks%s%s\n", e->data.len, e->next_chunk,
                      e->missing || !e->done ? ", incomplete" : "", (int)i == chosen_dump ? " [opened]" : "");
    }
    for (size_t i = 0; i < t->nprofiles; i++) {
        const pf_profile *p = &t->profiles[i];
        list_name(t, b, p->pid);
        hk_buf_printf(b, "native heap profile (heap %s) at ts %llu, %zu call stacks (see `hprofkit native`)\n", p->heap,
                      (unsigned long long)p->ts, p->samples);
    }
}

static void take_images(pf_trace *t, int pid, hk_trace_result *res)
{
    for (size_t i = 0; i < t->npngs; i++) {
        pf_png *p = &t->pngs[i];
        if (p->pid != pid) continue;
        if (!p->ptr) {
            pf_warn(t, "bitmap image '%s' names no native pointer (0x....png): not joined to a Bitmap", p->name);
            continue;
        }
        res->images = hk_xrealloc(res->images, (res->nimages + 1) * sizeof *res->images);
        res->images[res->nimages].ptr = p->ptr;
        res->images[res->nimages].png = p->png;
        hk_buf_init(&p->png);
        res->nimages++;
    }
}

/* Of the dumps of pid (graphs, or embedded), the one --trace-dump names (default: the last); -1
 * when it names none. */
static int choose_in_time(const pf_trace *t, int is_graph, int pid)
{
    size_t count = is_graph ? t->ngraphs : t->ndumps, n = 0;
    int last = -1;
    char *end = NULL;
    unsigned long long want = pick.dump && strcmp(pick.dump, "last") ? strtoull(pick.dump, &end, 10) : 0;
    for (size_t j = 0; j < count; j++) {
        int jp = is_graph ? t->graphs[j].pid : t->dumps[j].pid;
        uint64_t ts = is_graph ? t->graphs[j].ts : t->dumps[j].ts;
        if (jp != pid) continue;
        n++;
        last = (int)j;
        if (want && (n == want || ts == want)) return (int)j;
    }
    return want ? -1 : last;
}

/* The dump the options pick: a heap graph (*g) or an embedded HPROF (*e) of the first process
 * that matches, the one in time --trace-dump names. */
static int pick_dump(pf_trace *t, const char *path, int *g, int *e, char *err, size_t errlen)
{
    *g = *e = -1;
    int found = 0;
    for (size_t i = 0; i < t->ngraphs && !found; i++)
        if ((found = matches(t, t->graphs[i].pid))) *g = choose_in_time(t, 1, t->graphs[i].pid);
    for (size_t i = 0; i < t->ndumps && !found; i++)
        if ((found = matches(t, t->dumps[i].pid))) *e = choose_in_time(t, 0, t->dumps[i].pid);
    if (*g >= 0 || *e >= 0) return 0;
    hk_buf l;
    hk_buf_init(&l);
    list_dumps(t, &l, -1, -1);
    if (!t->ngraphs && !t->ndumps && t->truncated_at != SIZE_MAX)
        snprintf(
            err, errlen,
            "%s: a Perfetto trace cut short at byte %zu (%llu whole packets before it), with no Java heap graph or "
            "embedded heap dump in what is there: the file is truncated, copy it again",
            path, t->truncated_at, (unsigned long long)t->packets);
    else if (!t->ngraphs && !t->ndumps)
        snprintf(err, errlen,
                 "%s: a Perfetto trace (%llu packets) without a Java heap graph or an embedded heap dump%s", path,
                 (unsigned long long)t->packets,
                 t->nprofiles ? " (it holds a native heap profile: see `hprofkit native`)" : "");
    else
        snprintf(err, errlen,
                 "%s: no dump in the trace matches --trace-pid/--trace-process/--trace-dump; it holds:\n%s", path,
                 hk_buf_cstr(&l));
    if (l.len && err[strlen(err) - 1] == '\n') err[strlen(err) - 1] = 0;
    hk_buf_free(&l);
    return -1;
}

/* The HPROF of the picked dump: a heap graph converted, an embedded dump's bytes taken over. */
static int picked_hprof(pf_trace *t, int g, int e, const char *path, hk_trace_result *res, char *err, size_t errlen)
{
    if (g >= 0) {
        pf_graph *gr = &t->graphs[g];
        if (gr->missing || !gr->done)
            pf_warn(t,
                    "heap graph of pid %d is incomplete (%u packets missing%s): objects and references may be missing",
                    gr->pid, gr->missing, gr->done ? "" : ", no last packet");
        return pf_graph_to_hprof(t, gr, &res->hprof, &res->hprof_fd, err, errlen);
    }
    pf_embedded *em = &t->dumps[e];
    if (em->missing || !em->done) {
        snprintf(err, errlen, "%s: the embedded heap dump of pid %d is incomplete: %s", path, em->pid,
                 em->missing ? "a chunk is missing (chunk_index skips)" : "its last chunk (last_chunk) never came");
        return -1;
    }
    res->hprof = em->data;
    hk_buf_init(&em->data);
    take_images(t, em->pid, res);
    return 0;
}

/* The "key: value" lines `info` shows under source. */
static char *source_lines(const pf_trace *t, int g, int e, const hk_buf *listing, const hk_trace_result *res)
{
    hk_buf s;
    hk_buf_init(&s);
    int pid = g >= 0 ? t->graphs[g].pid : t->dumps[e].pid;
    const char *name = pf_process_name(t, pid);
    hk_buf_printf(&s, "source: Perfetto trace, %s\n", g >= 0 ? "Java heap graph" : "embedded HPROF");
    hk_buf_printf(&s, "trace pid: %d\n", pid);
    if (name) hk_buf_printf(&s, "trace process: %s\n", name);
    hk_buf_printf(&s, "trace packets: %llu (%llu of other kinds, ignored; %llu compressed blocks)\n",
                  (unsigned long long)t->packets, (unsigned long long)t->other_packets,
                  (unsigned long long)t->compressed);
    hk_buf_append(&s, listing->data, listing->len);
    if (g >= 0) {
        /* ApplicationInfo.longVersionCode, when the graph recorded it */
        const pf_graph *gr = &t->graphs[g];
        for (size_t k = 0; k < gr->nvals; k++)
            if (gr->vals[k].kind == PF_V_VERSION_CODE) {
                hk_buf_printf(&s, "app version code: %lld\n", (long long)gr->vals[k].v);
                break;
            }
        hk_buf_puts(
            &s, "absent: primitive field values and array contents (a heap graph holds references and sizes only)\n");
    }
    if (g >= 0 && !t->from_hprof)
        hk_buf_puts(&s, "roots: objects of the zygote and boot-image heaps count as VM-internal roots (as in ART's "
                        "GC and Perfetto)\n");
    if (e >= 0) hk_buf_printf(&s, "trace images: %zu\n", res->nimages);
    if (t->warnings) hk_buf_printf(&s, "trace warnings: %u\n", t->warnings);
    hk_buf_append(&s, t->notes.data, t->notes.len);
    char *r = hk_xstrdup(hk_buf_cstr(&s));
    hk_buf_free(&s);
    return r;
}

int hk_trace_to_hprof(const uint8_t *data, size_t n, const char *path, hk_trace_result *res, char *err, size_t errlen)
{
    memset(res, 0, sizeof *res);
    res->hprof_fd = -1;
    pf_trace t;
    memset(&t, 0, sizeof t);
    int g = -1, e = -1;
    int rc = packets(&t, data, n, err, errlen);
    if (rc == 0) rc = pick_dump(&t, path, &g, &e, err, errlen);
    hk_buf listing;
    hk_buf_init(&listing);
    if (rc == 0) list_dumps(&t, &listing, g, e);
    if (rc == 0) rc = picked_hprof(&t, g, e, path, res, err, errlen);
    if (rc == 0) res->source = source_lines(&t, g, e, &listing, res);
    else hk_trace_result_free(res);
    hk_buf_free(&listing);
    trace_free(&t);
    return rc;
}

void hk_trace_result_free(hk_trace_result *res)
{
    hk_buf_free(&res->hprof);
    if (res->hprof_fd >= 0) close(res->hprof_fd);
    free(res->source);
    for (size_t i = 0; i < res->nimages; i++) hk_buf_free(&res->images[i].png);
    free(res->images);
    memset(res, 0, sizeof *res);
    res->hprof_fd = -1;
}
