/* forkpool — independent tasks on forked workers. Each worker has one socket pair to the
 * parent: task indices go down it, progress and results come up. Sockets rather than pipes so
 * that telling a worker that already died something is an error (MSG_NOSIGNAL), not a SIGPIPE
 * that would kill the parent. */
#include "corun/forkpool.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "corun/util.h"

#define STOP UINT64_MAX /* sent instead of a task index: no more work, exit */

enum { MSG_PROGRESS = 1, MSG_RESULT = 2 };

/* Worker to parent; a MSG_RESULT is followed by the result blob, then, when failed, by
 * FORKPOOL_ERROR_LEN bytes of message. */
struct msg {
    uint32_t kind, failed;
    uint64_t index;
    double fraction;
};

struct worker {
    pid_t pid;    /* -1: none */
    int fd;       /* the parent's end */
    int64_t task; /* in flight, or -1 */
    double fraction;
};

struct pool {
    const struct forkpool_ops *ops;
    void *user;
    size_t ntasks, result_size;
    struct worker *ws;
    unsigned nws, alive;
    size_t next, finished, failed;
    int fork_errno; /* why the last worker could not be started */
    int poll_errno; /* nonzero: the workers could not be waited on, so none is restarted */
};

static int send_all(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n > 0) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* 0 when all n bytes arrived, -1 at end of file or on error. */
static int read_all(int fd, void *buf, size_t n)
{
    char *p = buf;
    while (n > 0) {
        ssize_t r = read(fd, p, n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        p += r;
        n -= (size_t)r;
    }
    return 0;
}

/* ---- the worker's side ---- */

static int worker_loop(const struct pool *pl, int fd)
{
    void *blob = xmalloc(pl->result_size ? pl->result_size : 1);
    uint64_t index;
    int rc = 0;
    while (rc == 0 && read_all(fd, &index, sizeof index) == 0 && index != STOP) {
        struct forkpool_task t = {.index = (size_t)index,
                                  .ops = pl->ops,
                                  .user = pl->user,
                                  .ntasks = pl->ntasks,
                                  .fd = fd};
        memset(blob, 0, pl->result_size);
        int failed = pl->ops->run(pl->user, &t, blob) != 0;
        if (failed && !t.error[0])
            snprintf(t.error, sizeof t.error, "the task failed without saying why");
        struct msg m = {MSG_RESULT, (uint32_t)failed, index, 1};
        if (send_all(fd, &m, sizeof m) != 0 || send_all(fd, blob, pl->result_size) != 0 ||
            (failed && send_all(fd, t.error, sizeof t.error) != 0))
            rc = 1;
    }
    free(blob);
    return rc;
}

void forkpool_report(struct forkpool_task *task, double fraction)
{
    if (task->fd < 0) {
        if (task->ops->progress)
            task->ops->progress(task->user, (double)task->index + fraction, task->ntasks);
        return;
    }
    if (fraction - task->last_report < 0.01 && fraction < 1)
        return;
    task->last_report = fraction;
    struct msg m = {MSG_PROGRESS, 0, task->index, fraction};
    send_all(task->fd, &m, sizeof m); /* a parent that is gone hears of it with the result */
}

/* ---- the parent's side ---- */

/* Give w the next task, or tell it to stop. A worker that cannot be told has died: its read
 * end reports that, and the task fails with it. */
static void hand_out(struct pool *pl, struct worker *w)
{
    uint64_t index = pl->next < pl->ntasks ? pl->next++ : STOP;
    w->task = index == STOP ? -1 : (int64_t)index;
    w->fraction = 0;
    send_all(w->fd, &index, sizeof index);
}

/* Fork a worker into slot i and hand it a task; -1 (errno in pl->fork_errno) when it cannot. */
static int spawn(struct pool *pl, unsigned i)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) {
        pl->fork_errno = errno;
        return -1;
    }
    fflush(NULL); /* or the child would print the parent's buffered output again */
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        /* A worker dies with its parent, however the parent ends (SIGKILL, SIGTERM, a crash):
         * none may run on and write results nobody collects. The second test covers a parent
         * that died before the first took effect. */
#ifdef __linux__
        prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
        if (getppid() != parent)
            _exit(1);
        close(sv[0]);
        for (unsigned k = 0; k < pl->nws; k++)
            if (pl->ws[k].fd >= 0)
                close(pl->ws[k].fd);
        if (pl->ops->child_init)
            pl->ops->child_init(pl->user);
        int rc = worker_loop(pl, sv[1]);
        if (pl->ops->child_done)
            pl->ops->child_done(pl->user);
        _exit(rc);
    }
    pl->fork_errno = errno;
    close(sv[1]);
    if (pid < 0) {
        close(sv[0]);
        return -1;
    }
    pl->ws[i] = (struct worker){pid, sv[0], -1, 0};
    pl->alive++;
    hand_out(pl, &pl->ws[i]);
    return 0;
}

static void fail_task(struct pool *pl, size_t index, const char *why)
{
    pl->ops->collect(pl->user, index, NULL, why);
    pl->finished++;
    pl->failed++;
}

/* Reap w, whose socket ended or broke; fail the task it had, and start a worker in its place
 * while tasks are left. */
static void bury(struct pool *pl, unsigned i)
{
    struct worker *w = &pl->ws[i];
    int status = 0;
    pid_t r;
    while ((r = waitpid(w->pid, &status, WNOHANG)) < 0 && errno == EINTR)
        ;
    if (r == 0) { /* still running, though it broke the protocol: it will not be trusted */
        kill(w->pid, SIGKILL);
        while (waitpid(w->pid, &status, 0) < 0 && errno == EINTR)
            ;
    }
    close(w->fd);
    pl->alive--;
    int64_t task = w->task;
    *w = (struct worker){-1, -1, -1, 0};
    if (task < 0)
        return;
    char why[FORKPOOL_ERROR_LEN];
    if (WIFSIGNALED(status))
        snprintf(why, sizeof why, "its worker process was killed by signal %d (%s)",
                 WTERMSIG(status), strsignal(WTERMSIG(status)));
    else if (WIFEXITED(status))
        snprintf(why, sizeof why, "its worker process exited with status %d while running it",
                 WEXITSTATUS(status));
    else
        snprintf(why, sizeof why, "its worker process died");
    fail_task(pl, (size_t)task, why);
    if (pl->next < pl->ntasks && !pl->poll_errno)
        spawn(pl, i);
}

/* One message from worker i; -1 when the worker has ended or broke the protocol. */
static int receive(struct pool *pl, unsigned i, void *blob)
{
    struct worker *w = &pl->ws[i];
    struct msg m;
    if (read_all(w->fd, &m, sizeof m) != 0 || w->task < 0 || m.index != (uint64_t)w->task)
        return -1;
    if (m.kind == MSG_PROGRESS) {
        w->fraction = m.fraction;
        return 0;
    }
    char error[FORKPOOL_ERROR_LEN];
    if (m.kind != MSG_RESULT || read_all(w->fd, blob, pl->result_size) != 0 ||
        (m.failed && read_all(w->fd, error, sizeof error) != 0))
        return -1;
    if (m.failed) {
        error[sizeof error - 1] = '\0';
        fail_task(pl, (size_t)m.index, error);
    } else {
        pl->ops->collect(pl->user, (size_t)m.index, blob, NULL);
        pl->finished++;
    }
    hand_out(pl, w);
    return 0;
}

static void report_progress(const struct pool *pl)
{
    if (!pl->ops->progress)
        return;
    double done = (double)pl->finished;
    for (unsigned i = 0; i < pl->nws; i++)
        if (pl->ws[i].pid > 0 && pl->ws[i].task >= 0)
            done += pl->ws[i].fraction;
    pl->ops->progress(pl->user, done, pl->ntasks);
}

static void run_forked(struct pool *pl)
{
    pl->ws = xcalloc(pl->nws, sizeof(*pl->ws));
    struct pollfd *fds = xcalloc(pl->nws, sizeof(*fds));
    unsigned *slot = xcalloc(pl->nws, sizeof(*slot));
    void *blob = xmalloc(pl->result_size ? pl->result_size : 1);
    for (unsigned i = 0; i < pl->nws; i++)
        pl->ws[i] = (struct worker){-1, -1, -1, 0};
    for (unsigned i = 0; i < pl->nws && pl->next < pl->ntasks; i++)
        if (spawn(pl, i) != 0)
            break;
    while (pl->alive > 0) {
        nfds_t n = 0;
        for (unsigned i = 0; i < pl->nws; i++)
            if (pl->ws[i].pid > 0) {
                fds[n] = (struct pollfd){pl->ws[i].fd, POLLIN, 0};
                slot[n++] = i;
            }
        if (poll(fds, n, -1) < 0) {
            if (errno == EINTR)
                continue;
            pl->poll_errno = errno;
            for (nfds_t f = 0; f < n; f++) /* cannot wait on them: end them all */
                bury(pl, slot[f]);
            break;
        }
        for (nfds_t f = 0; f < n; f++)
            if ((fds[f].revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL)) &&
                receive(pl, slot[f], blob) != 0)
                bury(pl, slot[f]);
        report_progress(pl);
    }
    char why[FORKPOOL_ERROR_LEN];
    if (pl->poll_errno)
        snprintf(why, sizeof why, "the workers could not be waited on: %s",
                 strerror(pl->poll_errno));
    else
        snprintf(why, sizeof why, "no worker process could be started to run it: %s",
                 strerror(pl->fork_errno));
    while (pl->next < pl->ntasks)
        fail_task(pl, pl->next++, why);
    free(blob);
    free(slot);
    free(fds);
    free(pl->ws);
}

static void run_here(struct pool *pl)
{
    void *blob = xmalloc(pl->result_size ? pl->result_size : 1);
    for (size_t t = 0; t < pl->ntasks; t++) {
        struct forkpool_task task = {
            .index = t, .ops = pl->ops, .user = pl->user, .ntasks = pl->ntasks, .fd = -1};
        memset(blob, 0, pl->result_size);
        if (pl->ops->run(pl->user, &task, blob) != 0) {
            if (!task.error[0])
                snprintf(task.error, sizeof task.error, "the task failed without saying why");
            fail_task(pl, t, task.error);
        } else {
            pl->ops->collect(pl->user, t, blob, NULL);
            pl->finished++;
        }
        if (pl->ops->progress)
            pl->ops->progress(pl->user, (double)pl->finished, pl->ntasks);
    }
    free(blob);
}

size_t forkpool_run(const struct forkpool_ops *ops, void *user, size_t ntasks, size_t result_size,
                    unsigned jobs)
{
    struct pool pl = {.ops = ops, .user = user, .ntasks = ntasks, .result_size = result_size};
    if (ntasks == 0)
        return 0;
    if (jobs <= 1) {
        run_here(&pl);
    } else {
        pl.nws = (size_t)jobs < ntasks ? jobs : (unsigned)ntasks;
        run_forked(&pl);
    }
    return pl.failed;
}
