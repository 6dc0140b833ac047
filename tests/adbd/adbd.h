/* What the test device daemon's files share: its config directory, output buffers and the
 * scripted process (curve). */
#ifndef HK_ADBD_H
#define HK_ADBD_H

#include <stddef.h>

typedef struct {
    char *p;
    size_t len, cap;
} buf_t;

#define CURVE_EPOCH 1700000000L /* device wall clock at step 0; step k is k seconds later */

typedef struct {
    int pid, gone, drop_ms;
    long up, alloc, size, native, pss, rss;
    char log[512];
} step_t;

extern char g_curve_name[256];

char *cfg_path(const char *name);
char *remote_to_local(const char *remote); /* a device path -> the file under CFG/root */
char *slurp(const char *path);             /* "" when missing; caller frees */
char *cfg_word(const char *name, char *buf, size_t n);
void bput(buf_t *b, const char *s, size_t n);
void bprintf(buf_t *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int curve_step(step_t *st, int *pos_out);

/* adbd_logcat.c */
int adbd_sdk(void);
int adbd_logcat(char **argv, int argc, buf_t *out, buf_t *errb);
int adbd_date(char **argv, int argc, buf_t *out);

/* adbd_perfetto.c: in is the command's stdin (NULL when none) */
int adbd_perfetto(char **argv, int argc, const buf_t *in, buf_t *out, buf_t *errb);
int adbd_kill(char **argv, int argc, buf_t *errb); /* kill [-0|-INT|-9] PID... */

/* adbd_fault.c: the fault a service meets (the config's `fault` file), and the stream of a
 * service that stalls or answers noise */
enum { FAULT_NONE, FAULT_DROP, FAULT_STALL, FAULT_GARBAGE, FAULT_SHORT };
int adbd_fault(const char *service);
int adbd_fault_stream(int action);
#endif
