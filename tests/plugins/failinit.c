/* Broken on purpose: registers a function and a fetcher, then fails; the host must roll
 * both back and report the reason. */
#include <stdio.h>

#include "hprofkit.h"

HK_PLUGIN_EXPORT const uint32_t hk_plugin_abi = HK_ABI_VERSION;

static int never(void *ud, int argc, const char *const *argv, const size_t *argl, hk_buf *out, char *err, size_t errlen)
{
    return -1;
}

static int no_fetch(void *ud, const hk_fetch_request *req, hk_fetch_result *res, char *err, size_t errlen)
{
    return -1;
}

static const hk_fetcher fetcher = {.name = "failinit-fetch", .help = "never", .fetch_bitmaps = no_fetch};

HK_PLUGIN_EXPORT int hk_plugin_init(const hk_host *h, hk_plugin *self, char *err, size_t errlen)
{
    h->describe(self, "failinit", "0.1", "fails on purpose");
    h->register_function(self, "ghost", "must not survive a failed init", never, NULL);
    h->register_fetcher(self, &fetcher, NULL);
    const char *need = h->config(self, "needs");
    snprintf(err, errlen, "setting `needs` is %s; this plugin always fails", need ? need : "missing");
    return -1;
}
