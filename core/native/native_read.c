/* Reading heapprofd's profiles: interned strings, mappings, frames and call stacks per packet
 * sequence (InternedData, or the ProfilePacket itself in legacy traces), and each
 * ProcessHeapSamples as a dump of its process and heap, merged across continued packets. */
#include "native/native_internal.h"
#include "trace/trace.h"
#include "util/hk_mem.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "trace.pb-c.h"

enum { SEQ_INCREMENTAL_STATE_CLEARED = 1 };
typedef Perfetto__Protos__InternedString pb_str;

const char *nr_str(hk_native_profile *p, const char *s, size_t n)
{
    p->strs = hk_grow(p->strs, &p->capstrs, p->nstrs + 1, sizeof *p->strs);
    return p->strs[p->nstrs++] = hk_xstrndup(s, n);
}

void nr_warn(hk_native_profile *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (++p->warnings <= 20) {
        hk_buf_puts(&p->notes, "warning: ");
        hk_buf_vprintf(&p->notes, fmt, ap);
        hk_buf_putc(&p->notes, '\n');
    }
    va_end(ap);
}

static void seq_clear(nr_seq *s)
{
    hk_idmap *maps[] = {&s->fn_names,    &s->map_paths, &s->build_ids, &s->src_paths,
                        &s->legacy_strs, &s->mappings,  &s->frames,    &s->stacks};
    for (size_t i = 0; i < sizeof maps / sizeof *maps; i++) {
        hk_idmap_free(maps[i]);
        hk_idmap_init(maps[i]);
    }
}

static nr_seq *seq_of(nr_reader *r, uint32_t id)
{
    for (size_t i = 0; i < r->nseqs; i++)
        if (r->seqs[i].id == id) return &r->seqs[i];
    r->seqs = hk_grow(r->seqs, &r->capseqs, r->nseqs + 1, sizeof *r->seqs);
    nr_seq *s = &r->seqs[r->nseqs++];
    memset(s, 0, sizeof *s);
    s->id = id;
    seq_clear(s);
    return s;
}

/* Interned ids may be 0 (an empty build id is interned so): keys are iid + 1. */
static void put(hk_idmap *m, uint64_t iid, uint32_t v)
{
    if (iid + 1) *hk_idmap_put(m, iid + 1, v, NULL) = v;
}

static uint32_t get(const hk_idmap *m, uint64_t iid)
{
    const uint32_t *v = hk_idmap_get(m, iid + 1);
    return v ? *v : 0;
}

static const char *str_at(const hk_native_profile *p, uint32_t v)
{
    return v ? p->strs[v - 1] : NULL;
}

static void add_strings(nr_reader *r, hk_idmap *m, pb_str *const *strs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const char *s = (const char *)strs[i]->str.data;
        nr_str(r->p, s ? s : "", strs[i]->has_str ? strs[i]->str.len : 0);
        put(m, strs[i]->has_iid ? strs[i]->iid : 0, (uint32_t)r->p->nstrs);
    }
}

/* A mapping's path: its components joined, each after a '/', as Perfetto names modules. */
static void add_mappings(nr_reader *r, nr_seq *s, Perfetto__Protos__Mapping *const *ms, size_t n, int legacy)
{
    hk_buf b;
    hk_buf_init(&b);
    for (size_t i = 0; i < n; i++) {
        const Perfetto__Protos__Mapping *m = ms[i];
        hk_buf_reset(&b);
        for (size_t k = 0; k < m->n_path_string_ids; k++) {
            const char *c = str_at(r->p, get(legacy ? &s->legacy_strs : &s->map_paths, m->path_string_ids[k]));
            hk_buf_putc(&b, '/');
            hk_buf_puts(&b, c ? c : "");
        }
        r->maps = hk_grow(r->maps, &r->capmaps, r->nmaps + 1, sizeof *r->maps);
        nr_mapping *nm = &r->maps[r->nmaps++];
        nm->path = b.len ? nr_str(r->p, (const char *)b.data, b.len) : NULL;
        nm->build_id =
            m->has_build_id ? str_at(r->p, get(legacy ? &s->legacy_strs : &s->build_ids, m->build_id)) : NULL;
        put(&s->mappings, m->has_iid ? m->iid : 0, (uint32_t)r->nmaps);
    }
    hk_buf_free(&b);
}

static void add_frames(nr_reader *r, nr_seq *s, Perfetto__Protos__Frame *const *fs, size_t n, int legacy)
{
    hk_native_profile *p = r->p;
    for (size_t i = 0; i < n; i++) {
        const Perfetto__Protos__Frame *f = fs[i];
        p->frames = hk_grow(p->frames, &p->capframes, p->nframes + 1, sizeof *p->frames);
        hk_native_frame *nf = &p->frames[p->nframes++];
        memset(nf, 0, sizeof *nf);
        if (f->has_function_name_id)
            nf->raw_name = str_at(p, get(legacy ? &s->legacy_strs : &s->fn_names, f->function_name_id));
        if (nf->raw_name && !*nf->raw_name) nf->raw_name = NULL;
        uint32_t m = f->has_mapping_id ? get(&s->mappings, f->mapping_id) : 0;
        if (m) {
            nf->module = r->maps[m - 1].path;
            nf->build_id = r->maps[m - 1].build_id;
        }
        if (f->has_source_path_iid) nf->source = str_at(p, get(&s->src_paths, f->source_path_iid));
        nf->line = f->has_line_number ? f->line_number : 0;
        nf->rel_pc = f->has_rel_pc ? f->rel_pc : 0;
        nf->function = nf->raw_name;
        put(&s->frames, f->has_iid ? f->iid : 0, (uint32_t)p->nframes);
    }
}

static void add_stacks(nr_reader *r, nr_seq *s, Perfetto__Protos__Callstack *const *cs, size_t n)
{
    hk_native_profile *p = r->p;
    for (size_t i = 0; i < n; i++) {
        const Perfetto__Protos__Callstack *c = cs[i];
        p->stacks = hk_grow(p->stacks, &p->capstacks, p->nstacks + 1, sizeof *p->stacks);
        hk_native_stack *st = &p->stacks[p->nstacks++];
        st->first = (uint32_t)p->nstack_frames;
        st->n = 0;
        for (size_t k = 0; k < c->n_frame_ids; k++) {
            uint32_t f = get(&s->frames, c->frame_ids[k]);
            if (!f) {
                nr_warn(p, "call stack %llu names frame %llu, which its sequence never interned: the frame is left out",
                        (unsigned long long)c->iid, (unsigned long long)c->frame_ids[k]);
                continue;
            }
            p->stack_frames =
                hk_grow(p->stack_frames, &p->capstack_frames, p->nstack_frames + 1, sizeof *p->stack_frames);
            p->stack_frames[p->nstack_frames++] = f - 1;
            st->n++;
        }
        put(&s->stacks, c->has_iid ? c->iid : 0, (uint32_t)p->nstacks);
    }
}

static void add_interned(nr_reader *r, nr_seq *s, const Perfetto__Protos__InternedData *d)
{
    add_strings(r, &s->fn_names, d->function_names, d->n_function_names);
    add_strings(r, &s->map_paths, d->mapping_paths, d->n_mapping_paths);
    add_strings(r, &s->build_ids, d->build_ids, d->n_build_ids);
    add_strings(r, &s->src_paths, d->source_paths, d->n_source_paths);
    add_mappings(r, s, d->mappings, d->n_mappings, 0);
    add_frames(r, s, d->frames, d->n_frames, 0);
    add_stacks(r, s, d->callstacks, d->n_callstacks);
}

/* The dump a ProcessHeapSamples adds to: the one of its process and heap the sequence's last
 * packet began when that packet said it continues, else a new one. */
static hk_native_dump *dump_for(nr_reader *r, nr_seq *s, const Perfetto__Protos__ProfilePacket__ProcessHeapSamples *ph,
                                uint64_t packet_ts)
{
    hk_native_profile *p = r->p;
    const char *heap = ph->heap_name && *ph->heap_name ? ph->heap_name : "unknown";
    int pid = ph->has_pid ? (int)ph->pid : 0;
    uint64_t ts = ph->has_timestamp ? ph->timestamp : packet_ts;
    if (s->continued)
        for (size_t i = s->open_first; i < p->ndumps; i++)
            if (p->dumps[i].pid == pid && !strcmp(p->dumps[i].heap, heap) && p->dumps[i].ts == ts) return &p->dumps[i];
    p->dumps = hk_grow(p->dumps, &p->capdumps, p->ndumps + 1, sizeof *p->dumps);
    hk_native_dump *d = &p->dumps[p->ndumps++];
    memset(d, 0, sizeof *d);
    d->pid = pid;
    d->heap = nr_str(p, heap, strlen(heap));
    d->ts = ts;
    d->start_ts = ph->has_start_timestamp ? ph->start_timestamp : 0;
    d->sampling_interval = ph->has_sampling_interval_bytes ? ph->sampling_interval_bytes : 0;
    d->from_startup = ph->has_from_startup && ph->from_startup;
    d->rejected_concurrent = ph->has_rejected_concurrent && ph->rejected_concurrent;
    d->disconnected = ph->has_disconnected && ph->disconnected;
    d->buffer_overran = ph->has_buffer_overran && ph->buffer_overran;
    d->buffer_corrupted = ph->has_buffer_corrupted && ph->buffer_corrupted;
    d->hit_guardrail = ph->has_hit_guardrail && ph->hit_guardrail;
    return d;
}

static void add_samples(nr_reader *r, nr_seq *s, hk_native_dump *d,
                        const Perfetto__Protos__ProfilePacket__ProcessHeapSamples *ph)
{
    for (size_t i = 0; i < ph->n_samples; i++) {
        const Perfetto__Protos__ProfilePacket__HeapSample *hs = ph->samples[i];
        uint32_t st = hs->has_callstack_id ? get(&s->stacks, hs->callstack_id) : 0;
        if (!st) {
            nr_warn(r->p, "a sample of pid %d names call stack %llu, which its sequence never interned: skipped",
                    d->pid, (unsigned long long)hs->callstack_id);
            continue;
        }
        d->samples = hk_grow(d->samples, &d->cap, d->n + 1, sizeof *d->samples);
        hk_native_sample *ns = &d->samples[d->n++];
        ns->stack = st - 1;
        ns->alloc_bytes = hs->self_allocated;
        ns->alloc_count = hs->alloc_count;
        ns->freed_bytes = hs->self_freed;
        ns->free_count = hs->free_count;
        ns->max_bytes = hs->self_max;
        ns->max_count = hs->self_max_count;
        if (hs->has_self_max || hs->has_self_max_count) d->at_max = 1;
    }
}

static void add_profile(nr_reader *r, nr_seq *s, const Perfetto__Protos__ProfilePacket *pp, uint64_t ts)
{
    r->p->profile_packets++;
    add_strings(r, &s->legacy_strs, pp->strings, pp->n_strings);
    add_mappings(r, s, pp->mappings, pp->n_mappings, 1);
    add_frames(r, s, pp->frames, pp->n_frames, 1);
    add_stacks(r, s, pp->callstacks, pp->n_callstacks);
    size_t first = r->p->ndumps;
    for (size_t i = 0; i < pp->n_process_dumps; i++) {
        hk_native_dump *d = dump_for(r, s, pp->process_dumps[i], ts);
        add_samples(r, s, d, pp->process_dumps[i]);
    }
    if (!s->continued) s->open_first = first;
    s->continued = pp->has_continued && pp->continued;
}

static void add_processes(hk_native_profile *p, const Perfetto__Protos__ProcessTree *pt)
{
    for (size_t i = 0; i < pt->n_processes; i++) {
        const Perfetto__Protos__ProcessTree__Process *pr = pt->processes[i];
        if (!pr->has_pid || !pr->n_cmdline || hk_native_process_name(p, pr->pid)) continue;
        p->procs = hk_grow(p->procs, &p->capprocs, p->nprocs + 1, sizeof *p->procs);
        p->procs[p->nprocs].pid = pr->pid;
        p->procs[p->nprocs].name = nr_str(p, pr->cmdline[0], strlen(pr->cmdline[0]));
        p->nprocs++;
    }
}

static int packet(void *ctx, const uint8_t *data, size_t n, char *err, size_t errlen)
{
    nr_reader *r = ctx;
    (void)err, (void)errlen;
    Perfetto__Protos__TracePacket *tp = perfetto__protos__trace_packet__unpack(NULL, n, data);
    if (!tp) {
        nr_warn(r->p, "a packet does not decode as a TracePacket: skipped");
        return 0;
    }
    uint32_t sid = tp->optional_trusted_packet_sequence_id_case ? tp->trusted_packet_sequence_id : 0;
    if (tp->process_tree) add_processes(r->p, tp->process_tree);
    if (tp->interned_data || tp->profile_packet) {
        nr_seq *s = seq_of(r, sid);
        int cleared = (tp->has_incremental_state_cleared && tp->incremental_state_cleared) ||
                      (tp->has_sequence_flags && (tp->sequence_flags & SEQ_INCREMENTAL_STATE_CLEARED));
        if (cleared) seq_clear(s);
        if (tp->interned_data) add_interned(r, s, tp->interned_data);
        if (tp->profile_packet) add_profile(r, s, tp->profile_packet, tp->has_timestamp ? tp->timestamp : 0);
    }
    if (tp->module_symbols || tp->deobfuscation_mapping) nr_symbols_add(r, tp);
    perfetto__protos__trace_packet__free_unpacked(tp, NULL);
    return 0;
}

static void walk_warn(void *ctx, const char *msg)
{
    nr_warn(((nr_reader *)ctx)->p, "%s", msg);
}

static void reader_free(nr_reader *r)
{
    for (size_t i = 0; i < r->nseqs; i++) {
        nr_seq *s = &r->seqs[i];
        hk_idmap *maps[] = {&s->fn_names,    &s->map_paths, &s->build_ids, &s->src_paths,
                            &s->legacy_strs, &s->mappings,  &s->frames,    &s->stacks};
        for (size_t k = 0; k < sizeof maps / sizeof *maps; k++) hk_idmap_free(maps[k]);
    }
    free(r->seqs);
    free(r->maps);
    free(r->syms);
    free(r->deobs);
}

int hk_native_read(const uint8_t *data, size_t n, const struct hk_map *map, hk_native_profile *p, char *err,
                   size_t errlen)
{
    memset(p, 0, sizeof *p);
    hk_buf_init(&p->notes);
    nr_reader r;
    memset(&r, 0, sizeof r);
    r.p = p;
    hk_trace_walk w = {.packet = packet, .warn = walk_warn, .ctx = &r};
    int rc = 0;
    if (!hk_trace_probe(data, n)) {
        snprintf(err, errlen, "not a Perfetto trace (its first bytes are not a trace packet)");
        rc = -1;
    }
    if (rc == 0) rc = hk_trace_walk_packets(&w, data, n, err, errlen);
    p->packets = w.packets;
    if (rc == 0) nr_name_frames(&r, map);
    reader_free(&r);
    if (rc < 0) hk_native_free(p);
    return rc;
}

const char *hk_native_process_name(const hk_native_profile *p, int pid)
{
    for (size_t i = 0; i < p->nprocs; i++)
        if (p->procs[i].pid == pid) return p->procs[i].name;
    return NULL;
}

void hk_native_free(hk_native_profile *p)
{
    for (size_t i = 0; i < p->nstrs; i++) free(p->strs[i]);
    free(p->strs);
    for (size_t i = 0; i < p->ndumps; i++) free(p->dumps[i].samples);
    free(p->dumps);
    free(p->frames);
    free(p->stack_frames);
    free(p->stacks);
    free(p->procs);
    hk_buf_free(&p->notes);
    memset(p, 0, sizeof *p);
}

/* The file, inflated when gzip'd (gzread passes plain files through), within the policy's cap
 * for compressed inputs (hk_expand_cap). */
static int read_file(const char *path, hk_buf *out, char *err, size_t errlen)
{
    gzFile gz = gzopen(path, "rb");
    struct stat st;
    if (!gz || stat(path, &st) != 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno ? errno : ENOENT));
        if (gz) gzclose(gz);
        return -1;
    }
    size_t limit = hk_expand_cap((uint64_t)st.st_size);
    int n, zerr = Z_OK;
    do {
        hk_buf_reserve(out, 1 << 20);
        size_t room = out->cap - out->len, past = limit == SIZE_MAX ? room : limit - out->len + 1; /* just past it */
        n = gzread(gz, out->data + out->len, (unsigned)(room < past ? room : past));
        if (n > 0) out->len += (size_t)n;
        if (out->len > limit && !gzdirect(gz)) {
            gzclose(gz);
            hk_expand_refused(err, errlen, path, out->len, (uint64_t)st.st_size);
            return -1;
        }
    } while (n > 0);
    const char *m = gzerror(gz, &zerr);
    gzclose(gz);
    if (n < 0 || (zerr != Z_OK && zerr != Z_BUF_ERROR)) {
        snprintf(err, errlen, "%s: cannot read it: %s", path, zerr == Z_ERRNO ? strerror(errno) : m);
        return -1;
    }
    return 0;
}

int hk_native_read_file(const char *path, const struct hk_map *map, hk_native_profile *p, char *err, size_t errlen)
{
    hk_buf data;
    hk_buf_init(&data);
    int rc = read_file(path, &data, err, errlen);
    if (rc == 0 && hk_native_read(data.data, data.len, map, p, err, errlen) < 0) {
        /* name the file in the one line */
        char what[400];
        snprintf(what, sizeof what, "%s", err);
        snprintf(err, errlen, "%s: %s", path, what);
        rc = -1;
    }
    hk_buf_free(&data);
    return rc;
}
