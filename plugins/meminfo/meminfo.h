/* Public, host-independent API of the meminfo plugin's parsers.
 * Both return 0 and append one JSON document to *json_out, or return -1 and
 * fill err with a one-line message (json_out is then left untouched). */
#ifndef MEMINFO_H
#define MEMINFO_H

#include <stddef.h>
#include "mi_buf.h"

/* `dumpsys meminfo <pid|package>` text -> JSON (see README in plugins/meminfo). */
int mi_parse(const char *text, size_t len, mi_buf *json_out, char *err, size_t errlen);

/* /proc/PID/smaps text -> JSON, classified like android_os_Debug. */
int mi_smaps(const char *text, size_t len, mi_buf *json_out, char *err, size_t errlen);

#endif
