/* Whole-file reads and writes that never leave a half-written file behind. */
#ifndef HK_FILE_H
#define HK_FILE_H

#include <stddef.h>
#include <sys/types.h>
#include <stdint.h>

#include "util/hk_buf.h"

/* Writes data to a temporary file in path's directory, fsyncs it and renames it over path,
 * so readers see the old file or the complete new one, never a part. */
int hk_file_write_atomic(const char *path, const void *data, size_t n, char *err, size_t errlen);
/* The same for a file written in pieces: open makes the temporary file beside path, write
 * appends to it, commit puts it in place (fsync, rename), abort removes it.  After commit or
 * abort (commit calls abort itself when it fails) the struct holds nothing.  Where the
 * filesystem allows, the temporary file has no name until commit (O_TMPFILE), so even SIGKILL
 * leaves nothing behind; else it is `path.tmp.XXXXXX`, removed on a signal (cli_signals.c).
 * A device or a pipe (/dev/null, /dev/stdout) is opened and written in place, never replaced. */
typedef struct hk_atomic_file {
    int fd;
    char *tmp;
    const char *path;
    int named; /* tmp names the file (mkstemp, or linked at commit) */
} hk_atomic_file;
int hk_file_atomic_open(hk_atomic_file *f, const char *path, char *err, size_t errlen);
int hk_file_atomic_write(hk_atomic_file *f, const void *data, size_t n, char *err, size_t errlen);
int hk_file_atomic_commit(hk_atomic_file *f, char *err, size_t errlen);
void hk_file_atomic_abort(hk_atomic_file *f);
/* Removes every temporary file an hk_file_atomic_open made and no commit or abort has yet
 * ended: for a signal handler or an out-of-memory end (async-signal-safe). */
void hk_file_remove_temps(void);

/* A scratch file no one else sees: created in TMPDIR (else /tmp) already unlinked, so it goes
 * away with its descriptor whatever ends the process.  Returns the fd, or -1 with err. */
int hk_file_scratch(char *err, size_t errlen);
/* All of data to fd; -1 with err (a full disk, say). */
int hk_file_write_fd(int fd, const void *data, size_t n, char *err, size_t errlen);
/* Bytes [off, off + n) of file from appended to file to (the kernel copies where it can). */
int hk_file_copy_range(int to, int from, uint64_t off, uint64_t n, char *err, size_t errlen);
/* Appends the whole file to out. */
int hk_file_read_all(const char *path, hk_buf *out, char *err, size_t errlen);
/* mkdir -p: dir and every missing folder above it (new ones with mode); 0 when dir is a
 * folder at the end, else -1 with err. */
int hk_file_make_dirs(const char *dir, mode_t mode, char *err, size_t errlen);

#endif
