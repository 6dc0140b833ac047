/* SHA-256, the project's one hash, and SHA-1 where a format demands it (leak signatures, as
 * LeakCanary computes them): OpenSSL's libcrypto through EVP (it uses the CPU's SHA
 * instructions; ~20x libmd's portable code on a 1080x1920 bitmap).  Pixel hashes of the
 * bitmaps feature and the test helpers that check them go through here. */
#ifndef HK_SHA_H
#define HK_SHA_H

#include <stddef.h>

/* The SHA-256 of n bytes at data as 64 lowercase hex digits and a NUL: 0, or -1 (hex empty)
 * when libcrypto fails (out of memory, or a FIPS-only provider without SHA-256). */
int hk_sha256_hex(const void *data, size_t n, char hex[65]);
/* The same a piece at a time, for a long hash that may be stopped between pieces:
 * hk_sha256_begin (NULL when libcrypto fails), hk_sha256_update (0, or -1), hk_sha256_end, which
 * writes the digest as hk_sha256_hex does (0, or -1 with hex empty) and frees the run; with hex
 * NULL it only frees it. */
typedef struct hk_sha256_run hk_sha256_run;
hk_sha256_run *hk_sha256_begin(void);
int hk_sha256_update(hk_sha256_run *r, const void *data, size_t n);
int hk_sha256_end(hk_sha256_run *r, char hex[65]);
/* The same with SHA-1 (40 hex digits): leak signatures are SHA-1 as LeakCanary computes them. */
int hk_sha1_hex(const void *data, size_t n, char hex[41]);

#endif
