/* Broken on purpose: registers a function and a fetcher, then fails; the host must roll
 * both back and report the reason. */
#include <stdio.h>

#include "hprofkit.h"

static int never(void *ud, int argc, const char *const *argv, const size_t *argl, hk_buf *out, char *err, size_t errlen)
{
    return -1;
}

static int no_fetch(void *ud, const hk_fetch_request *req, hk_fetch_result *res, char *err, size_t errlen)
{
    return -1;
}

static const hk_fetcher fetcher = {.name = "failinit-fetch", .help = "never", .fetch_bitmaps = no_fetch};

static int failinit_init(hk_plugin *self, char *err, size_t errlen)
{
    hk_api->describe(self, "failinit", "0.1", "fails on purpose");
    hk_api->register_function(self, "ghost", "must not survive a failed init", never, NULL);
    hk_api->register_fetcher(self, &fetcher, NULL);
    const char *need = hk_api->config(self, "needs");
    snprintf(err, errlen, "setting `needs` is %s; this plugin always fails", need ? need : "missing");
    return -1;
}

HK_PLUGIN_INIT(failinit_init)
