/* Where an Android dump came from, read from the heap like a debugger would. */
#include "hprof/hprof_internal.h"
#include "util/hk_mem.h"

#include <stdlib.h>
#include <string.h>

static char *string_of(hk_dump *d, hk_id id)
{
    uint32_t o = hk_obj_find(d, id);
    if (o == HK_NONE) return NULL;
    hk_buf b;
    hk_buf_init(&b);
    if (hk_string_value(d, o, &b) < 0) {
        hk_buf_free(&b);
        return NULL;
    }
    char *s = hk_xstrndup(b.data ? (const char *)b.data : "", b.len);
    hk_buf_free(&b);
    return s;
}

static char *static_string(hk_dump *d, const hk_class *c, const char *name)
{
    const hk_static *s = c ? hk_class_static(c, name) : NULL;
    return s && s->type == HK_T_OBJECT && s->value.ref ? string_of(d, s->value.ref) : NULL;
}

static hk_id field_ref(hk_dump *d, hk_id obj, const char *name)
{
    uint32_t o = hk_obj_find(d, obj);
    hk_value v;
    if (o == HK_NONE || !hk_instance_field(d, o, name, &v) || v.type != HK_T_OBJECT) return 0;
    return v.ref;
}

void hk_origin_read(hk_dump *d, hk_origin *o)
{
    memset(o, 0, sizeof *o);
    o->sdk = -1;
    const hk_class *version = hk_class_by_name(d, "android.os.Build$VERSION");
    const hk_static *sdk = version ? hk_class_static(version, "SDK_INT") : NULL;
    if (sdk && sdk->type == HK_T_INT) o->sdk = (int)sdk->value.i;
    const hk_class *build = hk_class_by_name(d, "android.os.Build");
    o->fingerprint = static_string(d, build, "FINGERPRINT");
    o->manufacturer = static_string(d, build, "MANUFACTURER");
    o->model = static_string(d, build, "MODEL");
    const hk_class *at = hk_class_by_name(d, "android.app.ActivityThread");
    const hk_static *cur = at ? hk_class_static(at, "sCurrentActivityThread") : NULL;
    if (cur && cur->type == HK_T_OBJECT && cur->value.ref) {
        hk_id bound = field_ref(d, cur->value.ref, "mBoundApplication");
        hk_id name = bound ? field_ref(d, bound, "processName") : 0;
        if (name) o->process = string_of(d, name);
    }
    /* a trace names the process it came from (a heap graph has no String text to read) */
    const char *tp = d->source && !o->process ? strstr(d->source, "\ntrace process: ") : NULL;
    if (tp) o->process = hk_xstrndup(tp + 16, strcspn(tp + 16, "\n"));
}

int hk_origin_jdk(hk_dump *d)
{
    char *v = static_string(d, hk_class_by_name(d, "java.lang.VersionProps"), "java_version");
    int jdk = v ? atoi(v) : 0;
    free(v);
    return jdk > 0 && jdk < 256 ? jdk : 0;
}

void hk_origin_free(hk_origin *o)
{
    free(o->fingerprint);
    free(o->manufacturer);
    free(o->model);
    free(o->process);
    memset(o, 0, sizeof *o);
}
