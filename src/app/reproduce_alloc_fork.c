/* reproduce_alloc_fork — an allocation experiment's mixes as forkpool tasks (-j N): one task
 * per mix, each result landing in its mix's slot whichever worker ran it. Every worker opens
 * its own connection to the trace cache. */
#include <stdio.h>
#include <string.h>

#include "corun/catalog.h"
#include "corun/forkpool.h"
#include "reproduce_alloc_internal.h"

struct pool_ctx {
    struct ralloc_job *j;
    const size_t *chosen;
    repro_progress_fn progress;
    void *ctx;
};

static void open_cache(void *user)
{
    struct pool_ctx *pc = user;
    char err[512];
    pc->j->cat = catalog_open(pc->j->o->catalog, err, sizeof err);
}

static void close_cache(void *user)
{
    struct pool_ctx *pc = user;
    catalog_close(pc->j->cat);
    pc->j->cat = NULL;
}

static void report(void *task, double done)
{
    forkpool_report(task, done);
}

/* A mix's own failure travels in its result; the task fails only when its worker does. */
static int run_mix(void *user, struct forkpool_task *task, void *result)
{
    struct pool_ctx *pc = user;
    struct ralloc_mix_result *r = result;
    *r = pc->j->res->mixes[task->index];
    ralloc_run_mix(pc->j, pc->chosen[task->index], r, report, task);
    return 0;
}

static void collect(void *user, size_t index, const void *result, const char *error)
{
    struct pool_ctx *pc = user;
    struct ralloc_mix_result *m = &pc->j->res->mixes[index];
    if (result) {
        memcpy(m, result, sizeof(*m));
        return;
    }
    m->failed = 1;
    snprintf(m->error, sizeof m->error, "%s", error);
}

static void progress(void *user, double done, size_t ntasks)
{
    struct pool_ctx *pc = user;
    if (pc->progress)
        pc->progress(pc->ctx, done, (unsigned)ntasks);
}

void ralloc_run_forked(struct ralloc_job *j, const size_t *chosen, repro_progress_fn progress_fn,
                       void *ctx)
{
    struct pool_ctx pc = {j, chosen, progress_fn, ctx};
    const struct forkpool_ops ops = {.run = run_mix,
                                     .collect = collect,
                                     .progress = progress,
                                     .child_init = open_cache,
                                     .child_done = close_cache};
    if (j->o->jobs <= 1)
        open_cache(&pc);
    forkpool_run(&ops, &pc, j->res->nmixes, sizeof(struct ralloc_mix_result), j->o->jobs);
    if (j->o->jobs <= 1)
        close_cache(&pc);
}
