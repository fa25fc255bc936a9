/* reproduce_fork — an experiment's mixes as forkpool tasks (-j N): one task per mix, so a slow
 * mix does not hold back the others, and each result lands in its mix's slot whichever worker
 * ran it. Every worker opens its own connection to the trace cache. The accuracy and the
 * allocation experiments both run their mixes here; what differs is behind repro_mix_ops. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corun/catalog.h"
#include "corun/forkpool.h"
#include "corun/util.h"
#include "reproduce_internal.h"

struct pool_ctx {
    const struct repro_mixes *m;
    struct repro_journal *journal;
    repro_progress_fn progress;
    void *ctx;
    const size_t *todo; /* [ntodo]: positions in m->results still to run */
    size_t ntodo, resumed;
};

static void *result_at(const struct repro_mixes *m, size_t index)
{
    return (char *)m->results + index * m->ops->result_size;
}

static bool failed(const struct repro_mix_ops *ops, const void *result)
{
    int f;
    memcpy(&f, (const char *)result + ops->failed_at, sizeof f);
    return f != 0;
}

static void fail(const struct repro_mix_ops *ops, void *result, const char *why)
{
    int one = 1;
    memcpy((char *)result + ops->failed_at, &one, sizeof one);
    snprintf((char *)result + ops->error_at, ops->error_size, "%s", why);
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
    const struct pool_ctx *pc = user;
    const struct repro_mixes *m = pc->m;
    size_t i = pc->todo[task->index];
    memcpy(result, result_at(m, i), m->ops->result_size);
    m->ops->run(m->job, m->chosen[i], result, report, task);
    return 0;
}

/* A finished mix lands in its slot and, unless it failed, in the journal; a failed one runs
 * again on the next resume. */
static void collect(void *user, size_t index, const void *result, const char *error)
{
    const struct pool_ctx *pc = user;
    const struct repro_mixes *m = pc->m;
    size_t i = pc->todo[index];
    if (!result) {
        fail(m->ops, result_at(m, i), error);
        return;
    }
    memcpy(result_at(m, i), result, m->ops->result_size);
    char err[512];
    char *kept = m->resumed->error;
    if (pc->journal && !failed(m->ops, result) &&
        repro_journal_put(pc->journal, m->part, m->chosen[i], result, err, sizeof err) != 0 &&
        !kept[0])
        snprintf(kept, sizeof m->resumed->error, "%.255s", err);
}

static void progress(void *user, double done, size_t ntasks)
{
    struct pool_ctx *pc = user;
    (void)ntasks;
    if (pc->progress)
        pc->progress(pc->ctx, (double)pc->resumed + done, (unsigned)pc->m->n);
}

long repro_run_mixes(const struct repro_mixes *m, repro_progress_fn progress_fn, void *ctx,
                     char *err, size_t errlen)
{
    struct repro_journal *journal = NULL;
    *m->resumed = (struct repro_resume){0};
    if (m->resume) {
        journal = repro_journal_open_run(m->resume, m->datadir, m->what, m->ops->result_size, err,
                                         errlen);
        if (!journal)
            return -1;
        m->resumed->dropped = repro_journal_dropped(journal);
        m->resumed->damaged = repro_journal_damaged(journal);
    }
    size_t *todo = xmalloc((m->n + 1) * sizeof(*todo)), ntodo = 0;
    for (size_t i = 0; i < m->n; i++) {
        const void *kept = journal ? repro_journal_get(journal, m->part, m->chosen[i]) : NULL;
        if (kept)
            memcpy(result_at(m, i), kept, m->ops->result_size);
        else
            todo[ntodo++] = i;
    }
    m->resumed->resumed = m->n - ntodo;
    struct pool_ctx pc = {m, journal, progress_fn, ctx, todo, ntodo, m->n - ntodo};
    const struct forkpool_ops ops = {.run = run_mix,
                                     .collect = collect,
                                     .progress = progress,
                                     .child_init = open_cache,
                                     .child_done = close_cache};
    if (m->jobs <= 1 && ntodo) /* forkpool runs the mixes here, where no worker opens the cache */
        open_cache(&pc);
    if (ntodo)
        forkpool_run(&ops, &pc, ntodo, m->ops->result_size, m->jobs);
    if (m->jobs <= 1 && ntodo)
        close_cache(&pc);
    free(todo);
    repro_journal_close(journal);
    if (progress_fn)
        progress_fn(ctx, (double)m->n, (unsigned)m->n);
    long nfailed = 0;
    for (size_t i = 0; i < m->n; i++)
        nfailed += failed(m->ops, result_at(m, i));
    return nfailed;
}
