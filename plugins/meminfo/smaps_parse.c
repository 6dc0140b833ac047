/* Rebuilds meminfo's categories from /proc/PID/smaps: every mapping is
 * classified by its name with the rules of frameworks/base
 * core/jni/android_os_Debug.cpp (load_maps), summed per category and
 * sub-category, and the Unknown (and Other mmap) mappings are broken down
 * by name, largest Pss first, because "Unknown" is where questions start. */
#include "meminfo.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    SM_NATIVE,
    SM_DALVIK,
    SM_DALVIK_OTHER,
    SM_STACK,
    SM_CURSOR,
    SM_ASHMEM,
    SM_GL_DEV,
    SM_UNKNOWN_DEV,
    SM_SO,
    SM_JAR,
    SM_APK,
    SM_TTF,
    SM_DEX,
    SM_OAT,
    SM_ART,
    SM_UNKNOWN_MAP,
    SM_UNKNOWN,
    /* sub-categories */
    SM_D_NORMAL,
    SM_D_LARGE,
    SM_D_ZYGOTE,
    SM_D_NONMOVING,
    SM_DO_LINEARALLOC,
    SM_DO_ACCOUNTING,
    SM_DO_ZYGOTE_JIT,
    SM_DO_APP_JIT,
    SM_DO_COMPILER_METADATA,
    SM_DO_INDIRECT_REF,
    SM_DEX_BOOT_VDEX,
    SM_DEX_APP_DEX,
    SM_DEX_APP_VDEX,
    SM_ART_APP,
    SM_ART_BOOT,
    SM_N,
    SM_NONE = -1
};

static const struct {
    const char *name;
    int parent;
} sm_cat[SM_N] = {
    [SM_NATIVE] = {"Native Heap", SM_NONE},
    [SM_DALVIK] = {"Dalvik Heap", SM_NONE},
    [SM_DALVIK_OTHER] = {"Dalvik Other", SM_NONE},
    [SM_STACK] = {"Stack", SM_NONE},
    [SM_CURSOR] = {"Cursor", SM_NONE},
    [SM_ASHMEM] = {"Ashmem", SM_NONE},
    [SM_GL_DEV] = {"Gfx dev", SM_NONE},
    [SM_UNKNOWN_DEV] = {"Other dev", SM_NONE},
    [SM_SO] = {".so mmap", SM_NONE},
    [SM_JAR] = {".jar mmap", SM_NONE},
    [SM_APK] = {".apk mmap", SM_NONE},
    [SM_TTF] = {".ttf mmap", SM_NONE},
    [SM_DEX] = {".dex mmap", SM_NONE},
    [SM_OAT] = {".oat mmap", SM_NONE},
    [SM_ART] = {".art mmap", SM_NONE},
    [SM_UNKNOWN_MAP] = {"Other mmap", SM_NONE},
    [SM_UNKNOWN] = {"Unknown", SM_NONE},
    [SM_D_NORMAL] = {".Heap", SM_DALVIK},
    [SM_D_LARGE] = {".LOS", SM_DALVIK},
    [SM_D_ZYGOTE] = {".Zygote", SM_DALVIK},
    [SM_D_NONMOVING] = {".NonMoving", SM_DALVIK},
    [SM_DO_LINEARALLOC] = {".LinearAlloc", SM_DALVIK_OTHER},
    [SM_DO_ACCOUNTING] = {".GC", SM_DALVIK_OTHER},
    [SM_DO_ZYGOTE_JIT] = {".ZygoteJIT", SM_DALVIK_OTHER},
    [SM_DO_APP_JIT] = {".AppJIT", SM_DALVIK_OTHER},
    [SM_DO_COMPILER_METADATA] = {".CompilerMetadata", SM_DALVIK_OTHER},
    [SM_DO_INDIRECT_REF] = {".IndirectRef", SM_DALVIK_OTHER},
    [SM_DEX_BOOT_VDEX] = {".Boot vdex", SM_DEX},
    [SM_DEX_APP_DEX] = {".App dex", SM_DEX},
    [SM_DEX_APP_VDEX] = {".App vdex", SM_DEX},
    [SM_ART_APP] = {".App art", SM_ART},
    [SM_ART_BOOT] = {".Boot art", SM_ART},
};

enum { ST_PSS, ST_RSS, ST_PC, ST_PD, ST_SC, ST_SD, ST_SWAP, ST_SWAP_PSS, ST_N };
static const char *const sm_field_json[ST_N] = {
    "pss", "rss", "private_clean", "private_dirty", "shared_clean", "shared_dirty", "swap", "swap_pss",
};
/* smaps spellings; the seed's copy also shows "Shared Clean" with a blank. */
static const char *const sm_field_smaps[ST_N] = {
    "Pss", "Rss", "Private_Clean", "Private_Dirty", "Shared_Clean", "Shared_Dirty", "Swap", "SwapPss",
};

typedef struct sm_stats {
    int64_t v[ST_N];
    int64_t mappings;
} sm_stats;

typedef struct sm_named {
    const char *name; /* points into the input copy */
    sm_stats st;
} sm_named;

static int sm_starts(const char *s, const char *p)
{
    return !strncmp(s, p, strlen(p));
}

static int sm_ends(const char *s, const char *p)
{
    size_t a = strlen(s), b = strlen(p);
    return a >= b && !strcmp(s + a - b, p);
}

static int sm_boot(const char *name)
{
    return strstr(name, "@boot") || strstr(name, "/boot") || strstr(name, "/apex");
}

/* The classification: order matters, the first matching rule wins. */
static void sm_classify(const char *name, int prev_heap, int contiguous, int *heap, int *sub)
{
    *heap = SM_UNKNOWN;
    *sub = SM_NONE;
    size_t n = strlen(name);
    if (sm_starts(name, "[heap]") || sm_starts(name, "[anon:libc_malloc]") || sm_starts(name, "[anon:scudo:") ||
        sm_starts(name, "[anon:GWP-ASan"))
        *heap = SM_NATIVE;
    else if (sm_starts(name, "[stack") || sm_starts(name, "[anon:stack_and_tls:")) *heap = SM_STACK;
    else if (sm_ends(name, ".so")) *heap = SM_SO;
    else if (sm_ends(name, ".jar")) *heap = SM_JAR;
    else if (sm_ends(name, ".apk")) *heap = SM_APK;
    else if (sm_ends(name, ".ttf")) *heap = SM_TTF;
    else if (sm_ends(name, ".odex") || (n > 4 && strstr(name, ".dex"))) {
        *heap = SM_DEX;
        *sub = SM_DEX_APP_DEX;
    } else if (sm_ends(name, ".vdex")) {
        *heap = SM_DEX;
        *sub = sm_boot(name) ? SM_DEX_BOOT_VDEX : SM_DEX_APP_VDEX;
    } else if (sm_ends(name, ".oat")) *heap = SM_OAT;
    else if (sm_ends(name, ".art") || sm_ends(name, ".art]")) {
        *heap = SM_ART;
        *sub = sm_boot(name) ? SM_ART_BOOT : SM_ART_APP;
    } else if (sm_starts(name, "/dev/")) {
        *heap = SM_UNKNOWN_DEV;
        if (sm_starts(name, "/dev/kgsl-3d0")) *heap = SM_GL_DEV;
        else if (sm_starts(name, "/dev/ashmem/CursorWindow")) *heap = SM_CURSOR;
        else if (sm_starts(name, "/dev/ashmem/jit-zygote-cache")) {
            *heap = SM_DALVIK_OTHER;
            *sub = SM_DO_ZYGOTE_JIT;
        } else if (sm_starts(name, "/dev/ashmem")) *heap = SM_ASHMEM;
    } else if (sm_starts(name, "/memfd:jit-cache")) {
        *heap = SM_DALVIK_OTHER;
        *sub = SM_DO_APP_JIT;
    } else if (sm_starts(name, "/memfd:jit-zygote-cache")) {
        *heap = SM_DALVIK_OTHER;
        *sub = SM_DO_ZYGOTE_JIT;
    } else if (sm_starts(name, "[anon:")) {
        if (sm_starts(name, "[anon:dalvik-")) {
            *heap = SM_DALVIK_OTHER;
            if (sm_starts(name, "[anon:dalvik-LinearAlloc")) *sub = SM_DO_LINEARALLOC;
            else if (sm_starts(name, "[anon:dalvik-alloc space") || sm_starts(name, "[anon:dalvik-main space")) {
                *heap = SM_DALVIK;
                *sub = SM_D_NORMAL;
            } else if (sm_starts(name, "[anon:dalvik-large object space") ||
                       sm_starts(name, "[anon:dalvik-free list large object space")) {
                *heap = SM_DALVIK;
                *sub = SM_D_LARGE;
            } else if (sm_starts(name, "[anon:dalvik-non moving space")) {
                *heap = SM_DALVIK;
                *sub = SM_D_NONMOVING;
            } else if (sm_starts(name, "[anon:dalvik-zygote space")) {
                *heap = SM_DALVIK;
                *sub = SM_D_ZYGOTE;
            } else if (sm_starts(name, "[anon:dalvik-indirect ref")) *sub = SM_DO_INDIRECT_REF;
            else if (sm_starts(name, "[anon:dalvik-jit-code-cache") || sm_starts(name, "[anon:dalvik-data-code-cache"))
                *sub = SM_DO_APP_JIT;
            else if (sm_starts(name, "[anon:dalvik-CompilerMetadata")) *sub = SM_DO_COMPILER_METADATA;
            else *sub = SM_DO_ACCOUNTING; /* the platform's default for other dalvik- names */
        }
    } else if (n > 0) *heap = SM_UNKNOWN_MAP;
    else if (contiguous && prev_heap == SM_SO) *heap = SM_SO; /* an unnamed mapping right after a .so is its .bss */
}

/* "addr-addr perms offset dev inode [name]": returns 1 and the range and name. */
static int sm_header(char *line, uint64_t *start, uint64_t *end, char **name)
{
    char *p = line, *q;
    unsigned long long a = strtoull(p, &q, 16);
    if (q == p || *q != '-') return 0;
    p = q + 1;
    unsigned long long b = strtoull(p, &q, 16);
    if (q == p || *q != ' ') return 0;
    p = q;
    /* perms, offset, dev, inode */
    for (int f = 0; f < 4; f++) {
        while (*p == ' ') p++;
        if (!*p) return 0;
        char *s = p;
        while (*p && *p != ' ') p++;
        if (f == 0 && (p - s != 4 || !strchr("r-", s[0]))) return 0;
    }
    while (*p == ' ' || *p == '\t') p++;
    size_t l = strlen(p);
    while (l && (p[l - 1] == ' ' || p[l - 1] == '\t' || p[l - 1] == '\r')) p[--l] = 0;
    *start = a;
    *end = b;
    *name = p;
    return 1;
}

/* "Key:   123 kB": returns the field index (or ST_N for a field we do not sum). */
static int sm_field(const char *line, int64_t *v, int *is_field)
{
    const char *colon = strchr(line, ':');
    *is_field = 0;
    if (!colon || colon == line) return ST_N;
    for (const char *p = line; p < colon; p++)
        if (!isalnum((unsigned char)*p) && *p != '_' && *p != ' ') return ST_N;
    *is_field = 1;
    size_t kl = (size_t)(colon - line);
    char key[64];
    if (kl >= sizeof key) return ST_N;
    for (size_t i = 0; i < kl; i++) key[i] = line[i] == ' ' ? '_' : line[i];
    key[kl] = 0;
    for (int f = 0; f < ST_N; f++)
        if (!strcmp(key, sm_field_smaps[f])) {
            char *e;
            long long x = strtoll(colon + 1, &e, 10);
            /* Sizes past an exabyte are corrupt; refusing them keeps sums exact. */
            if (e == colon + 1 || x < 0 || x > 1000000000000000LL) {
                *is_field = 0;
                return ST_N;
            }
            *v = x;
            return f;
        }
    return ST_N;
}

static void sm_add(sm_stats *to, const sm_stats *from)
{
    for (int f = 0; f < ST_N; f++) to->v[f] += from->v[f];
    to->mappings += from->mappings;
}

static void sm_json_stats(mi_json *j, const sm_stats *s)
{
    for (int f = 0; f < ST_N; f++) mi_json_kint(j, sm_field_json[f], s->v[f]);
    mi_json_kint(j, "mappings", s->mappings);
}

static int sm_cmp_name(const void *a, const void *b)
{
    return strcmp(((const sm_named *)a)->name, ((const sm_named *)b)->name);
}

static int sm_cmp_pss(const void *a, const void *b)
{
    const sm_named *x = a, *y = b;
    if (x->st.v[ST_PSS] != y->st.v[ST_PSS]) return x->st.v[ST_PSS] < y->st.v[ST_PSS] ? 1 : -1;
    return strcmp(x->name, y->name);
}

/* Merges equal names and sorts largest Pss first; returns the new count. */
static int sm_group(sm_named *a, int n)
{
    if (n == 0) return 0;
    qsort(a, (size_t)n, sizeof *a, sm_cmp_name);
    int k = 0;
    for (int i = 1; i < n; i++) {
        if (!strcmp(a[i].name, a[k].name)) sm_add(&a[k].st, &a[i].st);
        else a[++k] = a[i];
    }
    n = k + 1;
    qsort(a, (size_t)n, sizeof *a, sm_cmp_pss);
    return n;
}

static void sm_json_named(mi_json *j, const sm_named *a, int n)
{
    mi_json_arr(j);
    for (int i = 0; i < n; i++) {
        mi_json_obj(j);
        mi_json_kstr(j, "name", a[i].name);
        sm_json_stats(j, &a[i].st);
        mi_json_obj_end(j);
    }
    mi_json_arr_end(j);
}

typedef struct sm_state {
    sm_stats cat[SM_N];
    sm_named *unknown, *othermap;
    int nunknown, nothermap;
    int cur_heap, cur_sub;
    sm_stats cur;
    const char *cur_name;
    int have_cur;
    /* what the reading saw, for the errors and warnings */
    int nmaps, nbad, rollup, have_swap_pss;
    const char *first_bad;
} sm_state;

static void sm_flush(sm_state *s)
{
    if (!s->have_cur) return;
    s->cur.mappings = 1;
    sm_add(&s->cat[s->cur_heap], &s->cur);
    if (s->cur_sub != SM_NONE) sm_add(&s->cat[s->cur_sub], &s->cur);
    sm_named *list = s->cur_heap == SM_UNKNOWN ? s->unknown : s->cur_heap == SM_UNKNOWN_MAP ? s->othermap : NULL;
    if (list) {
        int *n = s->cur_heap == SM_UNKNOWN ? &s->nunknown : &s->nothermap;
        list[*n].name = s->cur_name[0] ? s->cur_name : "(no name)";
        list[*n].st = s->cur;
        (*n)++;
    }
    memset(&s->cur, 0, sizeof s->cur);
    s->have_cur = 0;
}

/* Reads the mappings of buf (modified: lines are cut and names trimmed in place). */
static void sm_read(sm_state *s, char *buf)
{
    uint64_t prev_end = 0;
    int prev_heap = SM_UNKNOWN;
    for (char *line = buf; line;) {
        char *nl = strchr(line, '\n');
        if (nl) *nl = 0;
        char *name;
        uint64_t a, b;
        int64_t v;
        int is_field;
        if (sm_header(line, &a, &b, &name)) {
            sm_flush(s);
            if (sm_ends(name, " (deleted)")) name[strlen(name) - strlen(" (deleted)")] = 0;
            s->rollup |= !strcmp(name, "[rollup]");
            sm_classify(name, prev_heap, a == prev_end, &s->cur_heap, &s->cur_sub);
            prev_end = b;
            prev_heap = s->cur_heap;
            s->cur_name = name;
            s->have_cur = 1;
            s->nmaps++;
        } else {
            int f = sm_field(line, &v, &is_field);
            if (f < ST_N && s->have_cur) {
                s->cur.v[f] += v;
                s->have_swap_pss |= f == ST_SWAP_PSS;
            } else if (!is_field && line[strspn(line, " \t\r")]) {
                if (!s->nbad++) s->first_bad = line;
            }
        }
        line = nl ? nl + 1 : NULL;
    }
    sm_flush(s);
}

/* Top rows in meminfo's order, each followed by its sub-categories. */
static void sm_json_categories(mi_json *j, const sm_state *s)
{
    mi_json_karr(j, "categories");
    for (int c = 0; c <= SM_UNKNOWN; c++) {
        for (int k = c; k < SM_N; k = k == c ? SM_UNKNOWN + 1 : k + 1) {
            if (k != c && sm_cat[k].parent != c) continue;
            mi_json_obj(j);
            mi_json_kstr(j, "name", sm_cat[k].name);
            mi_json_kstr(j, "parent", k == c ? NULL : sm_cat[c].name);
            sm_json_stats(j, &s->cat[k]);
            mi_json_obj_end(j);
        }
    }
    mi_json_arr_end(j);
}

static void sm_json_total(mi_json *j, const sm_state *s)
{
    sm_stats total;
    memset(&total, 0, sizeof total);
    for (int c = 0; c <= SM_UNKNOWN; c++) sm_add(&total, &s->cat[c]);
    mi_json_key(j, "total");
    mi_json_obj(j);
    sm_json_stats(j, &total);
    /* meminfo's TOTAL Pss counts swapped-out PSS too (Debug.getTotalPss). */
    mi_json_kint(j, "pss_with_swap_pss", total.v[ST_PSS] + total.v[ST_SWAP_PSS]);
    mi_json_obj_end(j);
}

static void sm_json_warnings(mi_json *j, const sm_state *s)
{
    mi_json_karr(j, "warnings");
    if (s->nbad) {
        char w[400];
        snprintf(w, sizeof w, "%d line(s) were neither a mapping header nor a 'Field: value' line (first: %.200s)",
                 s->nbad, s->first_bad);
        mi_json_str(j, w);
    }
    if (s->rollup)
        mi_json_str(
            j, "this is smaps_rollup: one summed mapping, so nothing can be classified; read /proc/PID/smaps instead");
    if (!s->have_swap_pss) mi_json_str(j, "no SwapPss lines (kernel older than 4.14 or no swap): swap_pss is 0");
    mi_json_arr_end(j);
}

static void sm_json(mi_buf *out, const sm_state *s)
{
    mi_json j;
    mi_json_init(&j, out);
    mi_json_obj(&j);
    sm_json_categories(&j, s);
    mi_json_key(&j, "unknown");
    sm_json_named(&j, s->unknown, s->nunknown);
    mi_json_key(&j, "other_mmap");
    sm_json_named(&j, s->othermap, s->nothermap);
    sm_json_total(&j, s);
    sm_json_warnings(&j, s);
    mi_json_obj_end(&j);
}

/* A NUL-terminated copy with NULs made blanks; *nlines counts its lines. */
static char *sm_copy(const char *text, size_t len, size_t *nlines)
{
    char *buf = hk_alloc(len + 1);
    *nlines = 1;
    for (size_t i = 0; i < len; i++) {
        buf[i] = text[i] ? text[i] : ' ';
        *nlines += buf[i] == '\n';
    }
    buf[len] = 0;
    return buf;
}

int mi_smaps(const char *text, size_t len, mi_buf *json_out, char *err, size_t errlen)
{
    if (!text || len == 0) {
        snprintf(err, errlen, "empty input: expected the text of /proc/PID/smaps");
        return -1;
    }
    size_t nlines;
    char *buf = sm_copy(text, len, &nlines);
    sm_state s;
    memset(&s, 0, sizeof s);
    /* A mapping needs at least one header line: nlines bounds the lists. */
    s.unknown = hk_alloc(nlines * sizeof *s.unknown);
    s.othermap = hk_alloc(nlines * sizeof *s.othermap);
    mi_buf tmp;
    mi_buf_init(&tmp);
    int rc = -1;
    sm_read(&s, buf);
    if (s.nmaps == 0) {
        snprintf(err, errlen,
                 "not /proc/PID/smaps text: no mapping header line ('START-END PERMS OFFSET DEV INODE [NAME]') found");
        goto out;
    }
    s.nunknown = sm_group(s.unknown, s.nunknown);
    s.nothermap = sm_group(s.othermap, s.nothermap);
    sm_json(&tmp, &s);
    mi_buf_put(json_out, tmp.data, tmp.len);
    rc = 0;
out:
    mi_buf_free(&tmp);
    hk_free(s.unknown);
    hk_free(s.othermap);
    hk_free(buf);
    return rc;
}
