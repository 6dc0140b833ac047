/* Built as an ABI 1.0 plugin was: its symbols by hand (no hk_plugin_sdk_minor) and a bitmap
 * source struct that ends at close.  The int after it stands where 1.1 put priority: the host
 * must read only the 1.0 part and give the source the default priority, never this 999. */
#include "hprofkit.h"

HK_PLUGIN_EXPORT const uint32_t hk_plugin_abi = HK_ABI_VERSION;

typedef struct source_v10 {
    const char *name;
    const char *help;
    int keyed_by_pointer;
    int (*open)(void *ud, hk_dump *dump, void **state, char *err, size_t errlen);
    int (*image)(void *state, const hk_bitmap *bm, hk_buf *out, char *note, size_t notelen);
    void (*close)(void *state);
    int not_priority;
} source_v10;

static int no_image(void *state, const hk_bitmap *bm, hk_buf *out, char *note, size_t notelen)
{
    return HK_IMAGE_NONE;
}

static const source_v10 source = {
    .name = "abi10-source", .help = "an ABI 1.0 source", .image = no_image, .not_priority = 999};

HK_PLUGIN_EXPORT int hk_plugin_init(const hk_host *h, hk_plugin *self, char *err, size_t errlen)
{
    h->describe(self, "abi10", "1.0", "a plugin built against ABI 1.0");
    return h->register_bitmap_source(self, (const hk_bitmap_source *)&source, NULL);
}
