/* diff_notes_check BASE DUMP: the heap diff's per-object state (hkd_obj: kind, class, null
 * slots, array lengths, then the matching) is the same whether the graph's reference pass
 * noted it or the matcher read it from the records (the references built before the diff),
 * and the kinds and object array lengths are the dump's own (hk_obj_kind, hk_array_length).
 * Prints "same N M" (objects per side) or what differs; exit 1 on a difference. */
#include "diff/diff_internal.h"
#include "graph/graph.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static hk_dump *open_dump(const char *path)
{
    char err[512];
    hk_dump *d = hk_dump_open(path, NULL, NULL, err, sizeof err);
    if (!d) {
        fprintf(stderr, "diff_notes_check: %s\n", err);
        exit(2);
    }
    return d;
}

static hk_diff *diff(hk_dump *a, hk_dump *b)
{
    char err[512];
    hk_diff *df = hk_diff_new(a, b, err, sizeof err);
    if (!df) {
        fprintf(stderr, "diff_notes_check: %s\n", err);
        exit(2);
    }
    return df;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: diff_notes_check BASE DUMP\n");
        return 2;
    }
    hk_dump *a1 = open_dump(argv[1]), *b1 = open_dump(argv[2]);
    hk_dump *a2 = open_dump(argv[1]), *b2 = open_dump(argv[2]);
    char err[512];
    if (hk_graph_ensure(a2, HK_GRAPH_REFS, err, sizeof err) || hk_graph_ensure(b2, HK_GRAPH_REFS, err, sizeof err)) {
        fprintf(stderr, "diff_notes_check: %s\n", err);
        return 2;
    }
    hk_diff *noted = diff(a1, b1), *read = diff(a2, b2);
    int bad = 0;
    for (int s = 0; s < 2; s++) {
        uint32_t n = hk_view(noted->s[s].d)->nobjects;
        for (uint32_t i = 0; i < n && bad < 10; i++) {
            const hkd_obj *x = &noted->s[s].o[i], *y = &read->s[s].o[i];
            int kind = hkd_kind(&noted->s[s], i);
            uint32_t len = kind == HK_KIND_OBJ_ARRAY ? hkg_array_note_len(x->refbits) : HK_NONE;
            if (kind != hk_obj_kind(noted->s[s].d, i) || (len != HK_NONE && len != hk_array_length(noted->s[s].d, i))) {
                printf("side %d object %u: kind %d, noted length %u\n", s, i, kind, len);
                bad++;
                continue;
            }
            if (!memcmp(x, y, sizeof *x)) continue;
            printf("side %d object %u: noted %08x %08x %08x %08x, read %08x %08x %08x %08x\n", s, i, x->match, x->via,
                   x->info, x->refbits, y->match, y->via, y->info, y->refbits);
            bad++;
        }
    }
    if (!bad) printf("same %u %u\n", hk_view(a1)->nobjects, hk_view(b1)->nobjects);
    hk_diff_free(noted);
    hk_diff_free(read);
    hk_dump_close(a1);
    hk_dump_close(b1);
    hk_dump_close(a2);
    hk_dump_close(b2);
    return bad ? 1 : 0;
}
