/* Broken on purpose: built for a future ABI 2. */
#include <stdlib.h>

#include "hprofkit.h"

HK_PLUGIN_EXPORT const uint32_t hk_plugin_abi = 2;

HK_PLUGIN_EXPORT int hk_plugin_init(const hk_host *h, hk_plugin *self, char *err, size_t errlen)
{
    abort(); /* never reached: the ABI is refused before init */
}
