/* Whole-file reads and writes that never leave a half-written file behind. */
#ifndef HK_FILE_H
#define HK_FILE_H

#include <stddef.h>

#include "util/hk_buf.h"

/* Writes data to a temporary file in path's directory, fsyncs it and renames it over path,
 * so readers see the old file or the complete new one, never a part. */
int hk_file_write_atomic(const char *path, const void *data, size_t n, char *err, size_t errlen);
/* Appends the whole file to out. */
int hk_file_read_all(const char *path, hk_buf *out, char *err, size_t errlen);

#endif
