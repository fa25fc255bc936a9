/* reproduce_fork — an experiment's mixes as forkpool tasks (-j N): one task per mix, so a slow
 * mix does not hold back the others, and each result lands in its mix's slot whichever worker
 * ran it. Every worker opens its own connection to the trace cache. The accuracy and the
 * allocation experiments both run their mixes here; what differs is behind repro_mix_ops. */
#include <stdio.h>
#include <string.h>

#include "corun/catalog.h"
#include "corun/forkpool.h"
#include "reproduce_internal.h"

struct pool_ctx {
    const struct repro_mixes *m;
    repro_progress_fn progress;
    void *ctx;
};

static void *result_at(const struct repro_mixes *m, size_t index)
{
    return (char *)m->results + index * m->ops->result_size;
}

static void open_cache(void *user)
{
    struct pool_ctx *pc = user;
    char err[512];
    *pc->m->cat = catalog_open(pc->m->catalog, err, sizeof err);
}

static void close_cache(void *user)
{
    struct pool_ctx *pc = user;
    catalog_close(*pc->m->cat);
    *pc->m->cat = NULL;
}

static void report(void *task, double done)
{
    forkpool_report(task, done);
}

/* A mix's own failure travels in its result; the task fails only when its worker does. */
static int run_mix(void *user, struct forkpool_task *task, void *result)
{
    const struct repro_mixes *m = ((struct pool_ctx *)user)->m;
    memcpy(result, result_at(m, task->index), m->ops->result_size);
    m->ops->run(m->job, m->chosen[task->index], result, report, task);
    return 0;
}

static void collect(void *user, size_t index, const void *result, const char *error)
{
    const struct repro_mixes *m = ((struct pool_ctx *)user)->m;
    if (result)
        memcpy(result_at(m, index), result, m->ops->result_size);
    else
        m->ops->fail(result_at(m, index), error);
}

static void progress(void *user, double done, size_t ntasks)
{
    struct pool_ctx *pc = user;
    if (pc->progress)
        pc->progress(pc->ctx, done, (unsigned)ntasks);
}

size_t repro_run_mixes(const struct repro_mixes *m, repro_progress_fn progress_fn, void *ctx)
{
    struct pool_ctx pc = {m, progress_fn, ctx};
    const struct forkpool_ops ops = {.run = run_mix,
                                     .collect = collect,
                                     .progress = progress,
                                     .child_init = open_cache,
                                     .child_done = close_cache};
    if (m->jobs <= 1) /* forkpool runs the mixes here, where no worker opens the cache */
        open_cache(&pc);
    forkpool_run(&ops, &pc, m->n, m->ops->result_size, m->jobs);
    if (m->jobs <= 1)
        close_cache(&pc);
    if (progress_fn)
        progress_fn(ctx, (double)m->n, (unsigned)m->n);
    size_t failed = 0;
    for (size_t i = 0; i < m->n; i++)
        failed += m->ops->failed(result_at(m, i));
    return failed;
}
