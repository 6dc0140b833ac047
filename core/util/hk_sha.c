#include "util/hk_sha.h"

#include <openssl/evp.h>

static void to_hex(const unsigned char *md, unsigned n, char *hex)
{
    static const char digits[] = "0123456789abcdef";
    for (unsigned i = 0; i < n; i++) {
        hex[2 * i] = digits[md[i] >> 4];
        hex[2 * i + 1] = digits[md[i] & 15];
    }
    hex[2 * n] = '\0';
}

static int digest_hex(const EVP_MD *md_type, unsigned want, const void *data, size_t n, char *hex)
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    hex[0] = '\0';
    if (EVP_Digest(data, n, md, &len, md_type, NULL) != 1 || len != want) return -1;
    to_hex(md, want, hex);
    return 0;
}

hk_sha256_run *hk_sha256_begin(void)
{
    EVP_MD_CTX *c = EVP_MD_CTX_new();
    if (c && EVP_DigestInit_ex(c, EVP_sha256(), NULL) != 1) {
        EVP_MD_CTX_free(c);
        c = NULL;
    }
    return (hk_sha256_run *)c;
}

int hk_sha256_update(hk_sha256_run *r, const void *data, size_t n)
{
    return r && EVP_DigestUpdate((EVP_MD_CTX *)r, data, n) == 1 ? 0 : -1;
}

int hk_sha256_end(hk_sha256_run *r, char hex[65])
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    int rc = -1;
    if (hex) {
        hex[0] = '\0';
        if (r && EVP_DigestFinal_ex((EVP_MD_CTX *)r, md, &len) == 1 && len == 32) {
            to_hex(md, 32, hex);
            rc = 0;
        }
    }
    EVP_MD_CTX_free((EVP_MD_CTX *)r);
    return rc;
}

int hk_sha256_hex(const void *data, size_t n, char hex[65])
{
    return digest_hex(EVP_sha256(), 32, data, n, hex);
}

int hk_sha1_hex(const void *data, size_t n, char hex[41])
{
    return digest_hex(EVP_sha1(), 20, data, n, hex);
}
