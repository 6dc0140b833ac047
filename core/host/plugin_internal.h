/* The plugin host's own structures, shared by plugin_host.c and host_table.c only. */
#ifndef HK_PLUGIN_INTERNAL_H
#define HK_PLUGIN_INTERNAL_H

#include "host/plugin_host.h"

struct hk_plugin {
    hk_plugins *ps;
    hk_plugin_info info; /* public view; its strings are the members below */
    char *name, *version, *summary, *path, *ini, *error;
    char *path_raw;             /* `path` as written in the ini */
    char *ini_dir, *plugin_dir; /* where a relative path is looked up */
    int enabled;
    enum hk_plugin_status status;
    char **keys, **vals; /* the plugin's own settings */
    size_t nconf;
    void *dl;
    /* what it registered */
    hk_function_reg **funcs;
    size_t nfuncs;
    hk_bitmap_source_reg **srcs;
    size_t nsrcs;
    hk_fetcher_reg **fetchers;
    size_t nfetchers;
};

struct hk_plugins {
    struct hk_plugin **plugins;
    size_t nplugins;
    char **errors;
    size_t nerrors;
    /* flat views over every plugin's registrations, rebuilt when stale */
    int stale;
    const hk_function_reg **all_funcs;
    size_t nall_funcs;
    const hk_bitmap_source **src_view;
    void **src_uds;
    size_t nsrc_view;
    const hk_fetcher **fetcher_view;
    void **fetcher_uds;
    size_t nfetcher_view;
};

/* Registration, called through the host table. */
int hk_plugin_describe(hk_plugin *self, const char *name, const char *version, const char *summary);
int hk_plugin_register_function(hk_plugin *self, const char *name, const char *help, hk_function_fn fn, void *ud);
int hk_plugin_register_bitmap_source(hk_plugin *self, const hk_bitmap_source *src, void *ud);
int hk_plugin_register_fetcher(hk_plugin *self, const hk_fetcher *f, void *ud);
const char *hk_plugin_config(hk_plugin *self, const char *key);

/* Device members of the host table (host_device.c). */
int hk_host_device_shell(const char *serial, const char *cmd, hk_buf *out, int *exit_code, char *err, size_t errlen);
int hk_host_device_open(const char *serial, const char *service, int *fd, char *err, size_t errlen);
int hk_host_device_dump_heap(const char *serial, const char *process, int gc, int bitmaps, const char *local_path,
                             char *err, size_t errlen);

#endif
