/* JDWP wire protocol: handshake, packets, id sizes, reply matching, queued events.
 * Host-independent: works over any connected stream fd (TCP socket, adb jdwp:PID stream). */
#ifndef JDWP_WIRE_H
#define JDWP_WIRE_H

#include <stddef.h>
#include <stdint.h>

/* memory through hk_alloc & co.: the host's allocator, or (jdwp_cli) the same policy alone */
#include "hprofkit.h"

/* Command sets and commands used by hprofkit (layouts: shared/reference/jdwp-commands.txt). */
enum {
    JDWP_VM = 1,
    JDWP_VM_CLASSES_BY_SIG = 2,
    JDWP_VM_ALL_THREADS = 4,
    JDWP_VM_DISPOSE = 6,
    JDWP_VM_IDSIZES = 7,
    JDWP_VM_RESUME = 9,
    JDWP_VM_CREATE_STRING = 11,
    JDWP_VM_CAPABILITIES_NEW = 17,
    JDWP_RT = 2,
    JDWP_RT_SIGNATURE = 1,
    JDWP_RT_CLASS_LOADER = 2,
    JDWP_RT_FIELDS = 4,
    JDWP_RT_METHODS = 5,
    JDWP_RT_GET_VALUES = 6,
    JDWP_RT_INSTANCES = 16,
    JDWP_CT = 3,
    JDWP_CT_SUPERCLASS = 1,
    JDWP_CT_INVOKE = 3,
    JDWP_CT_NEW_INSTANCE = 4,
    JDWP_OR = 9,
    JDWP_OR_REFERENCE_TYPE = 1,
    JDWP_OR_GET_VALUES = 2,
    JDWP_OR_INVOKE = 6,
    JDWP_OR_DISABLE_GC = 7,
    JDWP_OR_ENABLE_GC = 8,
    JDWP_AR = 13,
    JDWP_AR_LENGTH = 1,
    JDWP_AR_GET_VALUES = 2,
    JDWP_TR = 11,
    JDWP_TR_NAME = 1,
    JDWP_ER = 15,
    JDWP_ER_SET = 1,
    JDWP_ER_CLEAR = 2,
    JDWP_COR = 17,
    JDWP_COR_REFLECTED_TYPE = 1,
    JDWP_EV = 64,
    JDWP_EV_COMPOSITE = 100,
};

/* Event kinds and suspend policies we use. */
enum { JDWP_EK_METHOD_ENTRY = 40, JDWP_EK_VM_DEATH = 99 };
enum { JDWP_SUSPEND_NONE = 0, JDWP_SUSPEND_THREAD = 1, JDWP_SUSPEND_ALL = 2 };

/* A few error codes callers branch on; the wire layer names them all in its messages. */
enum {
    JDWP_ERR_NONE = 0,
    JDWP_ERR_INVALID_THREAD = 10,
    JDWP_ERR_THREAD_NOT_SUSPENDED = 13,
    JDWP_ERR_INVALID_OBJECT = 20,
    JDWP_ERR_INVALID_CLASS = 21,
    JDWP_ERR_NOT_IMPLEMENTED = 99,
    JDWP_ERR_VM_DEAD = 112,
    JDWP_ERR_ALREADY_INVOKING = 502,
    /* Not a JDWP code: the last wait timed out (jdwp_last_error). */
    JDWP_ERR_TIMEOUT = -1,
};

/* A received packet: a reply (is_reply) or a command sent by the VM (an event). */
typedef struct jdwp_packet {
    struct jdwp_packet *next;
    uint32_t id;
    int is_reply;
    uint16_t error;      /* replies only */
    uint8_t cmdset, cmd; /* commands only */
    uint8_t *data;
    size_t len;
} jdwp_packet;

/* Outgoing command data, grown as needed (through the host's allocator: it never fails). */
typedef struct jdwp_out {
    uint8_t *p;
    size_t len, cap;
} jdwp_out;

/* Reading a reply; any overrun sets bad and yields zeros, checked once at the end. */
typedef struct jdwp_in {
    const uint8_t *p;
    size_t len, pos;
    int bad;
} jdwp_in;

/* A tagged JDWP value; objects, arrays, strings, ... carry their id in v. */
typedef struct jdwp_value {
    uint8_t tag;
    uint64_t v;
} jdwp_value;

typedef struct jdwp_conn jdwp_conn;

/* Connects to HOST:PORT over TCP within timeout_ms; fills *fd. */
int jdwp_tcp_connect(const char *hostport, int timeout_ms, int *fd, char *err, size_t errlen);

/* Takes ownership of fd: handshake, IDSizes. timeout_ms is the default wait for a reply.
 * On failure fd is closed. */
int jdwp_conn_open(jdwp_conn **out, int fd, int timeout_ms, char *err, size_t errlen);
/* Resumes the VM and sends VirtualMachine.Dispose (best effort, bounded), closes the fd, frees. */
void jdwp_conn_close(jdwp_conn *c);
/* Non-zero once the stream is unusable (peer gone, timeout mid-packet, protocol error). */
int jdwp_conn_dead(const jdwp_conn *c);
int jdwp_conn_timeout(const jdwp_conn *c);
/* The VM's id sizes, in the order VirtualMachine.IDSizes lists them. */
typedef enum {
    JDWP_ID_FIELD,
    JDWP_ID_METHOD,
    JDWP_ID_OBJECT,
    JDWP_ID_REFTYPE,
    JDWP_ID_FRAME,
    JDWP_ID_KINDS
} jdwp_id_kind;
size_t jdwp_id_size(const jdwp_conn *c, jdwp_id_kind k);
/* Error code of the last reply waited for (0 if none, JDWP_ERR_TIMEOUT if it never came). */
int jdwp_last_error(const jdwp_conn *c);

/* Sends a command; *id identifies its reply. */
int jdwp_send(jdwp_conn *c, uint8_t cmdset, uint8_t cmd, const jdwp_out *o, uint32_t *id, char *err, size_t errlen);
/* Waits up to timeout_ms (<0: connection default) for the reply to id. Events read meanwhile are
 * queued, other replies stashed. A JDWP error in the reply fails with "WHAT: NAME (code)". The caller
 * frees *reply with jdwp_packet_free. */
int jdwp_wait_reply(jdwp_conn *c, uint32_t id, int timeout_ms, const char *what, jdwp_packet **reply, char *err,
                    size_t errlen);
/* send + wait_reply. */
int jdwp_call(jdwp_conn *c, uint8_t cmdset, uint8_t cmd, const jdwp_out *o, int timeout_ms, const char *what,
              jdwp_packet **reply, char *err, size_t errlen);
/* Next event packet (Event.Composite), queued or read, within timeout_ms; 1 = got one, 0 = timeout. */
int jdwp_next_event(jdwp_conn *c, int timeout_ms, jdwp_packet **ev, char *err, size_t errlen);
void jdwp_packet_free(jdwp_packet *p);

void jdwp_out_free(jdwp_out *o);
void jdwp_out_u8(jdwp_out *o, uint8_t v);
void jdwp_out_u32(jdwp_out *o, uint32_t v);
void jdwp_out_id(jdwp_out *o, size_t size, uint64_t v);
void jdwp_out_str(jdwp_out *o, const char *s);
void jdwp_out_value(jdwp_out *o, const jdwp_conn *c, jdwp_value v);

void jdwp_in_init(jdwp_in *in, const jdwp_packet *p);
uint8_t jdwp_in_u8(jdwp_in *in);
uint32_t jdwp_in_u32(jdwp_in *in);
uint64_t jdwp_in_u64(jdwp_in *in);
uint64_t jdwp_in_id(jdwp_in *in, size_t size);
/* Returns a malloc'd NUL-terminated copy (NULL and bad on overrun or OOM). */
char *jdwp_in_str(jdwp_in *in);
/* Skips a string without copying. */
void jdwp_in_skip_str(jdwp_in *in);
jdwp_value jdwp_in_value(jdwp_in *in, const jdwp_conn *c); /* tagged */
const uint8_t *jdwp_in_bytes(jdwp_in *in, size_t n);

#endif
