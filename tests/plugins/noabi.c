/* Broken on purpose: an init but no hk_plugin_abi, so the host must refuse to call it. */
#include <stdlib.h>

#include "hprofkit.h"

HK_PLUGIN_EXPORT int hk_plugin_init(const hk_host *h, hk_plugin *self, char *err, size_t errlen)
{
    abort(); /* never reached: the ABI symbol is checked first */
}
