/* An open-addressing hash map from 64-bit ids to 32-bit values: classes, strings and
 * counters are looked up by id during the index pass. */
#ifndef HK_IDMAP_H
#define HK_IDMAP_H
#include <stddef.h>
#include <stdint.h>

typedef struct hk_idmap {
    uint64_t *keys; /* 0 marks an empty slot: id 0 is null in HPROF and never stored */
    uint32_t *vals;
    size_t cap, len;
} hk_idmap;

void hk_idmap_init(hk_idmap *m);
void hk_idmap_free(hk_idmap *m);
/* Returns a pointer to the value for key, inserting it with init when absent. */
uint32_t *hk_idmap_put(hk_idmap *m, uint64_t key, uint32_t init, int *inserted);
/* Returns a pointer to the value, or NULL. */
uint32_t *hk_idmap_get(const hk_idmap *m, uint64_t key);

/* An id -> 64-bit value table (string and record offsets), on top of hk_idmap. */
typedef struct hk_idtab {
    hk_idmap map;
    uint64_t *vals;
    uint32_t n, cap;
} hk_idtab;

void hk_idtab_init(hk_idtab *t);
void hk_idtab_free(hk_idtab *t);
void hk_idtab_set(hk_idtab *t, uint64_t key, uint64_t val);
/* 1 and *val when present, else 0 */
int hk_idtab_get(const hk_idtab *t, uint64_t key, uint64_t *val);
#endif
