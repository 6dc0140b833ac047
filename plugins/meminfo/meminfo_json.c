/* Writes a parsed meminfo as JSON and ties parse + check + write together. */
#include "meminfo.h"
#include "meminfo_model.h"

#include <stdio.h>
#include <string.h>

static void mi_json_values(mi_json *j, const mi_table *t, const mi_row *r)
{
    mi_json_obj(j);
    for (int c = 0; c < t->ncols; c++)
        if (r->has[c]) mi_json_kint(j, t->cols[c], r->v[c]);
    mi_json_obj_end(j);
}

static void mi_json_kvs(mi_json *j, const mi_kvlist *l)
{
    mi_json_obj(j);
    for (int i = 0; i < l->n; i++) mi_json_kint(j, l->items[i].key, l->items[i].val);
    mi_json_obj_end(j);
}

static void mi_json_strs(mi_json *j, const mi_strlist *l)
{
    mi_json_arr(j);
    for (int i = 0; i < l->n; i++) mi_json_str(j, l->items[i]);
    mi_json_arr_end(j);
}

/* Every record in the output opens with its name. */
static void mi_json_named(mi_json *j, const char *name)
{
    mi_json_obj(j);
    mi_json_kstr(j, "name", name);
}

static void mi_json_opt_int(mi_json *j, const char *key, int have, int64_t v)
{
    mi_json_key(j, key);
    if (have) mi_json_int(j, v);
    else mi_json_null(j);
}

/* Which per-row strings a table's rows carry besides their name. */
enum { MI_ROW_PARENT = 1, MI_ROW_DB = 2 };

static void mi_json_rows(mi_json *j, const char *key, const mi_table *t, int fields)
{
    mi_json_karr(j, key);
    for (int i = 0; i < t->nrows; i++) {
        const mi_row *r = &t->rows[i];
        mi_json_named(j, r->name);
        if (fields & MI_ROW_PARENT) mi_json_kstr(j, "parent", r->parent);
        if (fields & MI_ROW_DB) {
            mi_json_kstr(j, "group", r->group);
            mi_json_kstr(j, "cache", r->extra);
        }
        mi_json_key(j, "values");
        mi_json_values(j, t, r);
        mi_json_obj_end(j);
    }
    mi_json_arr_end(j);
}

/* An App Summary column: every key named is always there, null when not printed. */
static void mi_json_summary(mi_json *j, const char *key, const int *keys, size_t nkeys, const int *has,
                            const int64_t *v)
{
    mi_json_key(j, key);
    mi_json_obj(j);
    for (size_t i = 0; i < nkeys; i++) mi_json_opt_int(j, mi_summary_keys[keys[i]], has[keys[i]], v[keys[i]]);
    mi_json_obj_end(j);
}

static void mi_json_head(mi_json *j, const mi_meminfo *m)
{
    mi_json_opt_int(j, "pid", m->has_pid, m->pid);
    mi_json_kstr(j, "process", m->process);
    mi_json_opt_int(j, "uptime", m->has_uptime, m->uptime);
    mi_json_opt_int(j, "realtime", m->has_realtime, m->realtime);
    mi_json_karr(j, "columns");
    for (int c = 0; c < m->table.ncols; c++) mi_json_str(j, m->table.cols[c]);
    mi_json_arr_end(j);
}

static void mi_json_assets(mi_json *j, const mi_kvlist *l)
{
    mi_json_karr(j, "assets");
    for (int i = 0; i < l->n; i++) {
        mi_json_named(j, l->items[i].key);
        mi_json_kstr(j, "size", l->items[i].text);
        mi_json_kint(j, "kb", l->items[i].val);
        mi_json_obj_end(j);
    }
    mi_json_arr_end(j);
}

static void mi_json_checks(mi_json *j, const mi_meminfo *m)
{
    mi_json_karr(j, "checks");
    for (int i = 0; i < m->nchecks; i++) {
        mi_json_named(j, m->checks[i].name);
        mi_json_key(j, "ok");
        mi_json_bool(j, m->checks[i].ok);
        mi_json_kstr(j, "detail", m->checks[i].detail);
        mi_json_obj_end(j);
    }
    mi_json_arr_end(j);
}

static void mi_meminfo_json(const mi_meminfo *m, mi_buf *out)
{
    static const int pss_keys[] = {MI_S_JAVA,          MI_S_NATIVE, MI_S_CODE,      MI_S_STACK,     MI_S_GRAPHICS,
                                   MI_S_PRIVATE_OTHER, MI_S_SYSTEM, MI_S_TOTAL_PSS, MI_S_TOTAL_RSS, MI_S_TOTAL_SWAP};
    static const int rss_keys[] = {MI_S_JAVA, MI_S_NATIVE, MI_S_CODE, MI_S_STACK, MI_S_GRAPHICS, MI_S_UNKNOWN};
    mi_json j;
    mi_json_init(&j, out);
    mi_json_obj(&j);
    mi_json_head(&j, m);
    mi_json_rows(&j, "rows", &m->table, MI_ROW_PARENT);
    mi_json_summary(&j, "summary", pss_keys, MI_N(pss_keys), m->has_pss, m->pss);
    mi_json_summary(&j, "summary_rss", rss_keys, MI_N(rss_keys), m->has_rss, m->rss);
    mi_json_key(&j, "summary_other");
    mi_json_kvs(&j, &m->summary_other);
    mi_json_key(&j, "objects");
    mi_json_kvs(&j, &m->objects);
    mi_json_key(&j, "sql");
    mi_json_kvs(&j, &m->sql);
    mi_json_rows(&j, "databases", &m->databases, MI_ROW_DB);
    mi_json_rows(&j, "native_allocations", &m->native_allocs, 0);
    mi_json_assets(&j, &m->assets);
    mi_json_key(&j, "sections");
    mi_json_obj(&j);
    for (int i = 0; i < m->nsections; i++) {
        mi_json_key(&j, m->sections[i].title);
        mi_json_strs(&j, &m->sections[i].lines);
    }
    mi_json_obj_end(&j);
    mi_json_key(&j, "unparsed");
    mi_json_strs(&j, &m->unparsed);
    mi_json_checks(&j, m);
    mi_json_key(&j, "warnings");
    mi_json_strs(&j, &m->warnings);
    mi_json_obj_end(&j);
}

int mi_parse(const char *text, size_t len, mi_buf *json_out, char *err, size_t errlen)
{
    mi_meminfo m;
    if (mi_meminfo_parse(&m, text, len, err, errlen) < 0) {
        mi_meminfo_free(&m);
        return -1;
    }
    mi_meminfo_check(&m);
    mi_buf tmp;
    mi_buf_init(&tmp);
    mi_meminfo_json(&m, &tmp);
    mi_meminfo_free(&m);
    mi_buf_put(json_out, tmp.data, tmp.len);
    mi_buf_free(&tmp);
    return 0;
}
