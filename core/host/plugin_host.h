/*
 * The plugin host: reads plugins.ini files, dlopens each enabled plugin, checks its ABI,
 * runs its init with the hk_host table, and keeps the registries of what every plugin
 * provides (functions, bitmap sources, fetchers) in the one registry (registry.h).
 *
 * A plugin that fails (missing file, not a plugin, wrong ABI, init error) is recorded with
 * status HK_PLUGIN_ERROR and a one-line reason naming it; every other plugin still loads.
 *
 *     hk_plugins *ps = hk_plugins_new();
 *     hk_plugins_add_ini(ps, builtin_ini, plugin_dir, 1, err, sizeof err);   // then --plugins, env
 *     hk_plugins_add_env(ps, plugin_dir, err, sizeof err);                    // HPROFKIT_PLUGINS
 *     hk_plugins_load(ps);
 *     for (size_t i = 0; i < hk_plugins_count(ps); i++) ... hk_plugins_at(ps, i)->error ...
 *     hk_plugins_free(ps);
 */
#ifndef HK_PLUGIN_HOST_H
#define HK_PLUGIN_HOST_H

#include <stddef.h>

#include "hprofkit.h"
#include "host/registry.h"
#include "util/hk_buf.h"

typedef struct hk_plugins hk_plugins;

enum hk_plugin_status { HK_PLUGIN_PENDING = 0, HK_PLUGIN_OK, HK_PLUGIN_ERROR, HK_PLUGIN_DISABLED };

/* What the host knows of one plugin (one section of a plugins.ini). */
typedef struct hk_plugin_info {
    const char *name;    /* the section name; describe() may not rename it */
    const char *version; /* from describe(), "" when the plugin did not say */
    const char *summary;
    const char *path; /* the .so loaded, or the path(s) tried */
    const char *ini;  /* the plugins.ini that last set this section */
    enum hk_plugin_status status;
    const char *error;     /* why it failed ("" when ok): names the plugin and the reason */
    const hk_plugin *self; /* what its registry entries name as their plugin */
} hk_plugin_info;

hk_plugins *hk_plugins_new(void);
/* Frees the host's state.  Loaded plugins stay mapped (they have no fini, and memory they
 * keep in their globals must stay reachable); failed ones were closed at load. */
void hk_plugins_free(hk_plugins *ps);

/* Reads one plugins.ini.  Sections merge by name with earlier files: a later file can
 * disable a plugin or change its settings.  A relative `path` resolves against the ini's
 * directory, then plugin_dir, then plugin_dir/NAME/ (the build-tree layout).  A missing
 * file is an error only when required.  Returns 0 or -1 with err (the file is unreadable or
 * has a syntax error; the error is also kept in hk_plugins_errors). */
int hk_plugins_add_ini(hk_plugins *ps, const char *ini_path, const char *plugin_dir, int required, char *err,
                       size_t errlen);
/* Every file named by HPROFKIT_PLUGINS (colon-separated), each required. */
int hk_plugins_add_env(hk_plugins *ps, const char *plugin_dir, char *err, size_t errlen);
/* Loads every enabled plugin not yet loaded; returns how many failed. */
int hk_plugins_load(hk_plugins *ps);

/* Plugins, in ini order. */
size_t hk_plugins_count(const hk_plugins *ps);
const hk_plugin_info *hk_plugins_at(const hk_plugins *ps, size_t i);
/* Problems not tied to one loaded plugin (an unreadable ini) and every plugin error, one
 * line each, for the CLI to print as warnings. */
size_t hk_plugins_errors(const hk_plugins *ps, const char *const **lines);

/* The one registry: every plugin's entries (and the scripts', once the Lua host joins it). */
hk_registry *hk_plugins_registry(hk_plugins *ps);
/* The plugin's section name: what prefixes its functions and names it in messages. */
const char *hk_plugin_name(const hk_plugin *p);

/* Calls a plugin function by full name ("example.hello"); an error is prefixed
 * "plugin NAME: FUNC: ". */
int hk_plugins_call(hk_plugins *ps, const char *full_name, int argc, const char *const *argv, const size_t *argl,
                    hk_buf *out, char *err, size_t errlen);

/* The plugins' bitmap sources and fetchers, each beside its user data, in registration order.
 * The arrays stay valid until the next call. */
size_t hk_plugins_bitmap_sources(hk_plugins *ps, const hk_bitmap_source ***srcs, void ***uds);
size_t hk_plugins_fetchers(hk_plugins *ps, const hk_fetcher ***fs, void ***uds);
/* The fetcher named name, or the first one when name is NULL; NULL when none. */
const hk_fetcher *hk_plugins_fetcher(hk_plugins *ps, const char *name, void **ud);

/* The host table handed to every plugin (host_table.c). */
const hk_host *hk_host_table(void);

#endif
