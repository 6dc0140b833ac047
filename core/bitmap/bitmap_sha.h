/* SHA-256 for pixel hashes: OpenSSL's libcrypto when the build found it (it uses the CPU's
 * SHA instructions, ~20x libmd's portable code on a 1080x1920 bitmap), else libmd. */
#ifndef HK_BITMAP_SHA_H
#define HK_BITMAP_SHA_H

#include <stddef.h>

typedef struct hk_bm_sha hk_bm_sha;

hk_bm_sha *hk_bm_sha_new(void);
void hk_bm_sha_update(hk_bm_sha *s, const void *data, size_t n);
/* Writes 64 hex digits and a NUL, and resets s for the next hash. */
void hk_bm_sha_final_hex(hk_bm_sha *s, char hex[65]);
void hk_bm_sha_free(hk_bm_sha *s);
const char *hk_bm_sha_impl(void);

#endif
