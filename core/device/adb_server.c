/* Finding the adb binary and starting the server with it.  A program started from a desktop
 * launcher inherits almost no environment, so PATH is the last place we look, not the first. */
#include "adb_conn.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int is_exec(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode) && access(p, X_OK) == 0;
}

/* Looks for the adb binary: $ANDROID_HOME/platform-tools, $ANDROID_SDK_ROOT/platform-tools,
 * ~/Android/Sdk/platform-tools, ~/Library/Android/sdk/platform-tools, then PATH. */
static int hk_adb_find_binary(char *out, size_t outlen, char *err, size_t errlen)
{
    const char *home = getenv("HOME");
    const char *envs[] = {"ANDROID_HOME", "ANDROID_SDK_ROOT"};
    char cand[4096];
    for (size_t i = 0; i < 2; i++) {
        const char *v = getenv(envs[i]);
        if (!v || !*v) continue;
        snprintf(cand, sizeof cand, "%s/platform-tools/adb", v);
        if (is_exec(cand)) goto found;
    }
    if (home && *home) {
        const char *defaults[] = {"Android/Sdk/platform-tools/adb", "Library/Android/sdk/platform-tools/adb"};
        for (size_t i = 0; i < 2; i++) {
            snprintf(cand, sizeof cand, "%s/%s", home, defaults[i]);
            if (is_exec(cand)) goto found;
        }
    }
    const char *path = getenv("PATH");
    if (path) {
        const char *p = path;
        while (*p) {
            const char *c = strchr(p, ':');
            size_t l = c ? (size_t)(c - p) : strlen(p);
            if (l > 0 && l < sizeof cand - 8) {
                snprintf(cand, sizeof cand, "%.*s/adb", (int)l, p);
                if (is_exec(cand)) goto found;
            }
            if (!c) break;
            p = c + 1;
        }
    }
    snprintf(err, errlen,
             "adb: no adb binary found (looked in $ANDROID_HOME/platform-tools, $ANDROID_SDK_ROOT/platform-tools, "
             "~/Android/Sdk/platform-tools, ~/Library/Android/sdk/platform-tools and PATH): install the Android SDK "
             "platform-tools or set ANDROID_HOME");
    return -1;
found:
    if (strlen(cand) >= outlen) {
        snprintf(err, errlen, "adb: the path of the adb binary is too long: %.200s...", cand);
        return -1;
    }
    memcpy(out, cand, strlen(cand) + 1);
    return 0;
}

int hk_adb_start_server(hk_adb *adb, char *err, size_t errlen)
{
    char bin[1024], ferr[1024];
    if (hk_adb_find_binary(bin, sizeof bin, ferr, sizeof ferr) != 0) {
        snprintf(err, errlen, "adb: no adb server is running on %s:%d and %s", adb->host, adb->port, ferr + 5);
        return -1;
    }
    snprintf(adb->adb_path, sizeof adb->adb_path, "%s", bin);
    /* adb's output goes to a temp file, not a pipe: the server it forks could otherwise hold our
     * pipe (or our caller's) open for as long as it lives. */
    char logpath[] = "/tmp/hprofkit-adb-start-XXXXXX";
    int logfd = mkstemp(logpath);
    if (logfd < 0) {
        snprintf(err, errlen, "adb: cannot create a temp file to start the adb server: %s", strerror(errno));
        return -1;
    }
    unlink(logpath);
    char port[16];
    snprintf(port, sizeof port, "%d", adb->port);
    pid_t pid = fork();
    if (pid < 0) {
        close(logfd);
        snprintf(err, errlen, "adb: cannot start %s: %s", bin, strerror(errno));
        return -1;
    }
    if (pid == 0) {
        int dn = open("/dev/null", O_RDONLY);
        if (dn >= 0) dup2(dn, 0);
        dup2(logfd, 1);
        dup2(logfd, 2);
        for (int fd = 3; fd < 1024; fd++) close(fd);
        /* the port on the command line wins over ADB_SERVER_SOCKET for the server it starts */
        unsetenv("ADB_SERVER_SOCKET");
        execl(bin, "adb", "-P", port, "start-server", (char *)NULL);
        _exit(127);
    }
    /* bounded wait: start-server normally returns within a second or two */
    int status = 0, done = 0;
    for (int i = 0; i < 300; i++) {
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid) {
            done = 1;
            break;
        }
        usleep(100 * 1000);
    }
    char out[512] = "";
    ssize_t n = pread(logfd, out, sizeof out - 1, 0);
    if (n > 0) out[n] = 0;
    close(logfd);
    for (char *c = out; *c; c++)
        if (*c == '\n') *c = ' ';
    if (!done) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        snprintf(err, errlen, "adb: `%s -P %s start-server` did not finish within 30 s", bin, port);
        return -1;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        snprintf(err, errlen, "adb: `%s -P %s start-server` failed: %s", bin, port, out[0] ? out : "no output");
        return -1;
    }
    adb->started = 1;
    return 0;
}
