/* JDWP debugger operations: classes, fields, instances, invokes, arrays, the safe point. */
#include "jdwp_session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Outstanding pipelined requests; bounded so neither side's socket buffer fills while the other
 * waits (a VM blocked writing replies stops reading commands). */
#define JDWP_PIPELINE 256
#define JDWP_ARRAY_CHUNK (512u << 10)
#define JDWP_NUDGE_EVERY_MS 5000
/* JDWP constants: Count modifier, class object tag. */
#define JDWP_MOD_COUNT 1
#define JDWP_CAP_INSTANCE_INFO 15

static int64_t jdwp_session_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int jdwp_bad_reply(jdwp_in *in, const char *what, char *err, size_t errlen) {
  if (!in->bad) return 0;
  snprintf(err, errlen, "%s: reply shorter than the protocol says (corrupt stream?)", what);
  return -1;
}

int jdwp_can_list_instances(jdwp_conn *c, int *ok, char *err, size_t errlen) {
  jdwp_packet *r;
  if (jdwp_call(c, JDWP_VM, JDWP_VM_CAPABILITIES_NEW, NULL, -1, "VirtualMachine.CapabilitiesNew",
                &r, err, errlen) < 0)
    return -1;
  jdwp_in in;
  jdwp_in_init(&in, r);
  const uint8_t *caps = jdwp_in_bytes(&in, JDWP_CAP_INSTANCE_INFO + 1);
  *ok = caps ? caps[JDWP_CAP_INSTANCE_INFO] != 0 : 0;
  jdwp_packet_free(r);
  return jdwp_bad_reply(&in, "VirtualMachine.CapabilitiesNew", err, errlen);
}

int jdwp_class_find(jdwp_conn *c, const char *sig, uint64_t *ref, char *err, size_t errlen) {
  jdwp_out o = {0};
  jdwp_out_str(&o, sig);
  jdwp_packet *r;
  int rc = jdwp_call(c, JDWP_VM, JDWP_VM_CLASSES_BY_SIG, &o, -1, "VirtualMachine.ClassesBySignature",
                     &r, err, errlen);
  jdwp_out_free(&o);
  if (rc < 0) return -1;
  jdwp_in in;
  jdwp_in_init(&in, r);
  uint32_t n = jdwp_in_u32(&in);
  *ref = 0;
  /* Several loaders may define the same name; the first is the one a lookup would find. */
  if (n > 0) {
    jdwp_in_u8(&in);
    *ref = jdwp_in_id(&in, jdwp_reftype_id_size(c));
    jdwp_in_u32(&in);
  }
  jdwp_packet_free(r);
  return jdwp_bad_reply(&in, "VirtualMachine.ClassesBySignature", err, errlen);
}

int jdwp_fields_find(jdwp_conn *c, uint64_t ref, const char *const *names, size_t n,
                     uint64_t *ids, char *err, size_t errlen) {
  jdwp_out o = {0};
  jdwp_out_id(&o, jdwp_reftype_id_size(c), ref);
  jdwp_packet *r;
  int rc = jdwp_call(c, JDWP_RT, JDWP_RT_FIELDS, &o, -1, "ReferenceType.Fields", &r, err, errlen);
  jdwp_out_free(&o);
  if (rc < 0) return -1;
  jdwp_in in;
  jdwp_in_init(&in, r);
  uint32_t count = jdwp_in_u32(&in);
  unsigned char *found = calloc(n ? n : 1, 1);
  if (!found) { jdwp_packet_free(r); snprintf(err, errlen, "out of memory"); return -1; }
  for (uint32_t i = 0; i < count && !in.bad; i++) {
    uint64_t id = jdwp_in_id(&in, jdwp_field_id_size(c));
    char *name = jdwp_in_str(&in);
    jdwp_in_skip_str(&in);
    jdwp_in_u32(&in);
    for (size_t k = 0; name && k < n; k++)
      if (!found[k] && strcmp(name, names[k]) == 0) { ids[k] = id; found[k] = 1; }
    free(name);
  }
  jdwp_packet_free(r);
  rc = jdwp_bad_reply(&in, "ReferenceType.Fields", err, errlen);
  for (size_t k = 0; rc == 0 && k < n; k++)
    if (!found[k]) {
      snprintf(err, errlen, "the class has no field '%s' (not an Android Bitmap layout this tool knows)", names[k]);
      rc = -1;
    }
  free(found);
  return rc;
}

static int jdwp_superclass(jdwp_conn *c, uint64_t ref, uint64_t *super, char *err, size_t errlen) {
  jdwp_out o = {0};
  jdwp_out_id(&o, jdwp_reftype_id_size(c), ref);
  jdwp_packet *r;
  int rc = jdwp_call(c, JDWP_CT, JDWP_CT_SUPERCLASS, &o, -1, "ClassType.Superclass", &r, err, errlen);
  jdwp_out_free(&o);
  if (rc < 0) return -1;
  jdwp_in in;
  jdwp_in_init(&in, r);
  *super = jdwp_in_id(&in, jdwp_reftype_id_size(c));
  jdwp_packet_free(r);
  return jdwp_bad_reply(&in, "ClassType.Superclass", err, errlen);
}

int jdwp_method_find(jdwp_conn *c, uint64_t ref, const char *name, const char *sig,
                     uint64_t *mid, char *err, size_t errlen) {
  for (uint64_t cls = ref; cls;) {
    jdwp_out o = {0};
    jdwp_out_id(&o, jdwp_reftype_id_size(c), cls);
    jdwp_packet *r;
    int rc = jdwp_call(c, JDWP_RT, JDWP_RT_METHODS, &o, -1, "ReferenceType.Methods", &r, err, errlen);
    jdwp_out_free(&o);
    if (rc < 0) return -1;
    jdwp_in in;
    jdwp_in_init(&in, r);
    uint32_t count = jdwp_in_u32(&in);
    int hit = 0;
    for (uint32_t i = 0; i < count && !in.bad && !hit; i++) {
      uint64_t id = jdwp_in_id(&in, jdwp_method_id_size(c));
      char *mname = jdwp_in_str(&in);
      char *msig = jdwp_in_str(&in);
      jdwp_in_u32(&in);
      if (mname && msig && strcmp(mname, name) == 0 && strcmp(msig, sig) == 0) { *mid = id; hit = 1; }
      free(mname);
      free(msig);
    }
    jdwp_packet_free(r);
    if (jdwp_bad_reply(&in, "ReferenceType.Methods", err, errlen) < 0) return -1;
    if (hit) return 0;
    if (jdwp_superclass(c, cls, &cls, err, errlen) < 0) return -1;
  }
  snprintf(err, errlen, "method %s%s is missing in the app", name, sig);
  return -1;
}

int jdwp_instances(jdwp_conn *c, uint64_t ref, uint64_t **objs, size_t *n, char *err, size_t errlen) {
  *objs = NULL;
  *n = 0;
  jdwp_out o = {0};
  jdwp_out_id(&o, jdwp_reftype_id_size(c), ref);
  jdwp_out_u32(&o, 0);
  jdwp_packet *r;
  /* A heap walk: allow more than a plain command. */
  int rc = jdwp_call(c, JDWP_RT, JDWP_RT_INSTANCES, &o, 4 * jdwp_conn_timeout(c),
                     "ReferenceType.Instances", &r, err, errlen);
  jdwp_out_free(&o);
  if (rc < 0) return -1;
  jdwp_in in;
  jdwp_in_init(&in, r);
  uint32_t count = jdwp_in_u32(&in);
  size_t each = 1 + jdwp_object_id_size(c);
  if (in.bad || count > (in.len - in.pos) / each) {
    jdwp_packet_free(r);
    snprintf(err, errlen, "ReferenceType.Instances: reply shorter than its count");
    return -1;
  }
  uint64_t *v = malloc(sizeof *v * (count ? count : 1));
  if (!v) { jdwp_packet_free(r); snprintf(err, errlen, "out of memory"); return -1; }
  for (uint32_t i = 0; i < count; i++) v[i] = jdwp_in_value(&in, c).v;
  jdwp_packet_free(r);
  *objs = v;
  *n = count;
  return 0;
}

int jdwp_get_values_many(jdwp_conn *c, const uint64_t *objs, size_t n, const uint64_t *fields,
                         size_t nfields, jdwp_value *out, char *err, size_t errlen) {
  uint32_t *ids = malloc(sizeof *ids * (n ? n : 1));
  if (!ids) { snprintf(err, errlen, "out of memory"); return -1; }
  memset(out, 0, sizeof *out * n * nfields);
  size_t sent = 0, got = 0;
  int rc = 0;
  while (rc == 0 && got < n) {
    /* Keep up to JDWP_PIPELINE requests in flight, then collect in order. */
    while (sent < n && sent - got < JDWP_PIPELINE) {
      jdwp_out o = {0};
      jdwp_out_id(&o, jdwp_object_id_size(c), objs[sent]);
      jdwp_out_u32(&o, (uint32_t)nfields);
      for (size_t j = 0; j < nfields; j++) jdwp_out_id(&o, jdwp_field_id_size(c), fields[j]);
      rc = jdwp_send(c, JDWP_OR, JDWP_OR_GET_VALUES, &o, &ids[sent], err, errlen);
      jdwp_out_free(&o);
      if (rc < 0) break;
      sent++;
    }
    if (rc < 0) break;
    jdwp_packet *r;
    if (jdwp_wait_reply(c, ids[got], -1, "ObjectReference.GetValues", &r, err, errlen) < 0) {
      if (jdwp_conn_dead(c) || jdwp_last_error(c) != JDWP_ERR_INVALID_OBJECT) { rc = -1; break; }
      got++;  /* collected meanwhile: tags stay 0 */
      continue;
    }
    jdwp_in in;
    jdwp_in_init(&in, r);
    uint32_t cnt = jdwp_in_u32(&in);
    for (size_t j = 0; j < nfields && j < cnt; j++) out[got * nfields + j] = jdwp_in_value(&in, c);
    jdwp_packet_free(r);
    if (jdwp_bad_reply(&in, "ObjectReference.GetValues", err, errlen) < 0) { rc = -1; break; }
    got++;
  }
  /* Replies still in flight are stashed by the wire layer and freed at close. */
  free(ids);
  return rc;
}

int jdwp_static_value(jdwp_conn *c, uint64_t ref, uint64_t field, jdwp_value *out, char *err,
                      size_t errlen) {
  jdwp_out o = {0};
  jdwp_out_id(&o, jdwp_reftype_id_size(c), ref);
  jdwp_out_u32(&o, 1);
  jdwp_out_id(&o, jdwp_field_id_size(c), field);
  jdwp_packet *r;
  int rc = jdwp_call(c, JDWP_RT, JDWP_RT_GET_VALUES, &o, -1, "ReferenceType.GetValues", &r, err, errlen);
  jdwp_out_free(&o);
  if (rc < 0) return -1;
  jdwp_in in;
  jdwp_in_init(&in, r);
  jdwp_in_u32(&in);
  *out = jdwp_in_value(&in, c);
  jdwp_packet_free(r);
  return jdwp_bad_reply(&in, "ReferenceType.GetValues", err, errlen);
}

static int jdwp_clear_request(jdwp_conn *c, uint8_t kind, uint32_t req) {
  jdwp_out o = {0};
  jdwp_out_u8(&o, kind);
  jdwp_out_u32(&o, req);
  jdwp_packet *r;
  char e[200];
  int rc = jdwp_call(c, JDWP_ER, JDWP_ER_CLEAR, &o, -1, "EventRequest.Clear", &r, e, sizeof e);
  jdwp_out_free(&o);
  jdwp_packet_free(r);
  return rc;
}

/* Looks into a Composite event for our MethodEntry; 1 = found (*thread set), -2 = VM death. */
static int jdwp_event_thread(jdwp_conn *c, const jdwp_packet *ev, uint32_t req, uint64_t *thread) {
  if (ev->cmdset != JDWP_EV || ev->cmd != JDWP_EV_COMPOSITE) return 0;
  jdwp_in in;
  jdwp_in_init(&in, ev);
  jdwp_in_u8(&in);
  uint32_t n = jdwp_in_u32(&in);
  for (uint32_t i = 0; i < n && !in.bad; i++) {
    uint8_t kind = jdwp_in_u8(&in);
    uint32_t id = jdwp_in_u32(&in);
    if (kind == JDWP_EK_VM_DEATH) return -2;
    if (kind != JDWP_EK_METHOD_ENTRY) return 0;  /* unknown layout: cannot read further */
    uint64_t t = jdwp_in_id(&in, jdwp_object_id_size(c));
    jdwp_in_u8(&in);
    jdwp_in_id(&in, jdwp_reftype_id_size(c));
    jdwp_in_id(&in, jdwp_method_id_size(c));
    jdwp_in_u64(&in);
    if (!in.bad && id == req) { *thread = t; return 1; }
  }
  return 0;
}

int jdwp_safe_point(jdwp_conn *c, int timeout_ms, jdwp_nudge_fn nudge, void *ctx,
                    uint64_t *thread, char *err, size_t errlen) {
  jdwp_out o = {0};
  jdwp_out_u8(&o, JDWP_EK_METHOD_ENTRY);
  jdwp_out_u8(&o, JDWP_SUSPEND_ALL);
  jdwp_out_u32(&o, 1);
  jdwp_out_u8(&o, JDWP_MOD_COUNT);
  jdwp_out_u32(&o, 1);
  jdwp_packet *r;
  int rc = jdwp_call(c, JDWP_ER, JDWP_ER_SET, &o, -1, "EventRequest.Set(MethodEntry)", &r, err, errlen);
  jdwp_out_free(&o);
  if (rc < 0) return -1;
  jdwp_in in;
  jdwp_in_init(&in, r);
  uint32_t req = jdwp_in_u32(&in);
  jdwp_packet_free(r);
  int64_t start = jdwp_session_now_ms(), next_nudge = start;
  for (;;) {
    int64_t now = jdwp_session_now_ms();
    if (nudge && now >= next_nudge) {
      char e[200];
      nudge(ctx, e, sizeof e);  /* a failed nudge only means we wait for the app on its own */
      next_nudge = jdwp_session_now_ms() + JDWP_NUDGE_EVERY_MS;
      now = jdwp_session_now_ms();
    }
    int64_t left = start + timeout_ms - now;
    if (left <= 0) break;
    int64_t slice = nudge && next_nudge - now < left ? next_nudge - now : left;
    jdwp_packet *ev;
    int got = jdwp_next_event(c, (int)(slice > 0 ? slice : 1), &ev, err, errlen);
    if (got < 0) return -1;
    if (got == 0) continue;
    int hit = jdwp_event_thread(c, ev, req, thread);
    jdwp_packet_free(ev);
    if (hit == -2) { snprintf(err, errlen, "the VM exited while waiting for it to run code"); return -1; }
    if (hit == 1) {
      jdwp_clear_request(c, JDWP_EK_METHOD_ENTRY, req);  /* Count=1 expired it; clear is tidy */
      return 0;
    }
  }
  jdwp_clear_request(c, JDWP_EK_METHOD_ENTRY, req);
  /* The event may have fired just before the clear: take it if it is already here. */
  jdwp_packet *ev;
  while (jdwp_next_event(c, 200, &ev, err, errlen) == 1) {
    int hit = jdwp_event_thread(c, ev, req, thread);
    jdwp_packet_free(ev);
    if (hit == 1) return 0;
  }
  snprintf(err, errlen, "the app ran no code for %d s; touching it makes it run something "
           "(open it, or scroll), then try again", timeout_ms / 1000);
  return -1;
}

int jdwp_vm_resume(jdwp_conn *c, char *err, size_t errlen) {
  jdwp_packet *r;
  if (jdwp_call(c, JDWP_VM, JDWP_VM_RESUME, NULL, -1, "VirtualMachine.Resume", &r, err, errlen) < 0)
    return -1;
  jdwp_packet_free(r);
  return 0;
}

int jdwp_object_signature(jdwp_conn *c, uint64_t obj, char **sig, char *err, size_t errlen) {
  *sig = NULL;
  jdwp_out o = {0};
  jdwp_out_id(&o, jdwp_object_id_size(c), obj);
  jdwp_packet *r;
  int rc = jdwp_call(c, JDWP_OR, JDWP_OR_REFERENCE_TYPE, &o, -1, "ObjectReference.ReferenceType",
                     &r, err, errlen);
  jdwp_out_free(&o);
  if (rc < 0) return -1;
  jdwp_in in;
  jdwp_in_init(&in, r);
  jdwp_in_u8(&in);
  uint64_t ref = jdwp_in_id(&in, jdwp_reftype_id_size(c));
  jdwp_packet_free(r);
  if (jdwp_bad_reply(&in, "ObjectReference.ReferenceType", err, errlen) < 0) return -1;
  jdwp_out_id(&o, jdwp_reftype_id_size(c), ref);
  rc = jdwp_call(c, JDWP_RT, JDWP_RT_SIGNATURE, &o, -1, "ReferenceType.Signature", &r, err, errlen);
  jdwp_out_free(&o);
  if (rc < 0) return -1;
  jdwp_in_init(&in, r);
  *sig = jdwp_in_str(&in);
  jdwp_packet_free(r);
  return jdwp_bad_reply(&in, "ReferenceType.Signature", err, errlen);
}

/* "Ljava/lang/IllegalStateException;" -> "java.lang.IllegalStateException" in place. */
static void jdwp_sig_to_name(char *s) {
  size_t n = strlen(s);
  if (n >= 2 && s[0] == 'L' && s[n - 1] == ';') {
    memmove(s, s + 1, n - 2);
    s[n - 2] = 0;
  }
  for (char *p = s; *p; p++)
    if (*p == '/') *p = '.';
}

/* Reads "value + tagged exception", shared by both invokes. */
static int jdwp_invoke_reply(jdwp_conn *c, jdwp_packet *r, const char *what,
                             jdwp_invoke_result *res, char *err, size_t errlen) {
  jdwp_in in;
  jdwp_in_init(&in, r);
  res->ret = jdwp_in_value(&in, c);
  res->exc = jdwp_in_value(&in, c).v;
  jdwp_packet_free(r);
  if (jdwp_bad_reply(&in, what, err, errlen) < 0) return -1;
  if (res->exc) {
    char *sig = NULL, e[200];
    if (jdwp_object_signature(c, res->exc, &sig, e, sizeof e) == 0 && sig) jdwp_sig_to_name(sig);
    snprintf(err, errlen, "%s threw %s", what, sig ? sig : "an exception");
    free(sig);
    return -1;
  }
  return 0;
}

static void jdwp_out_args(jdwp_out *o, const jdwp_conn *c, const jdwp_value *args, size_t nargs) {
  jdwp_out_u32(o, (uint32_t)nargs);
  for (size_t i = 0; i < nargs; i++) jdwp_out_value(o, c, args[i]);
  jdwp_out_u32(o, 0);  /* options 0: never single-threaded, never non-virtual */
}

int jdwp_invoke_static(jdwp_conn *c, uint64_t cls, uint64_t thread, uint64_t mid,
                       const jdwp_value *args, size_t nargs, int timeout_ms,
                       jdwp_invoke_result *res, char *err, size_t errlen) {
  jdwp_out o = {0};
  jdwp_out_id(&o, jdwp_reftype_id_size(c), cls);
  jdwp_out_id(&o, jdwp_object_id_size(c), thread);
  jdwp_out_id(&o, jdwp_method_id_size(c), mid);
  jdwp_out_args(&o, c, args, nargs);
  jdwp_packet *r;
  int rc = jdwp_call(c, JDWP_CT, JDWP_CT_INVOKE, &o, timeout_ms, "ClassType.InvokeMethod", &r, err, errlen);
  jdwp_out_free(&o);
  if (rc < 0) return -1;
  return jdwp_invoke_reply(c, r, "ClassType.InvokeMethod", res, err, errlen);
}

int jdwp_invoke_method(jdwp_conn *c, uint64_t obj, uint64_t thread, uint64_t cls, uint64_t mid,
                       const jdwp_value *args, size_t nargs, int timeout_ms,
                       jdwp_invoke_result *res, char *err, size_t errlen) {
  jdwp_out o = {0};
  jdwp_out_id(&o, jdwp_object_id_size(c), obj);
  jdwp_out_id(&o, jdwp_object_id_size(c), thread);
  jdwp_out_id(&o, jdwp_reftype_id_size(c), cls);
  jdwp_out_id(&o, jdwp_method_id_size(c), mid);
  jdwp_out_args(&o, c, args, nargs);
  jdwp_packet *r;
  int rc = jdwp_call(c, JDWP_OR, JDWP_OR_INVOKE, &o, timeout_ms, "ObjectReference.InvokeMethod", &r, err, errlen);
  jdwp_out_free(&o);
  if (rc < 0) return -1;
  return jdwp_invoke_reply(c, r, "ObjectReference.InvokeMethod", res, err, errlen);
}

int jdwp_new_instance(jdwp_conn *c, uint64_t cls, uint64_t thread, uint64_t mid,
                      const jdwp_value *args, size_t nargs, uint64_t *obj, char *err, size_t errlen) {
  jdwp_out o = {0};
  jdwp_out_id(&o, jdwp_reftype_id_size(c), cls);
  jdwp_out_id(&o, jdwp_object_id_size(c), thread);
  jdwp_out_id(&o, jdwp_method_id_size(c), mid);
  jdwp_out_args(&o, c, args, nargs);
  jdwp_packet *r;
  int rc = jdwp_call(c, JDWP_CT, JDWP_CT_NEW_INSTANCE, &o, -1, "ClassType.NewInstance", &r, err, errlen);
  jdwp_out_free(&o);
  if (rc < 0) return -1;
  jdwp_invoke_result res;
  if (jdwp_invoke_reply(c, r, "ClassType.NewInstance", &res, err, errlen) < 0) return -1;
  *obj = res.ret.v;
  if (!*obj) { snprintf(err, errlen, "ClassType.NewInstance returned null"); return -1; }
  return 0;
}

int jdwp_disable_gc(jdwp_conn *c, uint64_t obj, char *err, size_t errlen) {
  jdwp_out o = {0};
  jdwp_out_id(&o, jdwp_object_id_size(c), obj);
  jdwp_packet *r;
  int rc = jdwp_call(c, JDWP_OR, JDWP_OR_DISABLE_GC, &o, -1, "ObjectReference.DisableCollection",
                     &r, err, errlen);
  jdwp_out_free(&o);
  jdwp_packet_free(r);
  return rc;
}

void jdwp_enable_gc(jdwp_conn *c, uint64_t obj) {
  if (!obj || jdwp_conn_dead(c)) return;
  jdwp_out o = {0};
  jdwp_out_id(&o, jdwp_object_id_size(c), obj);
  jdwp_packet *r;
  char e[200];
  jdwp_call(c, JDWP_OR, JDWP_OR_ENABLE_GC, &o, -1, "ObjectReference.EnableCollection", &r, e, sizeof e);
  jdwp_out_free(&o);
  jdwp_packet_free(r);
}

int jdwp_array_length(jdwp_conn *c, uint64_t arr, uint32_t *len, char *err, size_t errlen) {
  jdwp_out o = {0};
  jdwp_out_id(&o, jdwp_object_id_size(c), arr);
  jdwp_packet *r;
  int rc = jdwp_call(c, JDWP_AR, JDWP_AR_LENGTH, &o, -1, "ArrayReference.Length", &r, err, errlen);
  jdwp_out_free(&o);
  if (rc < 0) return -1;
  jdwp_in in;
  jdwp_in_init(&in, r);
  *len = jdwp_in_u32(&in);
  jdwp_packet_free(r);
  return jdwp_bad_reply(&in, "ArrayReference.Length", err, errlen);
}

int jdwp_byte_array(jdwp_conn *c, uint64_t arr, size_t max_len, uint8_t **bytes, size_t *len,
                    char *err, size_t errlen) {
  *bytes = NULL;
  *len = 0;
  uint32_t n;
  if (jdwp_array_length(c, arr, &n, err, errlen) < 0) return -1;
  if (n > max_len) {
    snprintf(err, errlen, "array of %u bytes is over the %zu-byte limit", n, max_len);
    return -1;
  }
  if (jdwp_byte_array_read(c, arr, n, bytes, err, errlen) < 0) return -1;
  *len = n;
  return 0;
}

int jdwp_byte_array_read(jdwp_conn *c, uint64_t arr, uint32_t n, uint8_t **bytes, char *err,
                         size_t errlen) {
  *bytes = NULL;
  uint8_t *buf = malloc(n ? n : 1);
  if (!buf) { snprintf(err, errlen, "out of memory for %u bytes", n); return -1; }
  size_t chunks = (n + JDWP_ARRAY_CHUNK - 1) / JDWP_ARRAY_CHUNK;
  uint32_t ids[8];
  size_t sent = 0, got = 0;
  int rc = 0;
  while (rc == 0 && got < chunks) {
    while (sent < chunks && sent - got < 8) {
      uint32_t first = (uint32_t)(sent * JDWP_ARRAY_CHUNK);
      uint32_t cnt = n - first < JDWP_ARRAY_CHUNK ? n - first : JDWP_ARRAY_CHUNK;
      jdwp_out o = {0};
      jdwp_out_id(&o, jdwp_object_id_size(c), arr);
      jdwp_out_u32(&o, first);
      jdwp_out_u32(&o, cnt);
      rc = jdwp_send(c, JDWP_AR, JDWP_AR_GET_VALUES, &o, &ids[sent % 8], err, errlen);
      jdwp_out_free(&o);
      if (rc < 0) break;
      sent++;
    }
    if (rc < 0) break;
    jdwp_packet *r;
    if (jdwp_wait_reply(c, ids[got % 8], -1, "ArrayReference.GetValues", &r, err, errlen) < 0) { rc = -1; break; }
    uint32_t first = (uint32_t)(got * JDWP_ARRAY_CHUNK);
    uint32_t want = n - first < JDWP_ARRAY_CHUNK ? n - first : JDWP_ARRAY_CHUNK;
    jdwp_in in;
    jdwp_in_init(&in, r);
    uint8_t tag = jdwp_in_u8(&in);
    uint32_t cnt = jdwp_in_u32(&in);
    const uint8_t *b = jdwp_in_bytes(&in, want);
    if (tag != 'B' || cnt != want || !b) {
      snprintf(err, errlen, "ArrayReference.GetValues: not the byte[] chunk asked for");
      rc = -1;
    } else {
      memcpy(buf + first, b, want);
    }
    jdwp_packet_free(r);
    got++;
  }
  if (rc < 0) { free(buf); return -1; }
  *bytes = buf;
  return 0;
}

int jdwp_string_value(jdwp_conn *c, uint64_t str, char **s, char *err, size_t errlen) {
  jdwp_out o = {0};
  jdwp_out_id(&o, jdwp_object_id_size(c), str);
  jdwp_packet *r;
  int rc = jdwp_call(c, JDWP_SR, JDWP_SR_VALUE, &o, -1, "StringReference.Value", &r, err, errlen);
  jdwp_out_free(&o);
  if (rc < 0) return -1;
  jdwp_in in;
  jdwp_in_init(&in, r);
  *s = jdwp_in_str(&in);
  jdwp_packet_free(r);
  return jdwp_bad_reply(&in, "StringReference.Value", err, errlen);
}

int jdwp_class_loader(jdwp_conn *c, uint64_t ref, uint64_t *loader, char *err, size_t errlen) {
  jdwp_out o = {0};
  jdwp_out_id(&o, jdwp_reftype_id_size(c), ref);
  jdwp_packet *r;
  int rc = jdwp_call(c, JDWP_RT, JDWP_RT_CLASS_LOADER, &o, -1, "ReferenceType.ClassLoader", &r, err, errlen);
  jdwp_out_free(&o);
  if (rc < 0) return -1;
  jdwp_in in;
  jdwp_in_init(&in, r);
  *loader = jdwp_in_id(&in, jdwp_object_id_size(c));
  jdwp_packet_free(r);
  return jdwp_bad_reply(&in, "ReferenceType.ClassLoader", err, errlen);
}

int jdwp_class_load(jdwp_conn *c, uint64_t thread, const char *sig, uint64_t loader,
                    uint64_t *ref, int *loaded, char *err, size_t errlen) {
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
  char *name = malloc(n + 1);
  if (!name) { snprintf(err, errlen, "out of memory"); return -1; }
  memcpy(name, sig, n + 1);
  jdwp_sig_to_name(name);
  jdwp_out o = {0};
  jdwp_out_str(&o, name);
  jdwp_packet *r;
  int rc = jdwp_call(c, JDWP_VM, JDWP_VM_CREATE_STRING, &o, -1, "VirtualMachine.CreateString", &r, err, errlen);
  jdwp_out_free(&o);
  if (rc < 0) { free(name); return -1; }
  jdwp_in in;
  jdwp_in_init(&in, r);
  uint64_t str = jdwp_in_id(&in, jdwp_object_id_size(c));
  jdwp_packet_free(r);
  if (jdwp_bad_reply(&in, "VirtualMachine.CreateString", err, errlen) < 0 ||
      jdwp_disable_gc(c, str, err, errlen) < 0) {
    free(name);
    return -1;
  }
  jdwp_value args[3] = {{'s', str}, {'Z', 1}, {'L', loader}};
  jdwp_invoke_result res;
  rc = jdwp_invoke_static(c, cls_class, thread, forname, args, 3, -1, &res, err, errlen);
  jdwp_enable_gc(c, str);
  if (rc < 0) {
    char e[300];
    snprintf(e, sizeof e, "%s", err);
    snprintf(err, errlen, "loading %s with Class.forName: %s", name, e);
    free(name);
    return -1;
  }
  free(name);
  jdwp_out_id(&o, jdwp_object_id_size(c), res.ret.v);
  rc = jdwp_call(c, JDWP_COR, JDWP_COR_REFLECTED_TYPE, &o, -1, "ClassObjectReference.ReflectedType",
                 &r, err, errlen);
  jdwp_out_free(&o);
  if (rc < 0) return -1;
  jdwp_in_init(&in, r);
  jdwp_in_u8(&in);
  *ref = jdwp_in_id(&in, jdwp_reftype_id_size(c));
  jdwp_packet_free(r);
  if (jdwp_bad_reply(&in, "ClassObjectReference.ReflectedType", err, errlen) < 0) return -1;
  *loaded = 1;
  return 0;
}
