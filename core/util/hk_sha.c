#include "util/hk_sha.h"

#include <openssl/evp.h>

int hk_sha256_hex(const void *data, size_t n, char hex[65])
{
    static const char digits[] = "0123456789abcdef";
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    hex[0] = '\0';
    if (EVP_Digest(data, n, md, &len, EVP_sha256(), NULL) != 1 || len != 32) return -1;
    for (unsigned i = 0; i < 32; i++) {
        hex[2 * i] = digits[md[i] >> 4];
        hex[2 * i + 1] = digits[md[i] & 15];
    }
    hex[64] = '\0';
    return 0;
}
