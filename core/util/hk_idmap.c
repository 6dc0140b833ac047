#include "util/hk_idmap.h"
#include "util/hk_mem.h"

#include <stdio.h>
#include <stdlib.h>

static inline size_t slot_of(uint64_t key, size_t cap)
{
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdULL;
    key ^= key >> 33;
    return (size_t)key & (cap - 1);
}

void hk_idmap_init(hk_idmap *m)
{
    m->keys = NULL;
    m->vals = NULL;
    m->cap = m->len = 0;
}
void hk_idmap_free(hk_idmap *m)
{
    free(m->keys);
    free(m->vals);
    hk_idmap_init(m);
}

static void grow(hk_idmap *m)
{
    size_t cap = m->cap ? m->cap * 2 : 64;
    uint64_t *keys = hk_xcalloc(cap, sizeof *keys);
    uint32_t *vals = hk_xrealloc(NULL, cap * sizeof *vals);
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->keys[i]) continue;
        size_t s = slot_of(m->keys[i], cap);
        while (keys[s]) s = (s + 1) & (cap - 1);
        keys[s] = m->keys[i];
        vals[s] = m->vals[i];
    }
    free(m->keys);
    free(m->vals);
    m->keys = keys;
    m->vals = vals;
    m->cap = cap;
}

uint32_t *hk_idmap_put(hk_idmap *m, uint64_t key, uint32_t init, int *inserted)
{
    if ((m->len + 1) * 4 > m->cap * 3) grow(m);
    size_t s = slot_of(key, m->cap);
    while (m->keys[s]) {
        if (m->keys[s] == key) {
            if (inserted) *inserted = 0;
            return &m->vals[s];
        }
        s = (s + 1) & (m->cap - 1);
    }
    m->keys[s] = key;
    m->vals[s] = init;
    m->len++;
    if (inserted) *inserted = 1;
    return &m->vals[s];
}

uint32_t *hk_idmap_get(const hk_idmap *m, uint64_t key)
{
    if (!m->cap || !key) return NULL;
    size_t s = slot_of(key, m->cap);
    while (m->keys[s]) {
        if (m->keys[s] == key) return &m->vals[s];
        s = (s + 1) & (m->cap - 1);
    }
    return NULL;
}

void hk_idtab_init(hk_idtab *t)
{
    hk_idmap_init(&t->map);
    t->vals = NULL;
    t->n = t->cap = 0;
}
void hk_idtab_free(hk_idtab *t)
{
    hk_idmap_free(&t->map);
    free(t->vals);
    hk_idtab_init(t);
}

void hk_idtab_set(hk_idtab *t, uint64_t key, uint64_t val)
{
    int inserted;
    uint32_t *slot = hk_idmap_put(&t->map, key, t->n, &inserted);
    if (inserted) {
        if (t->n == t->cap) {
            t->cap = t->cap ? t->cap * 2 : 256;
            t->vals = hk_xrealloc(t->vals, t->cap * sizeof *t->vals);
        }
        t->n++;
    }
    t->vals[*slot] = val;
}

int hk_idtab_get(const hk_idtab *t, uint64_t key, uint64_t *val)
{
    const uint32_t *slot = hk_idmap_get(&t->map, key);
    if (!slot) return 0;
    *val = t->vals[*slot];
    return 1;
}
