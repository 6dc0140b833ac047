/* JDWP session: the debugger operations hprofkit needs, on top of jdwp_wire. */
#ifndef JDWP_SESSION_H
#define JDWP_SESSION_H

#include "jdwp_wire.h"

/* VirtualMachine.CapabilitiesNew: *ok = canGetInstanceInfo. */
int jdwp_can_list_instances(jdwp_conn *c, int *ok, char *err, size_t errlen);
/* ClassesBySignature ("Landroid/graphics/Bitmap;"): *ref = 0 when not loaded. */
int jdwp_class_find(jdwp_conn *c, const char *sig, uint64_t *ref, char *err, size_t errlen);
/* Field ids by name, declared by ref (FieldsWithGeneric-free plain Fields). Missing names fail. */
int jdwp_fields_find(jdwp_conn *c, uint64_t ref, const char *const *names, size_t n, uint64_t *ids, char *err,
                     size_t errlen);
/* Method id by name and JNI signature, searching ref then its superclasses. */
int jdwp_method_find(jdwp_conn *c, uint64_t ref, const char *name, const char *sig, uint64_t *mid, char *err,
                     size_t errlen);
/* ReferenceType.Instances (max 0 = all); *objs malloc'd. */
int jdwp_instances(jdwp_conn *c, uint64_t ref, uint64_t **objs, size_t *n, char *err, size_t errlen);
/* ObjectReference.GetValues of nfields fields for each of n objects, pipelined: out[i*nfields+j].
 * An object that vanished (INVALID_OBJECT) gets all tags 0 and does not fail the call. */
int jdwp_get_values_many(jdwp_conn *c, const uint64_t *objs, size_t n, const uint64_t *fields, size_t nfields,
                         jdwp_value *out, char *err, size_t errlen);
/* ReferenceType.GetValues for one static field. */
int jdwp_static_value(jdwp_conn *c, uint64_t ref, uint64_t field, jdwp_value *out, char *err, size_t errlen);

int jdwp_vm_resume(jdwp_conn *c, char *err, size_t errlen);
/* VirtualMachine.AllThreads: the live threads; *ids malloc'd. */
int jdwp_all_threads(jdwp_conn *c, uint64_t **ids, size_t *n, char *err, size_t errlen);
/* ThreadReference.Name into name (truncated to n). */
int jdwp_thread_name(jdwp_conn *c, uint64_t thread, char *name, size_t n, char *err, size_t errlen);

/* Invocation results: a thrown exception fails with its class name in err and *exc set. */
typedef struct jdwp_invoke_result {
    jdwp_value ret;
    uint64_t exc;
} jdwp_invoke_result;
/* All invokes use options 0: other threads run during the call (a HARDWARE bitmap is read back
 * through the render thread). timeout_ms < 0 = connection default. */
int jdwp_invoke_static(jdwp_conn *c, uint64_t cls, uint64_t thread, uint64_t mid, const jdwp_value *args, size_t nargs,
                       int timeout_ms, jdwp_invoke_result *res, char *err, size_t errlen);
int jdwp_invoke_method(jdwp_conn *c, uint64_t obj, uint64_t thread, uint64_t cls, uint64_t mid, const jdwp_value *args,
                       size_t nargs, int timeout_ms, jdwp_invoke_result *res, char *err, size_t errlen);
int jdwp_new_instance(jdwp_conn *c, uint64_t cls, uint64_t thread, uint64_t mid, const jdwp_value *args, size_t nargs,
                      uint64_t *obj, char *err, size_t errlen);

int jdwp_disable_gc(jdwp_conn *c, uint64_t obj, char *err, size_t errlen);
/* Best effort: a failure only means the VM forgot the object already. */
void jdwp_enable_gc(jdwp_conn *c, uint64_t obj);

/* The first n bytes of a byte[] whose length the caller knows; *bytes malloc'd. */
int jdwp_byte_array_read(jdwp_conn *c, uint64_t arr, uint32_t n, uint8_t **bytes, char *err, size_t errlen);
int jdwp_array_length(jdwp_conn *c, uint64_t arr, uint32_t *len, char *err, size_t errlen);

/* Finds a class, loading it with Class.forName(name, true, loader) on thread when not loaded
 * yet. loader 0 = boot class loader. sig is a JNI signature "Ljava/io/ByteArrayOutputStream;".
 * *loaded is set to 1 when forName had to run. */
int jdwp_class_load(jdwp_conn *c, uint64_t thread, const char *sig, uint64_t loader, uint64_t *ref, int *loaded,
                    char *err, size_t errlen);
/* ReferenceType.ClassLoader (0 = boot). */
int jdwp_class_loader(jdwp_conn *c, uint64_t ref, uint64_t *loader, char *err, size_t errlen);

#endif
