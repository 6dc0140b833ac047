/* JDWP debugger operations: classes, fields, instances, invokes, arrays. */
#include "jdwp_session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Outstanding pipelined requests; bounded so neither side's socket buffer fills while the other
 * waits (a VM blocked writing replies stops reading commands). */
#define JDWP_PIPELINE    256
#define JDWP_ARRAY_CHUNK (512u << 10)
/* JDWP constants: the capability index of canGetInstanceInfo. */
#define JDWP_CAP_INSTANCE_INFO 15

/* One command's reply being read: the packet stays alive until jdwp_reply_end. */
typedef struct jdwp_reply {
    jdwp_packet *pkt;
    jdwp_in in;
    const char *what;
} jdwp_reply;

/* Opens a reply for reading; it names the command in messages. */
static void jdwp_reply_open(jdwp_reply *rp, jdwp_packet *pkt, const char *what)
{
    rp->pkt = pkt;
    rp->what = what;
    jdwp_in_init(&rp->in, pkt);
}

/* Frees the reply; -1 with err when it was shorter than what was read from it (reads past the
 * end yield zeros and are checked once, here). */
static int jdwp_reply_end(jdwp_reply *rp, char *err, size_t errlen)
{
    jdwp_packet_free(rp->pkt);
    rp->pkt = NULL;
    if (!rp->in.bad) return 0;
    snprintf(err, errlen, "%s: reply shorter than the protocol says (corrupt stream?)", rp->what);
    return -1;
}

/* The one round trip every command takes: sends the data built in *o (freed here; NULL = none),
 * waits for the reply (timeout_ms < 0: connection default) and opens it in *rp. On failure *rp
 * holds nothing to free. */
static int jdwp_cmd(jdwp_conn *c, uint8_t set, uint8_t cmd, jdwp_out *o, int timeout_ms, const char *what,
                    jdwp_reply *rp, char *err, size_t errlen)
{
    jdwp_packet *r;
    int rc = jdwp_call(c, set, cmd, o, timeout_ms, what, &r, err, errlen);
    if (o) jdwp_out_free(o);
    jdwp_reply_open(rp, r, what);
    return rc;
}

/* Most commands send a single id (object, class, ...) of the given size. */
static int jdwp_cmd_id(jdwp_conn *c, uint8_t set, uint8_t cmd, size_t idsize, uint64_t id, const char *what,
                       jdwp_reply *rp, char *err, size_t errlen)
{
    jdwp_out o = {0};
    jdwp_out_id(&o, idsize, id);
    return jdwp_cmd(c, set, cmd, &o, -1, what, rp, err, errlen);
}

/* A command whose reply carries nothing we read. */
static int jdwp_cmd_ack(jdwp_conn *c, uint8_t set, uint8_t cmd, jdwp_out *o, const char *what, char *err, size_t errlen)
{
    jdwp_reply rp;
    int rc = jdwp_cmd(c, set, cmd, o, -1, what, &rp, err, errlen);
    jdwp_packet_free(rp.pkt);
    return rc;
}

/* Reads a tagged reference type id (tag byte, then the id). */
static uint64_t jdwp_in_tagged_ref(jdwp_in *in, const jdwp_conn *c)
{
    jdwp_in_u8(in);
    return jdwp_in_id(in, jdwp_id_size(c, JDWP_ID_REFTYPE));
}

/* Runs n requests of one command pipelined: at most depth (<= JDWP_PIPELINE) in flight, so
 * neither socket buffer fills, replies collected in order. build(ctx, i, o) writes request i;
 * take(ctx, i, rc, rp, ...) gets its reply (rc < 0: the wait failed, err says why, rp holds
 * nothing) and returns -1 to stop. Replies still in flight at a stop are stashed by the wire
 * layer and freed at close. */
typedef void (*jdwp_pipe_build_fn)(void *ctx, const jdwp_conn *c, size_t i, jdwp_out *o);
typedef int (*jdwp_pipe_take_fn)(void *ctx, jdwp_conn *c, size_t i, int rc, jdwp_reply *rp, char *err, size_t errlen);
static int jdwp_pipeline(jdwp_conn *c, uint8_t set, uint8_t cmd, const char *what, size_t n, size_t depth,
                         jdwp_pipe_build_fn build, jdwp_pipe_take_fn take, void *ctx, char *err, size_t errlen)
{
    uint32_t ids[JDWP_PIPELINE];
    if (depth > JDWP_PIPELINE) depth = JDWP_PIPELINE;
    size_t sent = 0, got = 0;
    while (got < n) {
        while (sent < n && sent - got < depth) {
            jdwp_out o = {0};
            build(ctx, c, sent, &o);
            int rc = jdwp_send(c, set, cmd, &o, &ids[sent % depth], err, errlen);
            jdwp_out_free(&o);
            if (rc < 0) return -1;
            sent++;
        }
        jdwp_packet *r;
        int rc = jdwp_wait_reply(c, ids[got % depth], -1, what, &r, err, errlen);
        jdwp_reply rp;
        jdwp_reply_open(&rp, r, what);
        rc = take(ctx, c, got, rc, &rp, err, errlen);
        jdwp_packet_free(rp.pkt);
        if (rc < 0) return -1;
        got++;
    }
    return 0;
}

int jdwp_can_list_instances(jdwp_conn *c, int *ok, char *err, size_t errlen)
{
    jdwp_reply rp;
    const char *what = "VirtualMachine.CapabilitiesNew";
    if (jdwp_cmd(c, JDWP_VM, JDWP_VM_CAPABILITIES_NEW, NULL, -1, what, &rp, err, errlen) < 0) return -1;
    const uint8_t *caps = jdwp_in_bytes(&rp.in, JDWP_CAP_INSTANCE_INFO + 1);
    *ok = caps ? caps[JDWP_CAP_INSTANCE_INFO] != 0 : 0;
    return jdwp_reply_end(&rp, err, errlen);
}

int jdwp_class_find(jdwp_conn *c, const char *sig, uint64_t *ref, char *err, size_t errlen)
{
    jdwp_out o = {0};
    jdwp_out_str(&o, sig);
    jdwp_reply rp;
    if (jdwp_cmd(c, JDWP_VM, JDWP_VM_CLASSES_BY_SIG, &o, -1, "VirtualMachine.ClassesBySignature", &rp, err, errlen) < 0)
        return -1;
    uint32_t n = jdwp_in_u32(&rp.in);
    *ref = 0;
    /* Several loaders may define the same name; the first is the one a lookup would find. */
    if (n > 0) {
        *ref = jdwp_in_tagged_ref(&rp.in, c);
        jdwp_in_u32(&rp.in);
    }
    return jdwp_reply_end(&rp, err, errlen);
}

int jdwp_fields_find(jdwp_conn *c, uint64_t ref, const char *const *names, size_t n, uint64_t *ids, char *err,
                     size_t errlen)
{
    jdwp_reply rp;
    if (jdwp_cmd_id(c, JDWP_RT, JDWP_RT_FIELDS, jdwp_id_size(c, JDWP_ID_REFTYPE), ref, "ReferenceType.Fields", &rp, err,
                    errlen) < 0)
        return -1;
    uint32_t count = jdwp_in_u32(&rp.in);
    unsigned char *found = hk_alloc(n ? n : 1);
    for (uint32_t i = 0; i < count && !rp.in.bad; i++) {
        uint64_t id = jdwp_in_id(&rp.in, jdwp_id_size(c, JDWP_ID_FIELD));
        char *name = jdwp_in_str(&rp.in);
        jdwp_in_skip_str(&rp.in);
        jdwp_in_u32(&rp.in);
        for (size_t k = 0; name && k < n; k++)
            if (!found[k] && strcmp(name, names[k]) == 0) {
                ids[k] = id;
                found[k] = 1;
            }
        hk_free(name);
    }
    int rc = jdwp_reply_end(&rp, err, errlen);
    for (size_t k = 0; rc == 0 && k < n; k++)
        if (!found[k]) {
            snprintf(err, errlen, "the class has no field '%s' (not an Android Bitmap layout this tool knows)",
                     names[k]);
            rc = -1;
        }
    hk_free(found);
    return rc;
}

static int jdwp_superclass(jdwp_conn *c, uint64_t ref, uint64_t *super, char *err, size_t errlen)
{
    jdwp_reply rp;
    if (jdwp_cmd_id(c, JDWP_CT, JDWP_CT_SUPERCLASS, jdwp_id_size(c, JDWP_ID_REFTYPE), ref, "ClassType.Superclass", &rp,
                    err, errlen) < 0)
        return -1;
    *super = jdwp_in_id(&rp.in, jdwp_id_size(c, JDWP_ID_REFTYPE));
    return jdwp_reply_end(&rp, err, errlen);
}

int jdwp_method_find(jdwp_conn *c, uint64_t ref, const char *name, const char *sig, uint64_t *mid, char *err,
                     size_t errlen)
{
    for (uint64_t cls = ref; cls;) {
        jdwp_reply rp;
        if (jdwp_cmd_id(c, JDWP_RT, JDWP_RT_METHODS, jdwp_id_size(c, JDWP_ID_REFTYPE), cls, "ReferenceType.Methods",
                        &rp, err, errlen) < 0)
            return -1;
        uint32_t count = jdwp_in_u32(&rp.in);
        int hit = 0;
        for (uint32_t i = 0; i < count && !rp.in.bad && !hit; i++) {
            uint64_t id = jdwp_in_id(&rp.in, jdwp_id_size(c, JDWP_ID_METHOD));
            char *mname = jdwp_in_str(&rp.in);
            char *msig = jdwp_in_str(&rp.in);
            jdwp_in_u32(&rp.in);
            if (mname && msig && strcmp(mname, name) == 0 && strcmp(msig, sig) == 0) {
                *mid = id;
                hit = 1;
            }
            hk_free(mname);
            hk_free(msig);
        }
        if (jdwp_reply_end(&rp, err, errlen) < 0) return -1;
        if (hit) return 0;
        if (jdwp_superclass(c, cls, &cls, err, errlen) < 0) return -1;
    }
    snprintf(err, errlen, "method %s%s is missing in the app", name, sig);
    return -1;
}

int jdwp_instances(jdwp_conn *c, uint64_t ref, uint64_t **objs, size_t *n, char *err, size_t errlen)
{
    *objs = NULL;
    *n = 0;
    jdwp_out o = {0};
    jdwp_out_id(&o, jdwp_id_size(c, JDWP_ID_REFTYPE), ref);
    jdwp_out_u32(&o, 0);
    jdwp_reply rp;
    /* A heap walk: allow more than a plain command. */
    if (jdwp_cmd(c, JDWP_RT, JDWP_RT_INSTANCES, &o, 4 * jdwp_conn_timeout(c), "ReferenceType.Instances", &rp, err,
                 errlen) < 0)
        return -1;
    uint32_t count = jdwp_in_u32(&rp.in);
    size_t each = 1 + jdwp_id_size(c, JDWP_ID_OBJECT);
    if (rp.in.bad || count > (rp.in.len - rp.in.pos) / each) {
        jdwp_packet_free(rp.pkt);
        snprintf(err, errlen, "ReferenceType.Instances: reply shorter than its count");
        return -1;
    }
    uint64_t *v = hk_alloc(sizeof *v * (count ? count : 1));
    for (uint32_t i = 0; i < count; i++) v[i] = jdwp_in_value(&rp.in, c).v;
    jdwp_packet_free(rp.pkt);
    *objs = v;
    *n = count;
    return 0;
}

typedef struct jdwp_values_job {
    const uint64_t *objs, *fields;
    size_t nfields;
    jdwp_value *out;
} jdwp_values_job;

static void jdwp_values_build(void *ctx, const jdwp_conn *c, size_t i, jdwp_out *o)
{
    const jdwp_values_job *j = ctx;
    jdwp_out_id(o, jdwp_id_size(c, JDWP_ID_OBJECT), j->objs[i]);
    jdwp_out_u32(o, (uint32_t)j->nfields);
    for (size_t k = 0; k < j->nfields; k++) jdwp_out_id(o, jdwp_id_size(c, JDWP_ID_FIELD), j->fields[k]);
}

static int jdwp_values_take(void *ctx, jdwp_conn *c, size_t i, int rc, jdwp_reply *rp, char *err, size_t errlen)
{
    const jdwp_values_job *j = ctx;
    /* Collected meanwhile: its tags stay 0. */
    if (rc < 0) return jdwp_conn_dead(c) || jdwp_last_error(c) != JDWP_ERR_INVALID_OBJECT ? -1 : 0;
    uint32_t cnt = jdwp_in_u32(&rp->in);
    for (size_t k = 0; k < j->nfields && k < cnt; k++) j->out[i * j->nfields + k] = jdwp_in_value(&rp->in, c);
    return jdwp_reply_end(rp, err, errlen);
}

int jdwp_get_values_many(jdwp_conn *c, const uint64_t *objs, size_t n, const uint64_t *fields, size_t nfields,
                         jdwp_value *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out * n * nfields);
    jdwp_values_job j = {objs, fields, nfields, out};
    return jdwp_pipeline(c, JDWP_OR, JDWP_OR_GET_VALUES, "ObjectReference.GetValues", n, JDWP_PIPELINE,
                         jdwp_values_build, jdwp_values_take, &j, err, errlen);
}

int jdwp_static_value(jdwp_conn *c, uint64_t ref, uint64_t field, jdwp_value *out, char *err, size_t errlen)
{
    jdwp_out o = {0};
    jdwp_out_id(&o, jdwp_id_size(c, JDWP_ID_REFTYPE), ref);
    jdwp_out_u32(&o, 1);
    jdwp_out_id(&o, jdwp_id_size(c, JDWP_ID_FIELD), field);
    jdwp_reply rp;
    if (jdwp_cmd(c, JDWP_RT, JDWP_RT_GET_VALUES, &o, -1, "ReferenceType.GetValues", &rp, err, errlen) < 0) return -1;
    jdwp_in_u32(&rp.in);
    *out = jdwp_in_value(&rp.in, c);
    return jdwp_reply_end(&rp, err, errlen);
}

int jdwp_vm_resume(jdwp_conn *c, char *err, size_t errlen)
{
    return jdwp_cmd_ack(c, JDWP_VM, JDWP_VM_RESUME, NULL, "VirtualMachine.Resume", err, errlen);
}

int jdwp_all_threads(jdwp_conn *c, uint64_t **ids, size_t *n, char *err, size_t errlen)
{
    *ids = NULL;
    *n = 0;
    jdwp_reply rp;
    if (jdwp_cmd(c, JDWP_VM, JDWP_VM_ALL_THREADS, NULL, -1, "VirtualMachine.AllThreads", &rp, err, errlen) < 0)
        return -1;
    uint32_t count = jdwp_in_u32(&rp.in);
    size_t each = jdwp_id_size(c, JDWP_ID_OBJECT);
    if (rp.in.bad || count > (rp.in.len - rp.in.pos) / each) {
        jdwp_packet_free(rp.pkt);
        snprintf(err, errlen, "VirtualMachine.AllThreads: reply shorter than its count");
        return -1;
    }
    uint64_t *v = hk_alloc(sizeof *v * (count ? count : 1));
    for (uint32_t i = 0; i < count; i++) v[i] = jdwp_in_id(&rp.in, each);
    jdwp_packet_free(rp.pkt);
    *ids = v;
    *n = count;
    return 0;
}

int jdwp_thread_name(jdwp_conn *c, uint64_t thread, char *name, size_t n, char *err, size_t errlen)
{
    jdwp_reply rp;
    if (jdwp_cmd_id(c, JDWP_TR, JDWP_TR_NAME, jdwp_id_size(c, JDWP_ID_OBJECT), thread, "ThreadReference.Name", &rp, err,
                    errlen) < 0)
        return -1;
    char *s = jdwp_in_str(&rp.in);
    snprintf(name, n, "%s", s ? s : "");
    hk_free(s);
    return jdwp_reply_end(&rp, err, errlen);
}

/* The class signature of an object (for messages); *sig malloc'd. */
static int jdwp_object_signature(jdwp_conn *c, uint64_t obj, char **sig, char *err, size_t errlen)
{
    *sig = NULL;
    jdwp_reply rp;
    if (jdwp_cmd_id(c, JDWP_OR, JDWP_OR_REFERENCE_TYPE, jdwp_id_size(c, JDWP_ID_OBJECT), obj,
                    "ObjectReference.ReferenceType", &rp, err, errlen) < 0)
        return -1;
    uint64_t ref = jdwp_in_tagged_ref(&rp.in, c);
    if (jdwp_reply_end(&rp, err, errlen) < 0) return -1;
    if (jdwp_cmd_id(c, JDWP_RT, JDWP_RT_SIGNATURE, jdwp_id_size(c, JDWP_ID_REFTYPE), ref, "ReferenceType.Signature",
                    &rp, err, errlen) < 0)
        return -1;
    *sig = jdwp_in_str(&rp.in);
    return jdwp_reply_end(&rp, err, errlen);
}

/* "Ljava/lang/IllegalStateException;" -> "java.lang.IllegalStateException" in place. */
static void jdwp_sig_to_name(char *s)
{
    size_t n = strlen(s);
    if (n >= 2 && s[0] == 'L' && s[n - 1] == ';') {
        memmove(s, s + 1, n - 2);
        s[n - 2] = 0;
    }
    for (char *p = s; *p; p++)
        if (*p == '/') *p = '.';
}

/* The three invoke commands: target ids (already in *o), then the arguments and options 0 (never
 * single-threaded, never non-virtual); the reply is "value + tagged exception". A thrown
 * exception fails with its class name. */
static int jdwp_invoke(jdwp_conn *c, uint8_t set, uint8_t cmd, jdwp_out *o, const jdwp_value *args, size_t nargs,
                       int timeout_ms, const char *what, jdwp_invoke_result *res, char *err, size_t errlen)
{
    jdwp_out_u32(o, (uint32_t)nargs);
    for (size_t i = 0; i < nargs; i++) jdwp_out_value(o, c, args[i]);
    jdwp_out_u32(o, 0);
    jdwp_reply rp;
    if (jdwp_cmd(c, set, cmd, o, timeout_ms, what, &rp, err, errlen) < 0) return -1;
    res->ret = jdwp_in_value(&rp.in, c);
    res->exc = jdwp_in_value(&rp.in, c).v;
    if (jdwp_reply_end(&rp, err, errlen) < 0) return -1;
    if (res->exc) {
        char *sig = NULL, e[200];
        if (jdwp_object_signature(c, res->exc, &sig, e, sizeof e) == 0 && sig) jdwp_sig_to_name(sig);
        snprintf(err, errlen, "%s threw %s", what, sig ? sig : "an exception");
        hk_free(sig);
        return -1;
    }
    return 0;
}

/* ClassType's two invokes (static method, constructor) send the same targets. */
static int jdwp_class_invoke(jdwp_conn *c, uint8_t cmd, const char *what, uint64_t cls, uint64_t thread, uint64_t mid,
                             const jdwp_value *args, size_t nargs, int timeout_ms, jdwp_invoke_result *res, char *err,
                             size_t errlen)
{
    jdwp_out o = {0};
    jdwp_out_id(&o, jdwp_id_size(c, JDWP_ID_REFTYPE), cls);
    jdwp_out_id(&o, jdwp_id_size(c, JDWP_ID_OBJECT), thread);
    jdwp_out_id(&o, jdwp_id_size(c, JDWP_ID_METHOD), mid);
    return jdwp_invoke(c, JDWP_CT, cmd, &o, args, nargs, timeout_ms, what, res, err, errlen);
}

int jdwp_invoke_static(jdwp_conn *c, uint64_t cls, uint64_t thread, uint64_t mid, const jdwp_value *args, size_t nargs,
                       int timeout_ms, jdwp_invoke_result *res, char *err, size_t errlen)
{
    return jdwp_class_invoke(c, JDWP_CT_INVOKE, "ClassType.InvokeMethod", cls, thread, mid, args, nargs, timeout_ms,
                             res, err, errlen);
}

int jdwp_invoke_method(jdwp_conn *c, uint64_t obj, uint64_t thread, uint64_t cls, uint64_t mid, const jdwp_value *args,
                       size_t nargs, int timeout_ms, jdwp_invoke_result *res, char *err, size_t errlen)
{
    jdwp_out o = {0};
    jdwp_out_id(&o, jdwp_id_size(c, JDWP_ID_OBJECT), obj);
    jdwp_out_id(&o, jdwp_id_size(c, JDWP_ID_OBJECT), thread);
    jdwp_out_id(&o, jdwp_id_size(c, JDWP_ID_REFTYPE), cls);
    jdwp_out_id(&o, jdwp_id_size(c, JDWP_ID_METHOD), mid);
    return jdwp_invoke(c, JDWP_OR, JDWP_OR_INVOKE, &o, args, nargs, timeout_ms, "ObjectReference.InvokeMethod", res,
                       err, errlen);
}

int jdwp_new_instance(jdwp_conn *c, uint64_t cls, uint64_t thread, uint64_t mid, const jdwp_value *args, size_t nargs,
                      uint64_t *obj, char *err, size_t errlen)
{
    jdwp_invoke_result res;
    if (jdwp_class_invoke(c, JDWP_CT_NEW_INSTANCE, "ClassType.NewInstance", cls, thread, mid, args, nargs, -1, &res,
                          err, errlen) < 0)
        return -1;
    *obj = res.ret.v;
    if (!*obj) {
        snprintf(err, errlen, "ClassType.NewInstance returned null");
        return -1;
    }
    return 0;
}

int jdwp_disable_gc(jdwp_conn *c, uint64_t obj, char *err, size_t errlen)
{
    jdwp_out o = {0};
    jdwp_out_id(&o, jdwp_id_size(c, JDWP_ID_OBJECT), obj);
    return jdwp_cmd_ack(c, JDWP_OR, JDWP_OR_DISABLE_GC, &o, "ObjectReference.DisableCollection", err, errlen);
}

void jdwp_enable_gc(jdwp_conn *c, uint64_t obj)
{
    if (!obj || jdwp_conn_dead(c)) return;
    jdwp_out o = {0};
    jdwp_out_id(&o, jdwp_id_size(c, JDWP_ID_OBJECT), obj);
    char e[200];
    jdwp_cmd_ack(c, JDWP_OR, JDWP_OR_ENABLE_GC, &o, "ObjectReference.EnableCollection", e, sizeof e);
}

int jdwp_array_length(jdwp_conn *c, uint64_t arr, uint32_t *len, char *err, size_t errlen)
{
    jdwp_reply rp;
    if (jdwp_cmd_id(c, JDWP_AR, JDWP_AR_LENGTH, jdwp_id_size(c, JDWP_ID_OBJECT), arr, "ArrayReference.Length", &rp, err,
                    errlen) < 0)
        return -1;
    *len = jdwp_in_u32(&rp.in);
    return jdwp_reply_end(&rp, err, errlen);
}

typedef struct jdwp_bytes_job {
    uint64_t arr;
    uint32_t n;
    uint8_t *buf;
} jdwp_bytes_job;

/* Chunk i of the array: its first index and length. */
static uint32_t jdwp_bytes_chunk(const jdwp_bytes_job *j, size_t i, uint32_t *first)
{
    *first = (uint32_t)(i * JDWP_ARRAY_CHUNK);
    return j->n - *first < JDWP_ARRAY_CHUNK ? j->n - *first : JDWP_ARRAY_CHUNK;
}

static void jdwp_bytes_build(void *ctx, const jdwp_conn *c, size_t i, jdwp_out *o)
{
    const jdwp_bytes_job *j = ctx;
    uint32_t first, cnt = jdwp_bytes_chunk(j, i, &first);
    jdwp_out_id(o, jdwp_id_size(c, JDWP_ID_OBJECT), j->arr);
    jdwp_out_u32(o, first);
    jdwp_out_u32(o, cnt);
}

static int jdwp_bytes_take(void *ctx, jdwp_conn *c, size_t i, int rc, jdwp_reply *rp, char *err, size_t errlen)
{
    (void)c;
    const jdwp_bytes_job *j = ctx;
    if (rc < 0) return -1;
    uint32_t first, want = jdwp_bytes_chunk(j, i, &first);
    uint8_t tag = jdwp_in_u8(&rp->in);
    uint32_t cnt = jdwp_in_u32(&rp->in);
    const uint8_t *b = jdwp_in_bytes(&rp->in, want);
    if (tag != 'B' || cnt != want || !b) {
        snprintf(err, errlen, "ArrayReference.GetValues: not the byte[] chunk asked for");
        return -1;
    }
    memcpy(j->buf + first, b, want);
    return 0;
}

int jdwp_byte_array_read(jdwp_conn *c, uint64_t arr, uint32_t n, uint8_t **bytes, char *err, size_t errlen)
{
    *bytes = NULL;
    jdwp_bytes_job j = {arr, n, hk_alloc(n ? n : 1)};
    /* Few large chunks in flight: 8 x 512 KiB keeps the link busy without a huge socket backlog. */
    size_t chunks = (n + JDWP_ARRAY_CHUNK - 1) / JDWP_ARRAY_CHUNK;
    if (jdwp_pipeline(c, JDWP_AR, JDWP_AR_GET_VALUES, "ArrayReference.GetValues", chunks, 8, jdwp_bytes_build,
                      jdwp_bytes_take, &j, err, errlen) < 0) {
        hk_free(j.buf);
        return -1;
    }
    *bytes = j.buf;
    return 0;
}

int jdwp_class_loader(jdwp_conn *c, uint64_t ref, uint64_t *loader, char *err, size_t errlen)
{
    jdwp_reply rp;
    if (jdwp_cmd_id(c, JDWP_RT, JDWP_RT_CLASS_LOADER, jdwp_id_size(c, JDWP_ID_REFTYPE), ref,
                    "ReferenceType.ClassLoader", &rp, err, errlen) < 0)
        return -1;
    *loader = jdwp_in_id(&rp.in, jdwp_id_size(c, JDWP_ID_OBJECT));
    return jdwp_reply_end(&rp, err, errlen);
}

/* VirtualMachine.CreateString, held against GC (the caller enables it again). */
static int jdwp_string_new(jdwp_conn *c, const char *s, uint64_t *str, char *err, size_t errlen)
{
    jdwp_out o = {0};
    jdwp_out_str(&o, s);
    jdwp_reply rp;
    if (jdwp_cmd(c, JDWP_VM, JDWP_VM_CREATE_STRING, &o, -1, "VirtualMachine.CreateString", &rp, err, errlen) < 0)
        return -1;
    *str = jdwp_in_id(&rp.in, jdwp_id_size(c, JDWP_ID_OBJECT));
    if (jdwp_reply_end(&rp, err, errlen) < 0) return -1;
    return jdwp_disable_gc(c, *str, err, errlen);
}

int jdwp_class_load(jdwp_conn *c, uint64_t thread, const char *sig, uint64_t loader, uint64_t *ref, int *loaded,
                    char *err, size_t errlen)
{
    *loaded = 0;
    if (jdwp_class_find(c, sig, ref, err, errlen) < 0) return -1;
    if (*ref) return 0;
    /* Not loaded yet (an app that never compressed anything has no CompressFormat): have the app
     * load it with the loader that loaded its Bitmap. */
    uint64_t cls_class, forname;
    if (jdwp_class_find(c, "Ljava/lang/Class;", &cls_class, err, errlen) < 0) return -1;
    if (!cls_class ||
        jdwp_method_find(c, cls_class, "forName", "(Ljava/lang/String;ZLjava/lang/ClassLoader;)Ljava/lang/Class;",
                         &forname, err, errlen) < 0) {
        if (!cls_class) snprintf(err, errlen, "java.lang.Class is not visible to the debugger");
        return -1;
    }
    size_t n = strlen(sig);
    char *name = hk_alloc(n + 1);
    memcpy(name, sig, n + 1);
    jdwp_sig_to_name(name);
    uint64_t str;
    if (jdwp_string_new(c, name, &str, err, errlen) < 0) {
        hk_free(name);
        return -1;
    }
    jdwp_value args[3] = {{'s', str}, {'Z', 1}, {'L', loader}};
    jdwp_invoke_result res;
    int rc = jdwp_invoke_static(c, cls_class, thread, forname, args, 3, -1, &res, err, errlen);
    jdwp_enable_gc(c, str);
    if (rc < 0) {
        char e[300];
        snprintf(e, sizeof e, "%s", err);
        snprintf(err, errlen, "loading %s with Class.forName: %s", name, e);
        hk_free(name);
        return -1;
    }
    hk_free(name);
    jdwp_reply rp;
    if (jdwp_cmd_id(c, JDWP_COR, JDWP_COR_REFLECTED_TYPE, jdwp_id_size(c, JDWP_ID_OBJECT), res.ret.v,
                    "ClassObjectReference.ReflectedType", &rp, err, errlen) < 0)
        return -1;
    *ref = jdwp_in_tagged_ref(&rp.in, c);
    if (jdwp_reply_end(&rp, err, errlen) < 0) return -1;
    *loaded = 1;
    return 0;
}
