/* The one way the library layers (hprof, graph, bitmap, device, util, trace, map) tell a person
 * something: they never write to a terminal themselves. The program that owns the terminal (the
 * CLI, a test harness) installs a sink; without one, messages are dropped. Progress lines are
 * transient (a sink may show them on one overwritten line, only on a terminal); an empty progress
 * message means "the phase ended, clear the line". */
#ifndef HK_REPORT_H
#define HK_REPORT_H

typedef enum { HK_REPORT_PROGRESS, HK_REPORT_NOTE, HK_REPORT_WARNING } hk_report_kind;

typedef void (*hk_report_fn)(void *ctx, hk_report_kind kind, const char *msg);

/* Installs the sink (NULL drops everything); returns nothing: one sink per process. */
void hk_report_set(hk_report_fn fn, void *ctx);

/* Formats and hands one message to the sink. */
void hk_report(hk_report_kind kind, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Whether a sink shows progress at all: lets a layer skip formatting progress nobody sees. */
int hk_report_wants_progress(void);

/* The sink the CLI installs: progress on one overwritten stderr line when stderr is a terminal,
 * notes and warnings as "hprofkit: note: ..." / "hprofkit: warning: ..." lines always. */
void hk_report_stderr(void *ctx, hk_report_kind kind, const char *msg);

#endif
