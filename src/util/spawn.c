/* spawn — fork and execvp with a pipe on the child's stdout. */
#include "corun/spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "corun/util.h"

/* spawn_capture, with the child's stderr on errfd instead when errfd >= 0. */
static int capture(char *const argv[], bool quiet, int errfd, char **out, int *status, char *err,
                   size_t errlen)
{
    int fds[2];
    if (pipe(fds) != 0 || fcntl(fds[0], F_SETFD, FD_CLOEXEC) != 0 ||
        fcntl(fds[1], F_SETFD, FD_CLOEXEC) != 0) {
        snprintf(err, errlen, "cannot run %s: pipe: %s", argv[0], strerror(errno));
        return -1;
    }
    pid_t pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_RDWR);
        if (null < 0 || dup2(null, 0) < 0 || dup2(fds[1], 1) < 0 ||
            (errfd >= 0 ? dup2(errfd, 2) < 0 : quiet && dup2(null, 2) < 0))
            _exit(127);
        execvp(argv[0], argv);
        _exit(127); /* what a shell answers for a command it cannot run */
    }
    close(fds[1]);
    if (pid < 0) {
        close(fds[0]);
        snprintf(err, errlen, "cannot run %s: fork: %s", argv[0], strerror(errno));
        return -1;
    }
    size_t used = 0, cap = 4096;
    char *buf = xmalloc(cap);
    for (;;) {
        if (used + 1 == cap)
            buf = xrealloc(buf, cap *= 2);
        ssize_t got = read(fds[0], buf + used, cap - used - 1);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        used += (size_t)got;
    }
    buf[used] = '\0';
    close(fds[0]);
    int ws = 0;
    while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
        ;
    *status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + (WIFSIGNALED(ws) ? WTERMSIG(ws) : 0);
    /* The child could not run the program (execvp failed), or it said nothing and ended as a
     * shell does for a command it cannot find. */
    if (*status == 127 && used == 0) {
        free(buf);
        snprintf(err, errlen, "cannot run %s (exit status 127: is it installed and in PATH?)",
                 argv[0]);
        return -1;
    }
    if (out)
        *out = buf;
    else
        free(buf);
    return 0;
}

int spawn_capture(char *const argv[], bool quiet, char **out, int *status, char *err, size_t errlen)
{
    return capture(argv, quiet, -1, out, status, err, errlen);
}

int spawn_capture_reason(char *const argv[], char **out, int *status, char *reason,
                         size_t reasonlen, char *err, size_t errlen)
{
    /* A file rather than a second pipe: nothing has to read stderr while stdout is read. */
    FILE *t = tmpfile();
    if (t)
        fcntl(fileno(t), F_SETFD, FD_CLOEXEC);
    int rc = capture(argv, false, t ? fileno(t) : -1, out, status, err, errlen);
    reason[0] = '\0';
    char line[512];
    if (t && fseek(t, 0, SEEK_SET) == 0)
        while (!reason[0] && fgets(line, sizeof line, t)) {
            size_t n = strcspn(line, "\r\n");
            size_t skip = strspn(line, " \t");
            if (n > skip)
                snprintf(reason, reasonlen, "%.*s", (int)(n - skip), line + skip);
        }
    if (t)
        fclose(t);
    return rc;
}
