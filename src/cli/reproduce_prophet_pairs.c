/* reproduce_prophet_pairs — the prophet experiments' journal and their pairs on forkpool
 * workers (see the header). */
#include "reproduce_prophet_pairs.h"

#include "corun/accel_predict.h"
#include "corun/cli.h"
#include "corun/forkpool.h"
#include "corun/reproduce.h"
#include "corun/reproduce_journal.h"
#include "corun/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *pj_identity(const char *what, bool quick)
{
    return xasprintf("prophet %s%s", what, quick ? " --quick" : "");
}

int pj_open(struct prophet_journal *jn, const char *path, const char *datadir, const char *what,
            bool quick, size_t size)
{
    memset(jn, 0, sizeof(*jn));
    if (!path)
        return 0;
    char err[512], *id = pj_identity(what, quick);
    jn->j = repro_journal_open_run(path, datadir, id, size, err, sizeof err);
    free(id);
    if (!jn->j) {
        fprintf(stderr, "corun: reproduce prophet: %s\n", err);
        return -1;
    }
    if (repro_journal_damaged(jn->j))
        fprintf(stderr,
                "corun: reproduce prophet: %s: skipped %zu damaged record%s in its middle, "
                "simulated again\n",
                path, repro_journal_damaged(jn->j), repro_journal_damaged(jn->j) == 1 ? "" : "s");
    if (repro_journal_dropped(jn->j))
        fprintf(stderr,
                "corun: reproduce prophet: %s: cut %zu bytes of a torn record off its end\n", path,
                repro_journal_dropped(jn->j));
    return 0;
}

/* The stored result of index i into out (size bytes); false when there is none. */
bool pj_get(struct prophet_journal *jn, size_t i, void *out, size_t size)
{
    const void *rec = jn->j ? repro_journal_get(jn->j, 0, i) : NULL;
    if (!rec)
        return false;
    memcpy(out, rec, size);
    jn->resumed++;
    return true;
}

void pj_put(struct prophet_journal *jn, size_t i, const void *rec)
{
    char err[512];
    if (jn->j && repro_journal_put(jn->j, 0, i, rec, err, sizeof err) && !jn->warned) {
        fprintf(stderr, "corun: reproduce prophet: %s (the run goes on without it)\n", err);
        jn->warned = true;
    }
}

void pj_close(struct prophet_journal *jn)
{
    if (jn->j && jn->resumed)
        printf("(%zu read from %s, not simulated again)\n", jn->resumed, repro_journal_path(jn->j));
    repro_journal_close(jn->j);
}

void *pr_rec(const struct pairs_run *pr, size_t i)
{
    return pr->recs + i * pr->rsize;
}

static int pr_task(void *user, struct forkpool_task *task, void *result)
{
    const struct pairs_run *pr = user;
    return pr->run(pr, pr->todo[task->index], result, task->error, sizeof task->error);
}

static void pr_collect(void *user, size_t index, const void *result, const char *error)
{
    struct pairs_run *pr = user;
    size_t i = pr->todo[index];
    if (!result) {
        if (!pr->failed++) {
            cli_progress(pr->label, 1);
            fprintf(stderr, "corun: reproduce prophet: %s beside %s: %s\n", pr->pairs[i].ls,
                    pr->pairs[i].batch, error);
        }
        return;
    }
    memcpy(pr_rec(pr, i), result, pr->rsize);
    pr->in[i] = true;
    pj_put(pr->jn, i, result);
    for (; !pr->sh.n && pr->printed < pr->n && pr->in[pr->printed]; pr->printed++)
        pr->print(pr, pr->printed, pr_rec(pr, pr->printed));
}

static void pr_progress(void *user, double done, size_t ntasks)
{
    const struct pairs_run *pr = user;
    (void)ntasks;
    cli_progress(pr->label, ((double)pr->resumed + done) / (double)(pr->n - pr->missing));
}

/* A worker's copy of the memo, freed before it exits. */
static void pr_child(void *user)
{
    struct pairs_run *pr = user;
    accel_memo_delete(pr->memo);
    pr->memo = NULL;
}

/* Reads what the journal has, simulates the rest on `jobs` workers; 0 when every pair is in. */
int pr_run(struct pairs_run *pr, unsigned jobs)
{
    pr->recs = xcalloc(pr->n, pr->rsize);
    pr->in = xcalloc(pr->n, sizeof(*pr->in));
    pr->todo = xcalloc(pr->n, sizeof(*pr->todo));
    for (size_t i = 0; i < pr->n; i++) {
        if (pj_get(pr->jn, i, pr_rec(pr, i), pr->rsize))
            pr->in[i] = true;
        else if (repro_in_run_shard(i, pr->n, pr->sh.k, pr->sh.n))
            pr->todo[pr->ntodo++] = i;
        else
            pr->missing++;
    }
    pr->resumed = pr->n - pr->ntodo - pr->missing;
    for (; !pr->sh.n && pr->printed < pr->n && pr->in[pr->printed]; pr->printed++)
        pr->print(pr, pr->printed, pr_rec(pr, pr->printed));
    const struct forkpool_ops ops = {
        .run = pr_task, .collect = pr_collect, .progress = pr_progress, .child_done = pr_child};
    cli_progress(pr->label, (double)pr->resumed / (double)(pr->n - pr->missing));
    if (pr->ntodo)
        forkpool_run(&ops, pr, pr->ntodo, pr->rsize, jobs);
    cli_progress(pr->label, 1);
    if (pr->failed > 1)
        fprintf(stderr, "corun: reproduce prophet: %zu more pair(s) failed\n", pr->failed - 1);
    return pr->failed ? -1 : 0;
}

void pr_done(struct pairs_run *pr)
{
    accel_memo_delete(pr->memo);
    pr->memo = NULL;
    free(pr->recs);
    free(pr->in);
    free(pr->todo);
}

/* After pr_run of a shard that left pairs to the others: the rows of the pairs it has, in
 * order, and what it did, instead of the summary. The journal is all a shard leaves, so a
 * pair it could not keep there is a failure. */
int pr_shard_done(struct pairs_run *pr)
{
    for (size_t i = 0; i < pr->n; i++)
        if (pr->in[i])
            pr->print(pr, i, pr_rec(pr, i));
    size_t simulated = 0;
    for (size_t i = 0; i < pr->ntodo; i++)
        simulated += pr->in[pr->todo[i]];
    printf("shard %u/%u: %zu of the %zu pairs simulated into %s (%zu read from it); the "
           "summary needs every pair: merge the shards' journals (`corun reproduce merge`; a Slurm "
           "job: `corun slurm collect JOB`)\n",
           pr->sh.k, pr->sh.n, simulated, pr->n, repro_journal_path(pr->jn->j), pr->resumed);
    int rc = pr->jn->warned ? CLI_FAILED : CLI_OK;
    pr_done(pr);
    repro_journal_close(pr->jn->j);
    return rc;
}

/* After a failed pr_run: the rows of the pairs that finished after the first failed one (the
 * rows print in order, so they waited), and what was lost; the summary is left out. The
 * finished pairs are in the journal, with --resume. */
int pr_failed(struct pairs_run *pr)
{
    size_t done = 0;
    for (size_t i = 0; i < pr->n; i++) {
        done += pr->in[i];
        if (pr->in[i] && (pr->sh.n || i >= pr->printed))
            pr->print(pr, i, pr_rec(pr, i));
    }
    if (pr->jn->j)
        printf("%zu of %zu pairs failed (named on stderr), %zu finished; the summary needs every "
               "pair: the same command with --resume %s simulates only the rest\n",
               pr->failed, pr->n, done, repro_journal_path(pr->jn->j));
    else
        printf("%zu of %zu pairs failed (named on stderr), %zu finished; the summary needs every "
               "pair (with --resume FILE a rerun simulates only what is missing)\n",
               pr->failed, pr->n, done);
    pr_done(pr);
    repro_journal_close(pr->jn->j);
    return CLI_FAILED;
}
