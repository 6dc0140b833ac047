/* Device services over the adb server: shell (legacy and shell protocol v2) and sync (STAT,
 * RECV, pull to a file). */
#ifndef HK_ADB_SERVICES_H
#define HK_ADB_SERVICES_H

#include <stddef.h>
#include <stdint.h>

#include "adb_conn.h"

/* Runs `cmd` on the device.  With use_v2 (the device lists shell_v2) the command runs through
 * shell,v2,raw: and *exit_code gets its exit status; otherwise through shell: and *exit_code is
 * -1 (unknown).  stdout and stderr are merged into *out (malloc'd, NUL-terminated).
 * timeout_ms bounds each wait for output (0: adb->timeout_ms). */
int hk_adb_shell(hk_adb *adb, const char *serial, const char *cmd, int use_v2, int timeout_ms, char **out,
                 size_t *outlen, int *exit_code, char *err, size_t errlen);

/* Progress of a transfer: bytes done of total (total 0 when unknown). */
typedef void (*hk_adb_progress_fn)(void *ctx, uint64_t done, uint64_t total);

/* sync: RECV into a temp file beside `local`, then rename.  When expected_size >= 0 the byte count
 * must match it (otherwise the STAT size is used for the check).  The local file appears only
 * when complete. */
int hk_adb_pull(hk_adb *adb, const char *serial, const char *remote, const char *local, int64_t expected_size,
                hk_adb_progress_fn progress, void *ctx, char *err, size_t errlen);

#endif
