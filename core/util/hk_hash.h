/* A fast non-cryptographic hash of bytes, for tables that confirm a match by comparing the
 * bytes themselves (duplicate values, names).  What a file or a fact is keyed by outside the
 * process is SHA-256 (hk_sha.h). */
#ifndef HK_HASH_H
#define HK_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline uint64_t hk_hash_mix(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return h;
}

static inline uint64_t hk_hash_bytes(const void *data, size_t n, uint64_t seed)
{
    const uint8_t *p = data;
    uint64_t h = seed ^ (n * 0x9e3779b97f4a7c15ULL);
    size_t k = 0;
    for (; k + 8 <= n; k += 8) {
        uint64_t w;
        memcpy(&w, p + k, 8);
        h = (h ^ hk_hash_mix(w)) * 0x9e3779b97f4a7c15ULL;
    }
    uint64_t tail = 0;
    memcpy(&tail, p + k, n - k);
    return hk_hash_mix(h ^ hk_hash_mix(tail ^ (uint64_t)(n - k)));
}

#endif
