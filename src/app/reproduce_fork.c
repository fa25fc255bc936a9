/* reproduce_fork — running an experiment's mixes in forked workers (-j N): the parent hands
 * out one mix at a time over a socket pair per worker and collects progress and results on
 * it, so a slow mix does not hold back the others and results land by mix, whichever worker
 * ran them. Sockets rather than pipes so that writing to a worker that died is an error
 * (MSG_NOSIGNAL), not a SIGPIPE that would kill the parent. */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "corun/catalog.h"
#include "corun/util.h"
#include "reproduce_internal.h"

enum { MSG_PROGRESS = 1, MSG_RESULT = 2 };
struct msg {
    uint32_t kind, slot; /* slot: index into the run's mixes */
    double done;         /* MSG_PROGRESS: fraction of the mix */
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

struct worker_ctx {
    int fd;
    uint32_t slot;
    double last;
};

static void worker_report(void *ctx, double done)
{
    struct worker_ctx *w = ctx;
    if (done - w->last < 0.02 && done < 1)
        return;
    w->last = done;
    struct msg msg = {MSG_PROGRESS, w->slot, done};
    write_all(w->fd, &msg, sizeof msg);
}

/* A worker: reads slot numbers from fd until UINT32_MAX or EOF, runs each, writes results. */
static int worker_main(struct repro_job *j, const size_t *chosen, int fd)
{
    char err[512];
    j->cat = catalog_open(j->o->catalog, err, sizeof err);
    struct repro_mix_result *r = xmalloc(sizeof(*r));
    uint32_t slot;
    int rc = 0;
    while (read_all(fd, &slot, sizeof slot) == 0 && slot != UINT32_MAX) {
        *r = j->res->mixes[slot];
        struct worker_ctx w = {fd, slot, 0};
        repro_run_mix(j, chosen[slot], r, worker_report, &w);
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
    int fd;       /* the parent's end: slots to it, messages from it */
    int64_t slot; /* in flight, or -1 */
    double done;  /* of the slot in flight */
};

/* Give w the next slot (or tell it to stop); returns 0, -1 when it cannot be told. */
static int hand_out(struct worker *w, size_t *next, size_t n)
{
    uint32_t slot = *next < n ? (uint32_t)(*next)++ : UINT32_MAX;
    w->slot = slot == UINT32_MAX ? -1 : (int64_t)slot;
    w->done = 0;
    return write_all(w->fd, &slot, sizeof slot);
}

void repro_run_forked(struct repro_job *j, const size_t *chosen, struct repro_part_result *res,
                      repro_progress_fn progress, void *ctx)
{
    unsigned jobs = j->o->jobs < 64 ? j->o->jobs : 64, alive = 0;
    struct worker ws[64];
    size_t next = 0, finished = 0, n = res->nmixes;
    fflush(NULL);
    for (unsigned i = 0; i < jobs; i++) {
        int sv[2];
        ws[i] = (struct worker){.pid = -1, .fd = -1, .slot = -1};
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
    struct repro_mix_result *r = xmalloc(sizeof(*r));
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
            } else if (ok && msg.kind == MSG_RESULT && read_all(w->fd, r, sizeof(*r)) == 0 &&
                       msg.slot < n) {
                res->mixes[msg.slot] = *r;
                finished++;
                if (hand_out(w, &next, n) != 0)
                    ok = 0;
            } else {
                ok = 0;
            }
            if (!ok) { /* the worker ended; a mix still in flight failed with it */
                if (w->slot >= 0) {
                    struct repro_mix_result *lost = &res->mixes[w->slot];
                    lost->failed = 1;
                    snprintf(lost->error, sizeof lost->error, "its worker process died");
                    finished++;
                }
                close(w->fd); /* (also how a worker told to stop ends: it exits) */
                waitpid(w->pid, NULL, 0);
                w->pid = -1;
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
    /* Mixes never handed out (every worker failed to start or died) failed too. */
    for (size_t i = next; i < n; i++) {
        res->mixes[i].failed = 1;
        snprintf(res->mixes[i].error, sizeof res->mixes[i].error, "no worker process ran it");
    }
}
