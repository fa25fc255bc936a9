/* reproduce_fork — an experiment's mixes as forkpool tasks (-j N): one task per mix, so a slow
 * mix does not hold back the others, and each result lands in its mix's slot whichever worker
 * ran it. Every worker opens its own connection to the trace cache. */
#include <stdio.h>
#include <string.h>

#include "corun/catalog.h"
#include "corun/forkpool.h"
#include "reproduce_internal.h"

struct pool_ctx {
    struct repro_job *j;
    const size_t *chosen;
    struct repro_part_result *res;
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
    struct repro_mix_result *r = result;
    *r = pc->res->mixes[task->index];
    repro_run_mix(pc->j, pc->chosen[task->index], r, report, task);
    return 0;
}

static void collect(void *user, size_t index, const void *result, const char *error)
{
    struct pool_ctx *pc = user;
    struct repro_mix_result *m = &pc->res->mixes[index];
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

void repro_run_forked(struct repro_job *j, const size_t *chosen, struct repro_part_result *res,
                      repro_progress_fn progress_fn, void *ctx)
{
    struct pool_ctx pc = {j, chosen, res, progress_fn, ctx};
    const struct forkpool_ops ops = {.run = run_mix,
                                     .collect = collect,
                                     .progress = progress,
                                     .child_init = open_cache,
                                     .child_done = close_cache};
    forkpool_run(&ops, &pc, res->nmixes, sizeof(struct repro_mix_result), j->o->jobs);
}
