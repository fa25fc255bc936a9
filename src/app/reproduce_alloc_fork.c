/* reproduce_alloc_fork — an allocation experiment's mixes in forked workers (-j N): the parent
 * hands out one mix at a time over a socket pair per worker and collects progress and the
 * result on it, so results land by mix whichever worker ran them. Sockets rather than pipes,
 * so that writing to a worker that died is an error (MSG_NOSIGNAL), not a SIGPIPE. */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "corun/catalog.h"
#include "corun/util.h"
#include "reproduce_alloc_internal.h"

enum { MSG_PROGRESS = 1, MSG_RESULT = 2 };
struct msg {
    uint32_t kind, slot;
    double done; /* MSG_PROGRESS: fraction of the mix */
};

static int write_all(int fd, const void *buf, size_t n)
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

struct report_ctx {
    int fd; /* -1: inline */
    uint32_t slot;
    double last;
    repro_progress_fn progress; /* inline */
    void *ctx;
    size_t total;
};

static void report(void *ctx, double done)
{
    struct report_ctx *w = ctx;
    if (w->fd < 0) {
        if (w->progress)
            w->progress(w->ctx, (double)w->slot + done, (unsigned)w->total);
        return;
    }
    if (done - w->last < 0.02 && done < 1)
        return;
    w->last = done;
    struct msg msg = {MSG_PROGRESS, w->slot, done};
    write_all(w->fd, &msg, sizeof msg);
}

/* A worker: reads slots from fd until UINT32_MAX or EOF, runs each, writes the results. */
static int worker_main(struct ralloc_job *j, const size_t *chosen, int fd)
{
    char err[512];
    j->cat = catalog_open(j->o->catalog, err, sizeof err);
    struct ralloc_mix_result *r = xmalloc(sizeof(*r));
    uint32_t slot;
    int rc = 0;
    while (read_all(fd, &slot, sizeof slot) == 0 && slot != UINT32_MAX) {
        *r = j->res->mixes[slot];
        struct report_ctx w = {fd, slot, 0, NULL, NULL, 0};
        ralloc_run_mix(j, chosen[slot], r, report, &w);
        struct msg msg = {MSG_RESULT, slot, 1};
        if (write_all(fd, &msg, sizeof msg) != 0 || write_all(fd, r, sizeof(*r)) != 0) {
            rc = 1;
            break;
        }
    }
    free(r);
    catalog_close(j->cat);
    return rc;
}

struct worker {
    pid_t pid;
    int fd;
    int64_t slot; /* in flight, or -1 */
    double done;
};

static int hand_out(struct worker *w, size_t *next, size_t n)
{
    uint32_t slot = *next < n ? (uint32_t)(*next)++ : UINT32_MAX;
    w->slot = slot == UINT32_MAX ? -1 : (int64_t)slot;
    w->done = 0;
    return write_all(w->fd, &slot, sizeof slot);
}

static void run_inline(struct ralloc_job *j, const size_t *chosen, repro_progress_fn progress,
                       void *ctx)
{
    char err[512];
    j->cat = catalog_open(j->o->catalog, err, sizeof err);
    for (size_t i = 0; i < j->res->nmixes; i++) {
        struct report_ctx w = {-1, (uint32_t)i, 0, progress, ctx, j->res->nmixes};
        ralloc_run_mix(j, chosen[i], &j->res->mixes[i], report, &w);
    }
    catalog_close(j->cat);
    j->cat = NULL;
}

/* The worker behind fd ended: a mix in flight failed with it. */
static void lost(struct ralloc_job *j, struct worker *w, size_t *finished)
{
    if (w->slot >= 0) {
        struct ralloc_mix_result *m = &j->res->mixes[w->slot];
        m->failed = 1;
        snprintf(m->error, sizeof m->error, "its worker process died");
        (*finished)++;
    }
    close(w->fd);
    waitpid(w->pid, NULL, 0);
    w->pid = -1;
}

void ralloc_run_forked(struct ralloc_job *j, const size_t *chosen, repro_progress_fn progress,
                       void *ctx)
{
    if (j->o->jobs <= 1) {
        run_inline(j, chosen, progress, ctx);
        return;
    }
    unsigned jobs = j->o->jobs < 64 ? j->o->jobs : 64, alive = 0;
    struct worker ws[64];
    size_t next = 0, finished = 0, n = j->res->nmixes;
    fflush(NULL);
    for (unsigned i = 0; i < jobs; i++) {
        int sv[2];
        ws[i] = (struct worker){-1, -1, -1, 0};
        if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
            break;
        pid_t pid = fork();
        if (pid == 0) {
            close(sv[0]);
            for (unsigned o = 0; o < i; o++)
                close(ws[o].fd);
            _exit(worker_main(j, chosen, sv[1]));
        }
        close(sv[1]);
        if (pid < 0) {
            close(sv[0]);
            break;
        }
        ws[i] = (struct worker){pid, sv[0], -1, 0};
        alive++;
        hand_out(&ws[i], &next, n);
    }
    struct ralloc_mix_result *r = xmalloc(sizeof(*r));
    while (alive > 0) {
        struct pollfd fds[64];
        unsigned map[64], nfds = 0;
        for (unsigned i = 0; i < jobs; i++)
            if (ws[i].pid > 0) {
                fds[nfds] = (struct pollfd){ws[i].fd, POLLIN, 0};
                map[nfds++] = i;
            }
        if (poll(fds, nfds, -1) < 0 && errno != EINTR)
            break;
        for (unsigned f = 0; f < nfds; f++) {
            if (!(fds[f].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            struct worker *w = &ws[map[f]];
            struct msg msg;
            int ok = read_all(w->fd, &msg, sizeof msg) == 0;
            if (ok && msg.kind == MSG_PROGRESS) {
                w->done = msg.done;
            } else if (ok && msg.kind == MSG_RESULT && msg.slot < n &&
                       read_all(w->fd, r, sizeof(*r)) == 0) {
                j->res->mixes[msg.slot] = *r;
                finished++;
                ok = hand_out(w, &next, n) == 0;
            } else {
                ok = 0;
            }
            if (!ok) { /* also how a worker told to stop ends: it exits */
                lost(j, w, &finished);
                alive--;
            }
        }
        double in_flight = 0;
        for (unsigned i = 0; i < jobs; i++)
            if (ws[i].pid > 0 && ws[i].slot >= 0)
                in_flight += ws[i].done;
        if (progress)
            progress(ctx, (double)finished + in_flight, (unsigned)n);
    }
    free(r);
    for (size_t i = next; i < n; i++) {
        j->res->mixes[i].failed = 1;
        snprintf(j->res->mixes[i].error, sizeof j->res->mixes[i].error, "no worker process ran it");
    }
}
