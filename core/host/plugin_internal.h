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
    uint32_t sdk_minor; /* hk_plugin_sdk_minor of the plugin (0: before the symbol existed) */
    int in_init;        /* its init runs now: errors wait for the CLI's list after loading */
};

/* A flat view over the plugins' entries of one kind, in the shape the bitmap and fetch code
 * takes (the structs and their user data side by side); rebuilt on each request. */
typedef struct hk_reg_view {
    const void **items;
    void **uds;
    size_t n;
} hk_reg_view;

struct hk_plugins {
    struct hk_plugin **plugins;
    size_t nplugins;
    char **errors;
    size_t nerrors;
    hk_registry *reg; /* what every plugin (and, through the Lua host, every script) registered */
    hk_reg_view src_view, fetcher_view;
};

/* Registration, called through the host table. */
int hk_plugin_describe(hk_plugin *self, const char *name, const char *version, const char *summary);
int hk_plugin_register_function(hk_plugin *self, const char *name, const char *help, hk_function_fn fn, void *ud);
int hk_plugin_register_bitmap_source(hk_plugin *self, const hk_bitmap_source *src, void *ud);
int hk_plugin_register_fetcher(hk_plugin *self, const hk_fetcher *f, void *ud);
const char *hk_plugin_config(hk_plugin *self, const char *key);
int hk_plugin_config_bool(hk_plugin *self, const char *key, int def, int *out, char *err, size_t errlen);
int hk_plugin_config_number(hk_plugin *self, const char *key, double def, double *out, char *err, size_t errlen);

/* Device members of the host table (host_device.c). */
int hk_host_device_shell(const char *serial, const char *cmd, hk_buf *out, int *exit_code, char *err, size_t errlen);
int hk_host_device_open(const char *serial, const char *service, int *fd, char *err, size_t errlen);
int hk_host_device_dump_heap(const char *serial, const char *process, int gc, int bitmaps, const char *local_path,
                             char *err, size_t errlen);

#endif
