/*
 * hk-adbd: a scripted test device that speaks the adb *transport* protocol (CNXN, AUTH, OPEN,
 * OKAY, WRTE, CLSE) over TCP, so the real adb server can `adb connect` to it.
 *
 *   hk-adbd -c CFGDIR [-s SERIAL] [-p PORT] [-P PORTFILE] [--mode normal|auth|silent|hangup] [--no-shell-v2]
 *   hk-adbd --free-port          print a currently free TCP port and exit
 *
 * Modes: normal answers CNXN and serves; auth answers CNXN with AUTH(TOKEN) and ignores the
 * signature (the server then lists the device as "unauthorized"); silent accepts the TCP
 * connection and never answers (the server lists it as "offline"); hangup poses as a broken adb
 * *server* for client tests: it answers the first request with OKAY and a partial length, then
 * closes.
 *
 * What the real adb server (Debian adb 29.0.6) does with these, found by trying:
 *   - auth: right after our AUTH(TOKEN) the device is "authorizing"; when we answer its
 *     SIGNATURE with a new TOKEN it sends its public key (AUTH type 3) and lists the device as
 *     "unauthorized" (`adb connect` prints "failed to authenticate to HOST:PORT").
 *   - silent: the device is listed as "offline" at once; `adb connect` itself waits about 10 s
 *     for the CNXN, prints "failed to connect to HOST:PORT", and the device stays listed offline.
 *
 * The config directory is read on every command, so a test can change behaviour between cases:
 *   props      lines KEY=VALUE (getprop)
 *   ps         text printed by `ps ...`
 *   packages   package names, one a line (`pm list packages` prints them as package:NAME)
 *   meminfo    text printed by `dumpsys meminfo ...`
 *   dumpheap   one word: ok | slow | notdebuggable | nob | exception | nofile
 *   jvm_pid    pid of the JVM that `am dumpheap` dumps with `jcmd PID GC.heap_dump` (live
 *              objects after a full GC with -g; every object, garbage included, without it)
 *   bitmap_dump  a file `am dumpheap -b png` copies instead of asking the JVM (which has no
 *              Bitmap.dumpData); absent: -b is accepted and ignored
 *   jdwp       lines "PID PORT": jdwp:PID is relayed to 127.0.0.1:PORT
 *   dump_file  a file `am dumpheap` copies (any options) instead of asking a JVM
 *   package    text printed by `dumpsys package NAME` (LARGE_HEAP in its flags: a large heap)
 *   no_pidof   present: the device has no pidof (before Android 6)
 *   curve      a scripted process for `watch` (see curve_* below): a line `name=PROCESS`, then one
 *              line per sample: pid=N up=SECONDS alloc=KB size=KB native=KB pss=KB rss=KB, and
 *              optionally `gone` (not running), `drop=MS` (the device goes away: the connection
 *              closes after this step and the next CNXN is answered MS later) and last
 *              `log=PID TID PRIO TAG: MESSAGE` (a logcat line of that step)
 *   curve.pos  the current step, kept by the daemon: each `dumpsys meminfo` serves the current
 *              step and moves to the next (pidof does, for a `gone` step); pidof, cat /proc/..., date, logcat and ps answer from
 *              the current one (the last step repeats)
 *   logcat     more log lines: "STEP BUFFER PID TID PRIO TAG: MESSAGE" (adbd_logcat.c says how
 *              logcat of the props' API level serves them); logcat_broken: logcat fails with it
 *   dmesg      the kernel's ring buffer for `dmesg` (absent: refused, as to the shell user)
 *   exitinfo   text printed by `dumpsys activity exit-info ...` (from curve step exitinfo_from on,
 *              when that file holds a step: the system records a death some time after it)
 *   root/      the device's file system (remote /data/local/tmp/x is root/data/local/tmp/x)
 *   last_dump.hprof  a hard link to the last file am dumpheap wrote (for tests to compare)
 *   fault      faults injected at a step: lines "SUBSTRING drop|stall|garbage|short" (adbd_fault.c)
 *   log        one line per OPENed service (appended)
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "adbd.h"

#define A_CNXN     0x4e584e43u
#define A_AUTH     0x48545541u
#define A_OPEN     0x4e45504fu
#define A_OKAY     0x59414b4fu
#define A_CLSE     0x45534c43u
#define A_WRTE     0x45545257u
#define A_VERSION  0x01000001u /* skip-checksum version: the host need not verify our sums */
#define MAXDATA    (256 * 1024)
#define MAXSTREAMS 64

static const char *g_cfg = ".";
static const char *g_serial = "hkdev";
static int g_shell_v2 = 1;
static const char *g_mode = "normal";

/* ---------- small helpers ---------- */

static int write_all(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static int read_all(int fd, void *buf, size_t n)
{
    char *p = buf;
    while (n > 0) {
        ssize_t r = read(fd, p, n);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return -1;
        p += r;
        n -= (size_t)r;
    }
    return 0;
}

char *cfg_path(const char *name)
{
    static char buf[4096];
    snprintf(buf, sizeof buf, "%s/%s", g_cfg, name);
    return buf;
}

/* Reads a whole config file; returns "" when it is missing.  Caller frees. */
char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return strdup("");
    size_t cap = 4096, len = 0;
    char *s = malloc(cap);
    size_t r;
    while ((r = fread(s + len, 1, cap - len - 1, f)) > 0) {
        len += r;
        if (cap - len < 2) s = realloc(s, cap *= 2);
    }
    s[len] = 0;
    fclose(f);
    return s;
}

char *cfg_word(const char *name, char *buf, size_t n)
{
    char *s = slurp(cfg_path(name));
    snprintf(buf, n, "%s", s);
    buf[strcspn(buf, " \t\r\n")] = 0;
    free(s);
    return buf;
}

char *remote_to_local(const char *remote)
{
    static char buf[8300];
    snprintf(buf, sizeof buf, "%s/root%s%s", g_cfg, remote[0] == '/' ? "" : "/", remote);
    return buf;
}

static void logf_(const char *fmt, ...)
{
    FILE *f = fopen(cfg_path("log"), "a");
    if (!f) return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
    fputc('\n', f);
    fclose(f);
}

/* ---------- growable output buffer ---------- */

void bput(buf_t *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        b->cap = (b->len + n + 1) * 2;
        b->p = realloc(b->p, b->cap);
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = 0;
}

void bprintf(buf_t *b, const char *fmt, ...)
{
    char tmp[8192];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n > 0) bput(b, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

/* ---------- the scripted process (curve) ---------- */

char g_curve_name[256];

static long curve_word(const char *line, const char *key)
{
    char pat[64];
    snprintf(pat, sizeof pat, " %s=", key);
    const char *p = strstr(line, pat);
    return p ? atol(p + strlen(pat)) : 0;
}

/* Reads the step at the current position (or *pos_out when asked); 0 when there is no curve. */
int curve_step(step_t *st, int *pos_out)
{
    char *s = slurp(cfg_path("curve"));
    char posbuf[32];
    int pos = atoi(cfg_word("curve.pos", posbuf, sizeof posbuf));
    int n = 0, found = 0;
    g_curve_name[0] = 0;
    for (char *save = NULL, *l = strtok_r(s, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        if (!strncmp(l, "name=", 5)) {
            snprintf(g_curve_name, sizeof g_curve_name, "%s", l + 5);
            continue;
        }
        if (strncmp(l, "pid=", 4)) continue;
        if (n <= pos || !found) {
            char line[1024];
            snprintf(line, sizeof line, " %s", l);
            char *log = strstr(line, " log=");
            memset(st, 0, sizeof *st);
            if (log) {
                snprintf(st->log, sizeof st->log, "%s", log + 5);
                *log = 0;
            }
            st->pid = (int)curve_word(line, "pid");
            st->up = curve_word(line, "up");
            st->alloc = curve_word(line, "alloc");
            st->size = curve_word(line, "size");
            st->native = curve_word(line, "native");
            st->pss = curve_word(line, "pss");
            st->rss = curve_word(line, "rss");
            st->drop_ms = (int)curve_word(line, "drop");
            st->gone = strstr(line, " gone") != NULL;
            found = 1;
            if (pos_out) *pos_out = n < pos ? n : pos;
        }
        n++;
    }
    free(s);
    return found;
}

static void curve_advance(void)
{
    char posbuf[32], tmp[64];
    int pos = atoi(cfg_word("curve.pos", posbuf, sizeof posbuf)) + 1;
    snprintf(tmp, sizeof tmp, "%d\n", pos);
    FILE *f = fopen(cfg_path("curve.pos"), "w");
    if (f) {
        fputs(tmp, f);
        fclose(f);
    }
}

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A modern (Android 10+) meminfo page whose numbers add up: Dalvik Heap Pss = alloc, Native
 * Heap Pss = native, the rest of the PSS is Unknown. */
static void curve_meminfo(const step_t *st, buf_t *out)
{
    long other = st->pss - st->alloc - st->native, orss = st->rss - st->alloc - st->native;
    if (other < 0) other = 0;
    if (orss < 0) orss = 0;
    long nsize = st->native + st->native / 4, nfree = nsize - st->native;
    long pss = st->alloc + st->native + other, rss = st->alloc + st->native + orss;
    bprintf(out, "Applications Memory Usage (in Kilobytes):\nUptime: %ld Realtime: %ld\n\n", (5000 + st->up) * 1000,
            (5000 + st->up) * 1000);
    bprintf(out, "** MEMINFO in pid %d [%s] **\n", st->pid, g_curve_name);
    bprintf(out, "                   Pss  Private  Private  SwapPss      Rss     Heap     Heap     Heap\n"
                 "                 Total    Dirty    Clean    Dirty    Total     Size    Alloc     Free\n"
                 "                ------   ------   ------   ------   ------   ------   ------   ------\n");
    bprintf(out, "  Native Heap %8ld %8ld %8d %8d %8ld %8ld %8ld %8ld\n", st->native, st->native, 0, 0, st->native,
            nsize, st->native, nfree);
    bprintf(out, "  Dalvik Heap %8ld %8ld %8d %8d %8ld %8ld %8ld %8ld\n", st->alloc, st->alloc, 0, 0, st->alloc,
            st->size, st->alloc, st->size - st->alloc);
    bprintf(out, "      Unknown %8ld %8ld %8d %8d %8ld\n", other, other, 0, 0, orss);
    bprintf(out, "        TOTAL %8ld %8ld %8d %8d %8ld %8ld %8ld %8ld\n\n", pss, pss, 0, 0, rss, nsize + st->size,
            st->native + st->alloc, nfree + st->size - st->alloc);
    bprintf(out, " App Summary\n                       Pss(KB)                        Rss(KB)\n"
                 "                        ------                         ------\n");
    bprintf(out, "           Java Heap: %8ld                       %8ld\n", st->alloc, st->alloc);
    bprintf(out, "         Native Heap: %8ld                       %8ld\n", st->native, st->native);
    bprintf(out, "       Private Other: %8ld\n\n", other);
    bprintf(out, "           TOTAL PSS: %8ld            TOTAL RSS: %8ld       TOTAL SWAP PSS: %8d\n", pss, rss, 0);
}

/* ---------- the device's commands ---------- */

/* Set per am command: -g asks for a GC first; without it the JVM dumps every object (-all),
 * so garbage stays in the dump as it does on a device. */
static int g_dump_gc = 1;

static int run_jcmd_dump(const char *file)
{
    char pidbuf[64];
    cfg_word("jvm_pid", pidbuf, sizeof pidbuf);
    pid_t c = fork();
    if (c == 0) {
        int dn = open("/dev/null", O_RDWR);
        dup2(dn, 0);
        dup2(dn, 1);
        dup2(dn, 2);
        if (g_dump_gc) execlp("jcmd", "jcmd", pidbuf, "GC.heap_dump", file, (char *)NULL);
        else execlp("jcmd", "jcmd", pidbuf, "GC.heap_dump", "-all", file, (char *)NULL);
        _exit(127);
    }
    int st = 0;
    if (c < 0 || waitpid(c, &st, 0) < 0) return -1;
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

static int copy_file(const char *from, const char *to)
{
    int in = open(from, O_RDONLY), o = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    char b[65536];
    ssize_t r = 0;
    while (in >= 0 && o >= 0 && (r = read(in, b, sizeof b)) > 0)
        if (write_all(o, b, (size_t)r) != 0) {
            r = -1;
            break;
        }
    int ok = in >= 0 && o >= 0 && r == 0;
    if (in >= 0) close(in);
    if (o >= 0 && close(o) != 0) ok = 0;
    return ok ? 0 : -1;
}

static void keep_copy(const char *file)
{
    unlink(cfg_path("last_dump.hprof"));
    if (link(file, cfg_path("last_dump.hprof")) != 0) { /* best effort */
    }
}

static const char *k_stack =
    "\tat android.os.Parcel.createExceptionOrNull(Parcel.java:3069)\n"
    "\tat android.os.Parcel.createException(Parcel.java:3053)\n"
    "\tat android.os.Parcel.readException(Parcel.java:3036)\n"
    "\tat android.os.Parcel.readException(Parcel.java:2978)\n"
    "\tat android.app.IActivityManager$Stub$Proxy.dumpHeap(IActivityManager.java:9876)\n"
    "\tat com.android.server.am.ActivityManagerShellCommand.runDumpHeap(ActivityManagerShellCommand.java:1234)\n"
    "\tat com.android.server.am.ActivityManagerShellCommand.onCommand(ActivityManagerShellCommand.java:245)\n"
    "\tat com.android.modules.utils.BasicShellCommandHandler.exec(BasicShellCommandHandler.java:97)\n"
    "\tat android.os.ShellCommand.exec(ShellCommand.java:38)\n"
    "\tat com.android.server.am.ActivityManagerService.onShellCommand(ActivityManagerService.java:10012)\n"
    "\tat android.os.Binder.shellCommand(Binder.java:1107)\n"
    "\tat android.os.Binder.onTransact(Binder.java:921)\n";

static int cmd_am_dumpheap(char **argv, int argc, buf_t *out, buf_t *errb)
{
    int i = 2, want_b = 0;
    g_dump_gc = 0;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (!strcmp(argv[i], "-b")) {
            want_b = 1;
            i++;
        } else if (!strcmp(argv[i], "-g")) g_dump_gc = 1;
        else if (!strcmp(argv[i], "--user")) i++;
    }
    if (argc - i != 2) {
        bprintf(errb, "Error: expected PROCESS FILE\n");
        return 255;
    }
    const char *proc = argv[i], *remote = argv[i + 1];
    char mode[64];
    cfg_word("dumpheap", mode, sizeof mode);
    if (!mode[0]) strcpy(mode, "ok");
    if (!strcmp(mode, "nob") && want_b) {
        /* a real combination: the rejection comes back with exit code 0 */
        bprintf(errb, "Error: Unknown option: -b\n");
        return 0;
    }
    if (!strcmp(mode, "notdebuggable")) {
        bprintf(errb,
                "Exception occurred while executing 'dumpheap':\n"
                "java.lang.SecurityException: Process not debuggable: ProcessRecord{5e2a1b 4242:%s/u0a190}\n%s",
                proc, k_stack);
        return 255;
    }
    if (!strcmp(mode, "exception")) {
        bprintf(errb,
                "Exception occurred while executing 'dumpheap':\n"
                "java.lang.IllegalStateException: heap dump already in progress\n%s",
                k_stack);
        return 255;
    }
    const char *file = remote_to_local(remote);
    char fbuf[8400];
    snprintf(fbuf, sizeof fbuf, "%s", file);
    if (!strcmp(mode, "nofile")) {
        bprintf(out, "File: %s\n", remote);
        return 0;
    }
    if (!strcmp(mode, "slow")) {
        /* Like older Android: am returns at once, the file is created empty and grows later. */
        int fd = open(fbuf, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) close(fd);
        pid_t c = fork();
        if (c == 0) {
            setsid();
            int dn = open("/dev/null", O_RDWR);
            dup2(dn, 0);
            dup2(dn, 1);
            dup2(dn, 2);
            for (int f = 3; f < 256; f++)
                if (f != dn) close(f);
            char tmp[8500];
            snprintf(tmp, sizeof tmp, "%s.full", fbuf);
            unlink(tmp);
            usleep(1200 * 1000);
            if (run_jcmd_dump(tmp) != 0) _exit(1);
            int in = open(tmp, O_RDONLY);
            int o = open(fbuf, O_WRONLY | O_TRUNC);
            struct stat st;
            if (in < 0 || o < 0 || fstat(in, &st) != 0) _exit(1);
            size_t chunk = (size_t)st.st_size / 6 + 1;
            char *b = malloc(chunk);
            ssize_t r;
            while ((r = read(in, b, chunk)) > 0) {
                if (write_all(o, b, (size_t)r) != 0) _exit(1);
                usleep(300 * 1000);
            }
            close(o);
            close(in);
            unlink(tmp);
            keep_copy(fbuf);
            _exit(0);
        }
        bprintf(out, "File: %s\n", remote);
        return 0;
    }
    /* ok: like API 36, block until the dump is written */
    bprintf(out, "File: %s\nWaiting for dump to finish...\n", remote);
    unlink(fbuf);
    /* a prepared file instead of the JVM: dump_file always, bitmap_dump for -b */
    char *src = slurp(cfg_path("dump_file"));
    src[strcspn(src, "\r\n")] = 0;
    if (!*src && want_b) {
        free(src);
        src = slurp(cfg_path("bitmap_dump"));
        src[strcspn(src, "\r\n")] = 0;
    }
    if (*src) {
        int rc = copy_file(src, fbuf);
        free(src);
        if (rc != 0) {
            bprintf(errb,
                    "Exception occurred while executing 'dumpheap':\n"
                    "java.io.IOException: cannot write %s\n%s",
                    remote, k_stack);
            return 255;
        }
        keep_copy(fbuf);
        return 0;
    }
    free(src);
    if (run_jcmd_dump(fbuf) != 0) {
        bprintf(errb,
                "Exception occurred while executing 'dumpheap':\n"
                "java.lang.IllegalArgumentException: Unknown process: %s\n%s",
                proc, k_stack);
        return 255;
    }
    keep_copy(fbuf);
    return 0;
}

/* ls DIR: the names in a directory of the device, one a line */
static int adbd_ls(const char *remote, buf_t *out, buf_t *errb)
{
    DIR *d = opendir(remote_to_local(remote));
    if (!d) {
        bprintf(errb, "ls: %s: No such file or directory\n", remote);
        return 1;
    }
    for (struct dirent *e; (e = readdir(d));)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) bprintf(out, "%s\n", e->d_name);
    closedir(d);
    return 0;
}

/* Splits a command line into words as sh does for the commands we serve: quotes ('...',
 * "...") group words and are removed; "2>&1" is dropped (stdout and stderr reach the host
 * together anyway); $? is the status of the command before. */
static int split_words(char *line, char **argv, int max, int last_rc, int *merge)
{
    static char subs[4][256];
    int argc = 0, nsub = 0;
    char *r = line, *w = line;
    while (*r && argc < max) {
        while (*r == ' ' || *r == '\t' || *r == '\n') r++;
        if (!*r) break;
        char *word = w, q = 0;
        for (; *r && (q || (*r != ' ' && *r != '\t' && *r != '\n')); r++) {
            if (!q && (*r == '\'' || *r == '"')) q = *r;
            else if (q && *r == q) q = 0;
            else *w++ = *r;
        }
        if (*r) r++;
        *w++ = 0;
        if (!strcmp(word, "2>&1")) {
            *merge = 1;
            continue;
        }
        char *dq = strstr(word, "$?");
        if (dq && nsub < 4) { /* the status of the command before, wherever it stands in the word */
            snprintf(subs[nsub], sizeof subs[nsub], "%.*s%d%s", (int)(dq - word), word, last_rc, dq + 2);
            word = subs[nsub++];
        }
        argv[argc++] = word;
    }
    return argc;
}

static int run_one(char *line, buf_t *out, buf_t *errb, int last_rc);
static int run_words(char **argv, int argc, buf_t *out, buf_t *errb);

/* "a; b; c": each in turn, the status of the last */
static int run_command(char *line, buf_t *out, buf_t *errb)
{
    int rc = 0;
    char *save = NULL;
    for (char *part = strtok_r(line, ";", &save); part; part = strtok_r(NULL, ";", &save))
        rc = run_one(part, out, errb, rc);
    return rc;
}

/* stdin of the command on the right of a pipe: what the left one printed */
static const buf_t *g_stdin;

/* The first '|' outside quotes, or NULL. */
static char *pipe_at(char *line)
{
    char q = 0;
    for (char *p = line; *p; p++) {
        if (!q && (*p == '\'' || *p == '"')) q = *p;
        else if (q && *p == q) q = 0;
        else if (!q && *p == '|') return p;
    }
    return NULL;
}

static int run_one(char *line, buf_t *out, buf_t *errb, int last_rc)
{
    char *bar = pipe_at(line);
    if (bar) { /* "a | b": b reads what a printed */
        *bar = 0;
        buf_t left = {0};
        run_one(line, &left, errb, last_rc);
        g_stdin = &left;
        int rc = run_one(bar + 1, out, errb, last_rc);
        g_stdin = NULL;
        free(left.p);
        return rc;
    }
    char *argv[64];
    int merge = 0, argc = split_words(line, argv, 63, last_rc, &merge);
    if (merge) { /* 2>&1: the command's stderr joins its stdout, in order */
        buf_t err2 = {0};
        int rc = run_words(argv, argc, out, &err2);
        if (err2.len) bput(out, err2.p, err2.len);
        free(err2.p);
        return rc;
    }
    return run_words(argv, argc, out, errb);
}

static int run_words(char **argv, int argc, buf_t *out, buf_t *errb)
{
    argv[argc] = NULL;
    if (argc == 0) return 0;
    if (!strcmp(argv[0], "getprop")) {
        char *props = slurp(cfg_path("props"));
        for (char *l = strtok(props, "\n"); l; l = strtok(NULL, "\n")) {
            char *eq = strchr(l, '=');
            if (!eq) continue;
            *eq = 0;
            if (argc == 1) bprintf(out, "[%s]: [%s]\n", l, eq + 1);
            else if (!strcmp(argv[1], l)) bprintf(out, "%s\n", eq + 1);
        }
        if (argc > 1 && out->len == 0) bprintf(out, "\n");
        free(props);
        return 0;
    }
    step_t st;
    if (!strcmp(argv[0], "ps")) {
        char *s = slurp(cfg_path("ps"));
        bput(out, s, strlen(s));
        free(s);
        if (curve_step(&st, NULL) && !st.gone) bprintf(out, "%d %s\n", st.pid, g_curve_name);
        return 0;
    }
    if (!strcmp(argv[0], "pidof") && argc == 2 && access(cfg_path("no_pidof"), F_OK) != 0) {
        if (curve_step(&st, NULL) && !strcmp(argv[1], g_curve_name)) {
            if (st.gone) {
                curve_advance(); /* no meminfo follows for a process that is not running */
                return 1;
            }
            bprintf(out, "%d\n", st.pid);
            return 0;
        }
        return 1;
    }
    if (!strcmp(argv[0], "date") && adbd_date(argv, argc, out) == 0) return 0;
    if (!strcmp(argv[0], "cat")) {
        int have = curve_step(&st, NULL), rc = 0;
        for (int i = 1; i < argc; i++) {
            char want[64];
            snprintf(want, sizeof want, "/proc/%d/stat", st.pid);
            if (have && !strcmp(argv[i], "/proc/uptime")) {
                bprintf(out, "%ld.00 %ld.00\n", 5000 + st.up, 4000 + st.up);
            } else if (have && !st.gone && !strcmp(argv[i], want)) {
                /* field 22 is the start time in clock ticks (100 a second) since boot; the name
                 * holds ") " as a name may */
                bprintf(out, "%d (%.12s) x) S 1 1 0 0 -1 4194624 1 0 0 0 1 1 0 0 20 0 30 0 %ld 1000 100 0\n", st.pid,
                        g_curve_name, 5000L * 100);
            } else {
                char *c = NULL;
                FILE *f = fopen(remote_to_local(argv[i]), "rb");
                if (!f) {
                    bprintf(errb, "cat: %s: No such file or directory\n", argv[i]);
                    rc = 1;
                    continue;
                }
                fclose(f);
                c = slurp(remote_to_local(argv[i]));
                bput(out, c, strlen(c));
                free(c);
            }
        }
        return rc;
    }
    if (!strcmp(argv[0], "logcat")) return adbd_logcat(argv, argc, out, errb);
    if (!strcmp(argv[0], "perfetto")) return adbd_perfetto(argv, argc, g_stdin, out, errb);
    if (!strcmp(argv[0], "kill")) return adbd_kill(argv, argc, errb);
    if (!strcmp(argv[0], "dmesg")) {
        char *s = slurp(cfg_path("dmesg"));
        int rc = *s ? 0 : 1;
        if (*s) bput(out, s, strlen(s));
        else bprintf(errb, "dmesg: klogctl: Operation not permitted\n");
        free(s);
        return rc;
    }
    if (!strcmp(argv[0], "dumpsys") && argc >= 3 && !strcmp(argv[1], "activity") && !strcmp(argv[2], "exit-info")) {
        char from[32];
        int pos = 0;
        if (curve_step(&st, &pos) && pos < atoi(cfg_word("exitinfo_from", from, sizeof from))) return 0;
        char *s = slurp(cfg_path("exitinfo"));
        bput(out, s, strlen(s));
        free(s);
        return 0;
    }
    if (!strcmp(argv[0], "dumpsys") && argc >= 3 && !strcmp(argv[1], "package")) {
        char *s = slurp(cfg_path("package"));
        bput(out, s, strlen(s));
        free(s);
        return 0;
    }
    if (!strcmp(argv[0], "dumpsys") && argc >= 3 && !strcmp(argv[1], "meminfo") && curve_step(&st, NULL)) {
        if (st.gone || atoi(argv[2]) != st.pid) bprintf(out, "No process found for: %s\n", argv[2]);
        else curve_meminfo(&st, out);
        curve_advance();
        if (st.drop_ms > 0) {
            /* the device goes away: no answer, the connection closes, it comes back drop_ms later */
            char b[64];
            snprintf(b, sizeof b, "%lld\n", now_ms() + st.drop_ms);
            FILE *f = fopen(cfg_path("offline_until"), "w");
            if (f) {
                fputs(b, f);
                fclose(f);
            }
            kill(getppid(), SIGKILL);
            _exit(0);
        }
        return 0;
    }
    if (!strcmp(argv[0], "pm") && argc >= 3 && !strcmp(argv[1], "list") && !strcmp(argv[2], "packages")) {
        char *s = slurp(cfg_path("packages"));
        for (char *l = strtok(s, "\n"); l; l = strtok(NULL, "\n"))
            if (*l) bprintf(out, "package:%s\n", l);
        free(s);
        return 0;
    }
    if (!strcmp(argv[0], "dumpsys") && argc >= 2 && !strcmp(argv[1], "meminfo")) {
        char *s = slurp(cfg_path("meminfo"));
        bput(out, s, strlen(s));
        free(s);
        return 0;
    }
    if (!strcmp(argv[0], "am") && argc >= 2 && !strcmp(argv[1], "dumpheap"))
        return cmd_am_dumpheap(argv, argc, out, errb);
    if (!strcmp(argv[0], "stat") && argc == 4 && !strcmp(argv[1], "-c") && !strcmp(argv[2], "%s")) {
        struct stat st;
        if (stat(remote_to_local(argv[3]), &st) != 0) {
            bprintf(errb, "stat: '%s': No such file or directory\n", argv[3]);
            return 1;
        }
        bprintf(out, "%lld\n", (long long)st.st_size);
        return 0;
    }
    if (!strcmp(argv[0], "rm")) {
        int rc = 0;
        for (int i = 1; i < argc; i++) {
            if (argv[i][0] == '-') continue;
            if (unlink(remote_to_local(argv[i])) != 0) {
                bprintf(errb, "rm: %s: No such file or directory\n", argv[i]);
                rc = 1;
            }
        }
        return rc;
    }
    if (!strcmp(argv[0], "ls") && argc == 2) return adbd_ls(argv[1], out, errb);
    if (!strcmp(argv[0], "echo")) {
        for (int i = 1; i < argc; i++) bprintf(out, "%s%s", i > 1 ? " " : "", argv[i]);
        bprintf(out, "\n");
        return 0;
    }
    if (!strcmp(argv[0], "exit") && argc == 2) return atoi(argv[1]);
    bprintf(errb, "/system/bin/sh: %s: inaccessible or not found\n", argv[0]);
    return 127;
}

/* ---------- services (each runs in its own process on one end of a socketpair) ---------- */

static void shell_packet(int fd, int id, const char *data, size_t n)
{
    unsigned char h[5] = {(unsigned char)id, (unsigned char)(n & 0xff), (unsigned char)((n >> 8) & 0xff),
                          (unsigned char)((n >> 16) & 0xff), (unsigned char)((n >> 24) & 0xff)};
    write_all(fd, h, 5);
    if (n) write_all(fd, data, n);
}

static void service_shell(int fd, char *cmd, int v2, int fault)
{
    buf_t out = {0}, errb = {0};
    int rc = run_command(cmd, &out, &errb);
    if (fault == FAULT_SHORT) { /* the first half of what it said, then the stream ends: no exit code */
        if (v2) shell_packet(fd, 1, out.p, out.len / 2);
        else write_all(fd, out.p, out.len / 2);
        return;
    }
    if (v2) {
        if (out.len) shell_packet(fd, 1, out.p, out.len);
        if (errb.len) shell_packet(fd, 2, errb.p, errb.len);
        unsigned char code = (unsigned char)rc;
        shell_packet(fd, 3, (char *)&code, 1);
    } else {
        /* the legacy shell service merges stderr into the stream and has no exit code */
        if (out.len) write_all(fd, out.p, out.len);
        if (errb.len) write_all(fd, errb.p, errb.len);
    }
    free(out.p);
    free(errb.p);
}

static void put32(unsigned char *p, uint32_t v)
{
    p[0] = v & 0xff;
    p[1] = (v >> 8) & 0xff;
    p[2] = (v >> 16) & 0xff;
    p[3] = (v >> 24) & 0xff;
}
static uint32_t get32(const unsigned char *p)
{
    return p[0] | (p[1] << 8) | (p[2] << 16) | ((uint32_t)p[3] << 24);
}

static void sync_fail(int fd, const char *msg)
{
    unsigned char h[8];
    memcpy(h, "FAIL", 4);
    put32(h + 4, (uint32_t)strlen(msg));
    write_all(fd, h, 8);
    write_all(fd, msg, strlen(msg));
}

static void service_sync(int fd, int fault)
{
    for (;;) {
        unsigned char h[8];
        if (read_all(fd, h, 8) != 0) return;
        uint32_t n = get32(h + 4);
        if (!memcmp(h, "QUIT", 4)) return;
        if (n > 4096) return;
        char path[4097];
        if (read_all(fd, path, n) != 0) return;
        path[n] = 0;
        const char *local = remote_to_local(path);
        if (!memcmp(h, "STAT", 4)) {
            struct stat st;
            unsigned char r[16] = {0};
            memcpy(r, "STAT", 4);
            if (stat(local, &st) == 0) {
                put32(r + 4, st.st_mode);
                put32(r + 8, (uint32_t)st.st_size);
                put32(r + 12, (uint32_t)st.st_mtime);
            }
            write_all(fd, r, 16);
        } else if (!memcmp(h, "RECV", 4)) {
            int in = open(local, O_RDONLY);
            if (in < 0) {
                sync_fail(fd, strerror(errno));
                continue;
            }
            static char b[65536 + 8];
            ssize_t r;
            struct stat fst;
            off_t left = fault == FAULT_SHORT && fstat(in, &fst) == 0 ? fst.st_size / 2 : -1;
            while ((r = read(in, b + 8, left >= 0 && left < 65536 ? (size_t)left : 65536)) > 0) {
                if (left >= 0) left -= r;
                memcpy(b, "DATA", 4);
                put32((unsigned char *)b + 4, (uint32_t)r);
                if (write_all(fd, b, (size_t)r + 8) != 0) {
                    close(in);
                    return;
                }
            }
            close(in);
            unsigned char d[8] = {'D', 'O', 'N', 'E', 0, 0, 0, 0};
            write_all(fd, d, 8);
        } else if (!memcmp(h, "LIST", 4)) {
            unsigned char d[20] = {'D', 'O', 'N', 'E'};
            write_all(fd, d, 20);
        } else {
            sync_fail(fd, "unsupported sync request");
            return;
        }
    }
}

/* Starts a service; returns the fd that carries its byte stream, or -1 when it does not exist. */
static int open_service(const char *name)
{
    logf_("OPEN %s", name);
    int fault = adbd_fault(name);
    if (fault == FAULT_DROP) _exit(0); /* the transport's process: the TCP connection closes */
    if (fault == FAULT_STALL || (fault == FAULT_GARBAGE)) return adbd_fault_stream(fault);
    if (!strncmp(name, "jdwp:", 5)) {
        char *s = slurp(cfg_path("jdwp"));
        int port = 0, want = atoi(name + 5);
        for (char *l = strtok(s, "\n"); l; l = strtok(NULL, "\n")) {
            int p, q;
            if (sscanf(l, "%d %d", &p, &q) == 2 && p == want) port = q;
        }
        free(s);
        if (!port) return -1;
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
            close(fd);
            return -1;
        }
        return fd;
    }
    int kind = 0; /* 1 shell, 2 shell v2, 3 sync */
    const char *cmd = "";
    if (!strncmp(name, "shell:", 6) || !strncmp(name, "exec:", 5)) {
        kind = 1;
        cmd = strchr(name, ':') + 1;
    } else if (!strncmp(name, "shell,", 6)) {
        const char *colon = strchr(name, ':');
        if (!colon) return -1;
        int v2 = 0;
        for (const char *p = name + 5; p < colon; p++)
            if (!strncmp(p, ",v2", 3)) v2 = 1;
        if (v2 && !g_shell_v2) return -1;
        kind = v2 ? 2 : 1;
        cmd = colon + 1;
    } else if (!strcmp(name, "sync:")) {
        kind = 3;
    } else {
        return -1;
    }
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) return -1;
    pid_t c = fork();
    if (c < 0) {
        close(sv[0]);
        close(sv[1]);
        return -1;
    }
    if (c == 0) {
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        signal(SIGCHLD, SIG_DFL); /* the transport ignores it; we wait for jcmd */
        close(sv[0]);
        char *dup = strdup(cmd);
        if (kind == 3) service_sync(sv[1], fault);
        else service_shell(sv[1], dup, kind == 2, fault);
        _exit(0);
    }
    close(sv[1]);
    return sv[0];
}

/* ---------- the transport ---------- */

typedef struct {
    int used;
    uint32_t local, remote;
    int fd;
    int can_send; /* the host acknowledged our last WRTE */
} stream_t;

static int send_msg(int t, uint32_t cmd, uint32_t a0, uint32_t a1, const void *data, uint32_t n)
{
    unsigned char h[24];
    uint32_t sum = 0;
    for (uint32_t i = 0; i < n; i++) sum += ((const unsigned char *)data)[i];
    put32(h, cmd);
    put32(h + 4, a0);
    put32(h + 8, a1);
    put32(h + 12, n);
    put32(h + 16, sum);
    put32(h + 20, cmd ^ 0xffffffffu);
    if (write_all(t, h, 24) != 0) return -1;
    return n ? write_all(t, data, n) : 0;
}

static void serve_transport(int t)
{
    stream_t s[MAXSTREAMS] = {{0}};
    uint32_t next_id = 1;
    int connected = 0;
    uint32_t host_max = 4096;
    unsigned char *payload = malloc(1024 * 1024 + 1);
    unsigned char *rb = malloc(MAXDATA);
    if (!strcmp(g_mode, "hangup")) {
        /* posing as a broken adb server: say OKAY to the first request, then hang up mid-reply */
        if (read(t, rb, MAXDATA) > 0 && write_all(t, "OKAY00", 6) == 0) {}
        return;
    }
    if (!strcmp(g_mode, "silent")) {
        /* accept, read and discard, never answer: the server keeps the device "offline" */
        while (read(t, rb, MAXDATA) > 0) {}
        return;
    }
    for (;;) {
        struct pollfd p[MAXSTREAMS + 1];
        int map[MAXSTREAMS + 1], np = 0;
        p[np].fd = t;
        p[np].events = POLLIN;
        map[np++] = -1;
        for (int i = 0; i < MAXSTREAMS; i++)
            if (s[i].used && s[i].can_send) {
                p[np].fd = s[i].fd;
                p[np].events = POLLIN;
                map[np++] = i;
            }
        if (poll(p, (nfds_t)np, -1) < 0) {
            if (errno == EINTR) continue;
            return;
        }
        for (int k = 1; k < np; k++) {
            if (!(p[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            stream_t *st = &s[map[k]];
            uint32_t lim = host_max < MAXDATA ? host_max : MAXDATA;
            ssize_t r = read(st->fd, rb, lim);
            if (r > 0) {
                send_msg(t, A_WRTE, st->local, st->remote, rb, (uint32_t)r);
                st->can_send = 0;
            } else {
                send_msg(t, A_CLSE, st->local, st->remote, NULL, 0);
                close(st->fd);
                st->used = 0;
            }
        }
        if (!(p[0].revents & (POLLIN | POLLHUP | POLLERR))) continue;
        unsigned char h[24];
        if (read_all(t, h, 24) != 0) return;
        uint32_t cmd = get32(h), a0 = get32(h + 4), a1 = get32(h + 8), n = get32(h + 12);
        if (get32(h + 20) != (cmd ^ 0xffffffffu) || n > 1024 * 1024) return;
        if (n && read_all(t, payload, n) != 0) return;
        payload[n] = 0;
        if (cmd == A_CNXN) {
            host_max = a1;
            /* still away: the server lists us offline until then (re-read: a test may end it early) */
            char ub[64];
            while (atoll(cfg_word("offline_until", ub, sizeof ub)) > now_ms()) usleep(50 * 1000);
            if (!strcmp(g_mode, "auth")) {
                unsigned char token[20];
                for (int i = 0; i < 20; i++) token[i] = (unsigned char)rand();
                send_msg(t, A_AUTH, 1, 0, token, sizeof token);
                continue; /* never accept a signature: the device stays unauthorized */
            }
            char banner[1024];
            char *props = slurp(cfg_path("props"));
            char model[128] = "hkdev", product[128] = "hkdev_product", device[128] = "hkdev_device";
            for (char *l = strtok(props, "\n"); l; l = strtok(NULL, "\n")) {
                if (!strncmp(l, "ro.product.model=", 17)) snprintf(model, sizeof model, "%s", l + 17);
                if (!strncmp(l, "ro.product.name=", 16)) snprintf(product, sizeof product, "%s", l + 16);
                if (!strncmp(l, "ro.product.device=", 18)) snprintf(device, sizeof device, "%s", l + 18);
            }
            free(props);
            for (char *c = model; *c; c++)
                if (*c == ' ') *c = '_';
            snprintf(banner, sizeof banner,
                     "device::ro.product.name=%s;ro.product.model=%s;ro.product.device=%s;features=%scmd,stat_v2",
                     product, model, device, g_shell_v2 ? "shell_v2," : "");
            send_msg(t, A_CNXN, A_VERSION, MAXDATA, banner, (uint32_t)strlen(banner));
            connected = 1;
            continue;
        }
        if (cmd == A_AUTH && !strcmp(g_mode, "auth")) {
            /* Reject every signature with a new token; the server then offers its public key
             * (type 3), which a real device shows in the USB-debugging dialog: we never accept. */
            if (a0 == 2) {
                unsigned char token[20];
                for (int i = 0; i < 20; i++) token[i] = (unsigned char)rand();
                send_msg(t, A_AUTH, 1, 0, token, sizeof token);
            }
            continue;
        }
        if (!connected) continue;
        if (cmd == A_OPEN) {
            int slot = -1;
            for (int i = 0; i < MAXSTREAMS; i++)
                if (!s[i].used) {
                    slot = i;
                    break;
                }
            int fd = slot >= 0 ? open_service((char *)payload) : -1;
            if (fd < 0) {
                send_msg(t, A_CLSE, 0, a0, NULL, 0);
                continue;
            }
            s[slot] = (stream_t){1, next_id++, a0, fd, 1};
            send_msg(t, A_OKAY, s[slot].local, a0, NULL, 0);
        } else if (cmd == A_OKAY || cmd == A_WRTE || cmd == A_CLSE) {
            stream_t *st = NULL;
            for (int i = 0; i < MAXSTREAMS; i++)
                if (s[i].used && s[i].local == a1) st = &s[i];
            if (!st) continue;
            if (cmd == A_OKAY) {
                st->remote = a0;
                st->can_send = 1;
            } else if (cmd == A_WRTE) {
                /* Deliver then acknowledge: the host sends the next WRTE only after our OKAY. */
                if (write_all(st->fd, payload, n) != 0) {
                    send_msg(t, A_CLSE, st->local, st->remote, NULL, 0);
                    close(st->fd);
                    st->used = 0;
                } else {
                    send_msg(t, A_OKAY, st->local, st->remote, NULL, 0);
                }
            } else {
                close(st->fd);
                st->used = 0;
            }
        }
    }
}

static int listen_on(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(fd, 8) != 0) {
        perror("hk-adbd: bind");
        exit(1);
    }
    return fd;
}

static int bound_port(int fd)
{
    struct sockaddr_in a;
    socklen_t l = sizeof a;
    getsockname(fd, (struct sockaddr *)&a, &l);
    return ntohs(a.sin_port);
}

int main(int argc, char **argv)
{
    int port = 0;
    const char *portfile = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--free-port")) {
            int fd = listen_on(0);
            printf("%d\n", bound_port(fd));
            return 0;
        } else if (!strcmp(argv[i], "-c") && i + 1 < argc) g_cfg = argv[++i];
        else if (!strcmp(argv[i], "-s") && i + 1 < argc) g_serial = argv[++i];
        else if (!strcmp(argv[i], "-p") && i + 1 < argc) port = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-P") && i + 1 < argc) portfile = argv[++i];
        else if (!strcmp(argv[i], "--mode") && i + 1 < argc) g_mode = argv[++i];
        else if (!strcmp(argv[i], "--no-shell-v2")) g_shell_v2 = 0;
        else {
            fprintf(stderr, "usage: hk-adbd -c CFGDIR [-p PORT] [-P PORTFILE] [--mode normal|auth|silent|hangup] "
                            "[--no-shell-v2] | --free-port\n");
            return 2;
        }
    }
    signal(SIGPIPE, SIG_IGN);
    signal(SIGCHLD, SIG_DFL);
    srand((unsigned)time(NULL) ^ (unsigned)getpid());
    int lfd = listen_on(port);
    if (portfile) {
        char tmp[4200];
        snprintf(tmp, sizeof tmp, "%s.tmp", portfile);
        FILE *f = fopen(tmp, "w");
        if (!f) return 1;
        fprintf(f, "%d\n", bound_port(lfd));
        fclose(f);
        rename(tmp, portfile);
    }
    for (;;) {
        while (waitpid(-1, NULL, WNOHANG) > 0) {}
        int c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
        if (c < 0) continue;
        int one = 1;
        setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        pid_t k = fork();
        if (k == 0) {
            prctl(PR_SET_PDEATHSIG, SIGTERM);
            close(lfd);
            /* reap our service children as they exit */
            signal(SIGCHLD, SIG_IGN);
            serve_transport(c);
            _exit(0);
        }
        close(c);
    }
}
