/* spawn — posix_spawnp with a pipe on the child's stdout. */
#include "corun/spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "corun/util.h"

extern char **environ;

int spawn_capture(char *const argv[], bool quiet, char **out, int *status, char *err, size_t errlen)
{
    int fds[2];
    if (pipe(fds) != 0 || fcntl(fds[0], F_SETFD, FD_CLOEXEC) != 0 ||
        fcntl(fds[1], F_SETFD, FD_CLOEXEC) != 0) {
        snprintf(err, errlen, "cannot run %s: pipe: %s", argv[0], strerror(errno));
        return -1;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    if (quiet)
        posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    if (rc != 0) {
        close(fds[0]);
        snprintf(err, errlen, "cannot run %s: %s%s", argv[0], strerror(rc),
                 rc == ENOENT ? " (is it installed and in PATH?)" : "");
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
    if (out)
        *out = buf;
    else
        free(buf);
    return 0;
}
