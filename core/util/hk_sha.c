#include "util/hk_sha.h"

#include <openssl/evp.h>

static int digest_hex(const EVP_MD *md_type, unsigned want, const void *data, size_t n, char *hex)
{
    static const char digits[] = "0123456789abcdef";
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    hex[0] = '\0';
    if (EVP_Digest(data, n, md, &len, md_type, NULL) != 1 || len != want) return -1;
    for (unsigned i = 0; i < want; i++) {
        hex[2 * i] = digits[md[i] >> 4];
        hex[2 * i + 1] = digits[md[i] & 15];
    }
    hex[2 * want] = '\0';
    return 0;
}

int hk_sha256_hex(const void *data, size_t n, char hex[65])
{
    return digest_hex(EVP_sha256(), 32, data, n, hex);
}

int hk_sha1_hex(const void *data, size_t n, char hex[41])
{
    return digest_hex(EVP_sha1(), 20, data, n, hex);
}
