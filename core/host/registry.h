/*
 * The one registry of what extensions provide: plugin functions, bitmap sources and fetchers
 * from C plugins; queries, renderers, watchers, leak finders, inspectors, reference matchers
 * and bitmap sources from Lua scripts.  Every entry has a kind, a name, help and its owner
 * (the plugin's .so or the script's path); a C entry also carries what the plugin handed over,
 * a Lua entry's value stays in Lua (keyed by the same name).
 *
 * Two rules, so a reader of `hprofkit plugins` knows what runs:
 *  - Registration is open only while an owner's init or load runs (hk_registry_begin ..
 *    hk_registry_end); a call at any other time is refused with a message saying so.
 *  - A name is unique per kind.  The one exception is layering: scripts load in layers (the
 *    built-in scripts, then each user directory), and a script of a later layer may replace a
 *    script entry of an earlier layer (a user's `info` query over the built-in one); the add
 *    then returns 1 with a note naming both.  Any other second registration is an error naming
 *    both owners.  Inspectors and reference matchers are lists, not names: their entries are
 *    labelled by the class they judge and may repeat.
 */
#ifndef HK_REGISTRY_H
#define HK_REGISTRY_H

#include <stddef.h>

#include "hprofkit.h"

enum hk_reg_kind {
    HK_REG_FUNCTION,
    HK_REG_BITMAP_SOURCE,
    HK_REG_FETCHER,
    HK_REG_QUERY,
    HK_REG_RENDERER,
    HK_REG_WATCHER,
    HK_REG_LEAK_FINDER,
    HK_REG_INSPECTOR,
    HK_REG_REFERENCE_MATCHER,
    HK_REG_NKINDS
};

typedef struct hk_reg_entry {
    enum hk_reg_kind kind;
    char *name; /* "example.hello" for a function */
    char *help;
    char *owner;              /* the plugin's .so path or the script's path */
    char *owner_label;        /* how messages name it: "plugin example (/x/example.so)" */
    struct hk_plugin *plugin; /* the C plugin that registered it; NULL for a script */
    int layer;                /* 0 for plugins; scripts: the load layer */
    void *ud;
    int priority; /* bitmap sources: asked highest first */
    union {       /* a C entry: host-owned copies (name and help point at the strings above) */
        hk_function_fn fn;
        hk_bitmap_source src;
        hk_fetcher fetcher;
    } as;
} hk_reg_entry;

typedef struct hk_registry hk_registry;

hk_registry *hk_registry_new(void);
void hk_registry_free(hk_registry *r);

/* The kind's name in messages ("bitmap source") and in Lua listings ("bitmap_source"). */
const char *hk_reg_kind_label(enum hk_reg_kind kind);
const char *hk_reg_kind_key(enum hk_reg_kind kind);

/* Opens registration for one owner: a plugin's init (plugin set, layer 0) or a script's load
 * (plugin NULL, layer >= 1).  owner_label names it in messages ("plugin example (/x/example.so)",
 * "script /x/q.lua"). */
void hk_registry_begin(hk_registry *r, const char *owner, const char *owner_label, struct hk_plugin *plugin, int layer);
void hk_registry_end(hk_registry *r);
/* Adds an entry for the open owner, who is the plugin asking (NULL: a script); *out (when given) is the entry to fill in (as, ud,
 * priority).  Returns 0, 1 when it replaced a script entry of an earlier layer (err holds the
 * note), or -1 with err (registration closed, or the name is taken). */
int hk_registry_add(hk_registry *r, const struct hk_plugin *who, enum hk_reg_kind kind, const char *name,
                    const char *help, hk_reg_entry **out, char *err, size_t errlen);
/* Drops everything one plugin registered (its init failed). */
void hk_registry_drop_plugin(hk_registry *r, const struct hk_plugin *plugin);

const hk_reg_entry *hk_registry_find(const hk_registry *r, enum hk_reg_kind kind, const char *name);
/* The entries of one kind, in registration order. */
size_t hk_registry_list(const hk_registry *r, enum hk_reg_kind kind, const hk_reg_entry *const **out);

#endif
