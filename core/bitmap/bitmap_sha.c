#include "bitmap/bitmap_sha.h"
#include "bitmap/bitmap_config.h"

#include <stdio.h>
#include <stdlib.h>

#if HK_BITMAP_LIBCRYPTO
#include <openssl/evp.h>

struct hk_bm_sha { EVP_MD_CTX *ctx; };

hk_bm_sha *hk_bm_sha_new(void)
{
    hk_bm_sha *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->ctx = EVP_MD_CTX_new();
    if (!s->ctx || EVP_DigestInit_ex(s->ctx, EVP_sha256(), NULL) != 1) { EVP_MD_CTX_free(s->ctx); free(s); return NULL; }
    return s;
}

void hk_bm_sha_update(hk_bm_sha *s, const void *data, size_t n) { EVP_DigestUpdate(s->ctx, data, n); }

void hk_bm_sha_final_hex(hk_bm_sha *s, char hex[65])
{
    unsigned char md[32];
    unsigned int len = 0;
    EVP_DigestFinal_ex(s->ctx, md, &len);
    for (int i = 0; i < 32; i++) snprintf(hex + 2 * i, 3, "%02x", md[i]);
    EVP_DigestInit_ex(s->ctx, EVP_sha256(), NULL);
}

void hk_bm_sha_free(hk_bm_sha *s)
{
    if (!s) return;
    EVP_MD_CTX_free(s->ctx);
    free(s);
}

const char *hk_bm_sha_impl(void) { return "libcrypto"; }

#else
#include <sha2.h>

struct hk_bm_sha { SHA2_CTX ctx; };

hk_bm_sha *hk_bm_sha_new(void)
{
    hk_bm_sha *s = calloc(1, sizeof *s);
    if (s) SHA256Init(&s->ctx);
    return s;
}

void hk_bm_sha_update(hk_bm_sha *s, const void *data, size_t n) { SHA256Update(&s->ctx, data, n); }

void hk_bm_sha_final_hex(hk_bm_sha *s, char hex[65])
{
    SHA256End(&s->ctx, hex);
    SHA256Init(&s->ctx);
}

void hk_bm_sha_free(hk_bm_sha *s) { free(s); }

const char *hk_bm_sha_impl(void) { return "libmd"; }
#endif
