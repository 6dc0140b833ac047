/* What the floors above read of a dump beyond hprof_view.h: its path and origin, its roots,
 * heaps and counters, without the representation. */
#include "hprof/hprof_internal.h"
#include "util/hk_mem.h"

const char *hk_dump_path(const hk_dump *d)
{
    return d->path;
}

const char *hk_dump_format(const hk_dump *d)
{
    return d->format;
}

uint64_t hk_dump_timestamp_ms(const hk_dump *d)
{
    return d->timestamp_ms;
}

const hk_map *hk_dump_map(const hk_dump *d)
{
    return d->map;
}

const char *hk_dump_source(const hk_dump *d)
{
    return d->source;
}

uint32_t hk_dump_object_count(const hk_dump *d)
{
    return d->view.nobjects;
}

const hk_root *hk_dump_roots(const hk_dump *d, uint32_t *n)
{
    *n = d->view.nroots;
    return d->view.roots;
}

const hk_dump_image *hk_dump_images(const hk_dump *d, size_t *n)
{
    *n = d->nimages;
    return d->images;
}

uint32_t hk_dump_heap_count(const hk_dump *d)
{
    return d->nheaps;
}

hk_tally hk_class_tally(const hk_dump *d, uint32_t c)
{
    return (hk_tally){d->class_counts + (size_t)c * HK_MAX_HEAPS, d->class_bytes + (size_t)c * HK_MAX_HEAPS};
}

hk_tally hk_prim_tally(const hk_dump *d, int type)
{
    return (hk_tally){d->prim_counts[type], d->prim_bytes[type]};
}

hk_tally hk_class_object_tally(const hk_dump *d)
{
    return (hk_tally){d->class_obj_counts, d->class_obj_bytes};
}

const uint32_t *hk_class_lists(const hk_dump *d, const uint32_t **start)
{
    *start = d->by_class_start;
    return d->by_class;
}

void hk_class_lists_drop(hk_dump *d)
{
    free(d->by_class);
    free(d->by_class_start);
    d->by_class = d->by_class_start = NULL;
}

int hk_class_lists_adopt(hk_dump *d, uint32_t *start, uint32_t *list)
{
    if (d->by_class) return -1;
    d->by_class_start = start;
    d->by_class = list;
    return 0;
}

void hk_dump_release(const hk_dump *d, const void *p, size_t len)
{
    if (d->mapped == 1) hk_release(p, 0, len);
}
