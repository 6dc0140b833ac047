/* The one registry of plugin and script entries: kinds, unique names, owners, the open window. */
#include "host/registry.h"
#include "util/hk_mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct reg_list {
    hk_reg_entry **v;
    size_t n;
} reg_list;

struct hk_registry {
    reg_list kinds[HK_REG_NKINDS];
    /* the owner whose init or load runs now; NULL when registration is closed */
    char *owner, *owner_label;
    struct hk_plugin *plugin;
    int layer;
};

static const char *const labels[HK_REG_NKINDS] = {
    "function",    "bitmap source", "fetcher",           "query", "renderer", "watcher",
    "leak finder", "inspector",     "reference matcher",
};
static const char *const keys[HK_REG_NKINDS] = {
    "function",    "bitmap_source", "fetcher",           "query", "renderer", "watcher",
    "leak_finder", "inspector",     "reference_matcher",
};

const char *hk_reg_kind_label(enum hk_reg_kind kind)
{
    return kind < HK_REG_NKINDS ? labels[kind] : "?";
}

const char *hk_reg_kind_key(enum hk_reg_kind kind)
{
    return kind < HK_REG_NKINDS ? keys[kind] : "?";
}

/* Inspectors and matchers are ordered lists: several may judge the same class. */
static int named_kind(enum hk_reg_kind kind)
{
    return kind != HK_REG_INSPECTOR && kind != HK_REG_REFERENCE_MATCHER;
}

hk_registry *hk_registry_new(void)
{
    return hk_xcalloc(1, sizeof(hk_registry));
}

static void free_entry(hk_reg_entry *e)
{
    free(e->name);
    free(e->help);
    free(e->owner);
    free(e->owner_label);
    free(e);
}

void hk_registry_free(hk_registry *r)
{
    if (!r) return;
    for (int k = 0; k < HK_REG_NKINDS; k++) {
        for (size_t i = 0; i < r->kinds[k].n; i++) free_entry(r->kinds[k].v[i]);
        free(r->kinds[k].v);
    }
    free(r->owner);
    free(r->owner_label);
    free(r);
}

void hk_registry_begin(hk_registry *r, const char *owner, const char *owner_label, struct hk_plugin *plugin, int layer)
{
    hk_registry_end(r);
    r->owner = hk_xstrdup(owner);
    r->owner_label = hk_xstrdup(owner_label);
    r->plugin = plugin;
    r->layer = layer;
}

void hk_registry_end(hk_registry *r)
{
    free(r->owner);
    free(r->owner_label);
    r->owner = r->owner_label = NULL;
    r->plugin = NULL;
}

static hk_reg_entry *find(const hk_registry *r, enum hk_reg_kind kind, const char *name)
{
    const reg_list *l = &r->kinds[kind];
    for (size_t i = 0; i < l->n; i++)
        if (!strcmp(l->v[i]->name, name)) return l->v[i];
    return NULL;
}

/* A name taken by an earlier script layer gives way (the new entry keeps the old one's place,
 * so list order stays stable); anything else is refused naming both owners. */
static int taken(hk_registry *r, hk_reg_entry *old, const char *name, char *err, size_t errlen)
{
    const char *what = labels[old->kind];
    if (!r->plugin && !old->plugin && old->layer < r->layer) {
        snprintf(err, errlen, "%s '%s' from %s replaces the one from %s", what, name, r->owner, old->owner);
        return 1;
    }
    if (old->plugin == r->plugin && !strcmp(old->owner, r->owner))
        snprintf(err, errlen, "%s '%s': %s registers it twice", what, name, r->owner_label);
    else
        snprintf(err, errlen, "%s '%s' from %s: already registered by %s", what, name, r->owner_label,
                 old->owner_label);
    return -1;
}

int hk_registry_add(hk_registry *r, const struct hk_plugin *who, enum hk_reg_kind kind, const char *name,
                    const char *help, hk_reg_entry **out, char *err, size_t errlen)
{
    /* open for this caller alone: a plugin called from a loading script may not register */
    if (!r->owner || who != r->plugin) {
        snprintf(err, errlen,
                 "%s '%s': registration is closed (register while a plugin's init runs or at the top level "
                 "of a script, as it loads)",
                 hk_reg_kind_label(kind), name);
        return -1;
    }
    hk_reg_entry *e = named_kind(kind) ? find(r, kind, name) : NULL;
    int rc = 0;
    if (e) {
        rc = taken(r, e, name, err, errlen);
        if (rc < 0) return -1;
        free(e->help);
        free(e->owner);
        free(e->owner_label);
        memset(&e->as, 0, sizeof e->as);
        e->ud = NULL;
        e->priority = 0;
    } else {
        e = hk_xcalloc(1, sizeof *e);
        e->kind = kind;
        e->name = hk_xstrdup(name);
        reg_list *l = &r->kinds[kind];
        l->v = hk_xrealloc(l->v, (l->n + 1) * sizeof *l->v);
        l->v[l->n++] = e;
    }
    e->help = hk_xstrdup(help ? help : "");
    e->owner = hk_xstrdup(r->owner);
    e->owner_label = hk_xstrdup(r->owner_label);
    e->plugin = r->plugin;
    e->layer = r->layer;
    if (out) *out = e;
    return rc;
}

void hk_registry_drop_plugin(hk_registry *r, const struct hk_plugin *plugin)
{
    for (int k = 0; k < HK_REG_NKINDS; k++) {
        reg_list *l = &r->kinds[k];
        size_t kept = 0;
        for (size_t i = 0; i < l->n; i++) {
            if (l->v[i]->plugin == plugin) free_entry(l->v[i]);
            else l->v[kept++] = l->v[i];
        }
        l->n = kept;
    }
}

const hk_reg_entry *hk_registry_find(const hk_registry *r, enum hk_reg_kind kind, const char *name)
{
    return kind < HK_REG_NKINDS && name ? find(r, kind, name) : NULL;
}

size_t hk_registry_list(const hk_registry *r, enum hk_reg_kind kind, const hk_reg_entry *const **out)
{
    *out = (const hk_reg_entry *const *)r->kinds[kind].v;
    return r->kinds[kind].n;
}
