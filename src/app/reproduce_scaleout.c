/* reproduce_scaleout — the scale-out study: per cell (LS application, batch application, load
 * level) the predictors' choices and the core's truth for each choice, then the cluster's
 * day summed from the cells. */
#include "corun/reproduce_scaleout.h"

#include "corun/accel_bubble.h"
#include "corun/accel_predict.h"
#include "corun/accel_run.h"
#include "corun/accel_scenario.h"
#include "corun/forkpool.h"
#include "corun/reproduce.h"
#include "corun/reproduce_journal.h"
#include "corun/reproduce_prophet.h"
#include "corun/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *so_decider_name(int d)
{
    static const char *const names[] = {"none", "prophet", "sequential", "bubble", "full"};
    return d >= 0 && d < SO_DECIDERS ? names[d] : "?";
}

/* Prophet §7.4: seven LS applications, 100 GPUs each; 11 000 instances of the 11 batch
 * applications. */
static const char *const all_ls[] = {"asr", "gmm", "stemmer", "dig", "imc", "ner", "pos"};
static const char *const all_batch[] = {"hw", "md", "kms", "mc",     "bp",   "bfs",
                                        "pf", "hs", "nn",  "bfs-ex", "pf-ex"};
static const char *const quick_ls[] = {"gmm", "pos"};
static const char *const quick_batch[] = {"pf", "nn"};

void so_params_default(bool quick, struct so_params *p)
{
    *p = (struct so_params){
        .ls = quick ? quick_ls : all_ls,
        .nls = quick ? CORUN_ARRAY_LEN(quick_ls) : CORUN_ARRAY_LEN(all_ls),
        .batch = quick ? quick_batch : all_batch,
        .nbatch = quick ? CORUN_ARRAY_LEN(quick_batch) : CORUN_ARRAY_LEN(all_batch),
        .gpus = quick ? 4 : 700,
        .batch_pool = quick ? 63 : 11000, /* quick: the same 11000 / 700 per GPU */
        .slots = quick ? 2 : 8,
        .trough = 0.1,
        .peak = 0.5,
        .target = 1 / 0.7, /* §7.4's 70 % policy: 70 % of the solo performance */
        .queries = quick ? 6 : 20,
    };
}

double so_load(const struct so_params *p, unsigned slot)
{
    double phase = 2 * acos(-1.0) * (double)slot / p->slots;
    return p->trough + (p->peak - p->trough) * (1 - cos(phase)) / 2;
}

unsigned so_level(const struct so_params *p, unsigned slot)
{
    unsigned s = slot % p->slots;
    return s <= p->slots - s ? s : p->slots - s;
}

/* ---- the cluster's day from the cells ---- */

void so_summarize(const struct so_params *p, const struct so_cell *cells,
                  struct so_summary sum[SO_DECIDERS])
{
    unsigned levels = p->slots / 2 + 1, per_ls = p->gpus / (unsigned)p->nls;
    for (int d = 0; d < SO_DECIDERS; d++) {
        struct so_summary *s = &sum[d];
        memset(s, 0, sizeof(*s));
        double placed_total = 0, gpus_total = 0, share = 0, busy = 0;
        for (unsigned slot = 0; slot < p->slots; slot++) {
            unsigned level = so_level(p, slot), placed = 0;
            for (unsigned g = 0; g < p->gpus; g++) {
                size_t ls = g / per_ls, batch = g % p->nbatch;
                const struct so_cell *c = &cells[(ls * p->nbatch + batch) * levels + level];
                int k = c->k[d];
                placed += (unsigned)k;
                share += (double)k / SO_MAX_INSTANCES;
                busy += c->gpu_util[k];
                if (k > 0) {
                    s->colocations++;
                    s->violations += c->p99_x[k] > p->target;
                    s->violations10 += c->p99_x[k] > 1.1 * p->target;
                }
            }
            unsigned rest = placed < p->batch_pool ? p->batch_pool - placed : 0;
            unsigned gpus = p->gpus + (rest + SO_GPU_PROCS - 1) / SO_GPU_PROCS;
            if (gpus > s->gpus_peak)
                s->gpus_peak = gpus;
            gpus_total += gpus;
            placed_total += placed;
        }
        double gpu_slots = (double)p->gpus * p->slots;
        s->gpus_mean = gpus_total / p->slots;
        s->placed_mean = placed_total / p->slots;
        s->slot_share = share / gpu_slots;
        s->sm_busy = busy / gpu_slots;
    }
}

/* ---- measuring the cells ---- */

bool so_in_shard(const struct so_params *p, size_t cell)
{
    if (p->shards <= 1)
        return true;
    size_t levels = p->slots / 2 + 1, ncells = p->nls * p->nbatch * levels;
    size_t level = cell % levels, b = cell / levels % p->nbatch, ls = cell / levels / p->nbatch;
    size_t pos = (ls * levels + level) * p->nbatch + b; /* LS application, load, batch */
    return repro_in_run_shard(pos, ncells, p->shard, p->shards);
}

struct study {
    const char *datadir;
    const struct so_params *p;
    struct so_result *r; /* levels and loads; the parent's results */
    char *err;
    size_t errlen;
    struct accel_memo *memo;        /* every kernel is profiled once per process */
    struct accel_bubble batch_part; /* the batch pressures */
    double *qps;                    /* [ls]: the rate it serves alone */
    struct accel_bubble *parts;     /* [ls * levels + level]: it alone at that load */
    /* A stage's tasks (the (LS, level) pairs whose curves to measure, or the cells to
     * simulate), with what the cell under way simulated. */
    const size_t *todo;
    unsigned simulations;
    uint64_t cycles;
    /* The parent's. */
    size_t units, units_done; /* progress: cells and curves */
    so_progress_fn progress;
    void *ctx;
    size_t nfailed;    /* curves and cells */
    bool *part_failed; /* [ls * levels + level]: its curve's measurement failed */
};

/* The LS application `ls` beside k instances of batch `b` (k = 0: alone) at `rate`. */
static int scenario(struct study *s, struct accel_scenario *sc, size_t ls, size_t b, unsigned k,
                    double rate)
{
    return rp_scenario(sc, s->datadir, s->p->ls[ls], &s->p->batch[b], &k, 1, s->p->queries,
                       s->p->target, rate, s->err, s->errlen);
}

/* The predicted p99 of every k, over k = 0's; the most instances keeping the target. */
static int decide(struct study *s, const struct accel_profiles *prof, int predictor, size_t ls,
                  size_t b, double rate)
{
    double p99[SO_MAX_INSTANCES + 1];
    int best = 0;
    for (unsigned k = 0; k <= SO_MAX_INSTANCES; k++) {
        struct accel_scenario sc;
        if (scenario(s, &sc, ls, b, k, rate)) {
            accel_scenario_done(&sc);
            return -1;
        }
        double *lat = xcalloc(s->p->queries, sizeof(double));
        double *out[ACCEL_MAX_APPS] = {lat};
        accel_predict(&sc, prof, predictor, out); /* k = 0: alone, the reference */
        p99[k] = accel_percentile(lat, s->p->queries, 99);
        free(lat);
        if (k && p99[k] <= s->p->target * p99[0])
            best = (int)k;
        accel_scenario_done(&sc);
    }
    return best;
}

/* Runs configuration k of the cell on the core, once. The LS application alone at this load,
 * under the same arrivals, is the run ls_part measured: it is k = 0 (p99 over itself: 1) and
 * every k's reference, so neither is simulated again. */
static int simulate(struct study *s, struct so_cell *c, size_t ls, size_t b, unsigned k,
                    double rate, const struct accel_bubble *ls_part)
{
    if (c->simulated[k])
        return 0;
    if (k == 0) {
        c->simulated[0] = true;
        c->p99_x[0] = 1;
        c->gpu_util[0] = ls_part->alone_util[0];
        return 0;
    }
    struct accel_scenario sc;
    int rc = scenario(s, &sc, ls, b, k, rate);
    struct accel_result r;
    memset(&r, 0, sizeof(r));
    struct accel_run_options o = {.solo_latency_ms = {ls_part->alone_ms[0]}};
    if (rc == 0)
        rc = accel_run(&sc, &o, &r, s->err, s->errlen);
    if (rc == 0) {
        c->simulated[k] = true;
        c->p99_x[k] = r.app[0].p99_ms / r.app[0].solo_p99_ms;
        c->gpu_util[k] = r.gpu_util;
        s->simulations++;
        s->cycles += r.cycles + r.solo_cycles;
    }
    accel_result_done(&r);
    accel_scenario_done(&sc);
    return rc;
}

struct accel_bubble *so_bubble_for(const struct accel_bubble *ls_part,
                                   const struct accel_bubble *batch_part, size_t b,
                                   unsigned queries)
{
    struct accel_bubble *x = xcalloc(1, sizeof(*x));
    x->reporter = batch_part->reporter;
    x->pressure[1] = batch_part->pressure[1 + b];
    x->reporter_deg[1] = batch_part->reporter_deg[1 + b];
    x->ls[0] = ls_part->ls[0];
    x->alone_ms[0] = xmalloc(queries * sizeof(double));
    memcpy(x->alone_ms[0], ls_part->alone_ms[0], queries * sizeof(double));
    return x;
}

static int cell(struct study *s, struct so_cell *c, size_t ls, size_t b, double rate,
                const struct accel_bubble *ls_part, const struct accel_bubble *batch_part)
{
    struct accel_scenario sc;
    struct accel_profiles prof;
    memset(&prof, 0, sizeof(prof));
    int rc = scenario(s, &sc, ls, b, 1, rate);
    if (rc == 0)
        rc = accel_profile_memo(&sc, s->memo, &prof, s->err, s->errlen);
    accel_scenario_done(&sc);
    if (rc == 0) {
        s->cycles += prof.cycles;
        prof.bubble = so_bubble_for(ls_part, batch_part, b, s->p->queries);
        static const int predictor[SO_DECIDERS] = {
            [SO_PROPHET] = ACCEL_PREDICT_PROPHET,
            [SO_SEQUENTIAL] = ACCEL_PREDICT_SEQUENTIAL,
            [SO_BUBBLE] = ACCEL_PREDICT_BUBBLE,
        };
        c->k[SO_NONE] = 0;
        c->k[SO_FULL] = SO_MAX_INSTANCES;
        for (int d = SO_PROPHET; d <= SO_BUBBLE && rc == 0; d++)
            rc = (c->k[d] = decide(s, &prof, predictor[d], ls, b, rate)) < 0 ? -1 : 0;
    }
    accel_profiles_done(&prof);
    for (int d = 0; d < SO_DECIDERS && rc == 0; d++)
        rc = simulate(s, c, ls, b, (unsigned)c->k[d], rate, ls_part);
    return rc;
}

/* The rate LS application ls serves alone: 1 / its profile's solo latency. */
static int capacity(struct study *s, size_t ls, double *qps)
{
    struct accel_scenario sc;
    struct accel_profiles prof;
    memset(&prof, 0, sizeof(prof));
    int rc = scenario(s, &sc, ls, 0, 0, 0);
    if (rc == 0)
        rc = accel_profile_memo(&sc, s->memo, &prof, s->err, s->errlen);
    if (rc == 0) {
        *qps = 1e9 / prof.solo_ns[0];
        s->cycles += prof.cycles;
    }
    accel_profiles_done(&prof);
    accel_scenario_done(&sc);
    return rc;
}

/* The reporter's curve and every batch application's pressure, once: one scenario holding
 * one instance of each batch application. */
static int batch_pressures(struct study *s, struct accel_bubble *out)
{
    unsigned *one = xcalloc(s->p->nbatch, sizeof(unsigned));
    for (size_t b = 0; b < s->p->nbatch; b++)
        one[b] = 1;
    struct accel_scenario sc;
    int rc = rp_scenario(&sc, s->datadir, s->p->ls[0], s->p->batch, one, s->p->nbatch,
                         s->p->queries, s->p->target, 0, s->err, s->errlen);
    free(one);
    if (rc == 0)
        rc = accel_bubble_measure_part(&sc, ACCEL_BUBBLE_BATCH, out, s->err, s->errlen);
    s->r->cycles += out->cycles;
    accel_scenario_done(&sc);
    return rc;
}

/* ---- the stages, on forked workers or here ---- */

/* Adds "WHAT: ERROR" to the run's failures, a line each. */
static void note_failure(struct study *s, const char *what, const char *error)
{
    struct so_result *r = s->r;
    char *line = xasprintf("%s%s: %s\n", r->failures ? r->failures : "", what, error);
    free(r->failures);
    r->failures = line;
    s->nfailed++;
}

static void progress_units(void *user, double done, size_t ntasks)
{
    (void)ntasks;
    struct study *s = user;
    if (s->progress)
        s->progress(s->ctx, ((double)s->units_done + done) / (double)s->units);
}

/* What a curve task sends back: LS application ls alone at a load (queries latencies follow). */
struct part_blob {
    struct bubble_curve curve;
    double util;
    uint64_t cycles;
    double alone_ms[];
};

static int run_part(void *user, struct forkpool_task *task, void *result)
{
    struct study *s = user;
    size_t g = s->todo[task->index], ls = g / s->r->levels;
    struct part_blob *out = result;
    struct accel_scenario sc;
    struct accel_bubble b;
    memset(&b, 0, sizeof(b));
    int rc = scenario(s, &sc, ls, 0, 0, s->r->load[g % s->r->levels] * s->qps[ls]);
    if (rc == 0)
        rc = accel_bubble_measure_part(&sc, ACCEL_BUBBLE_LS, &b, task->error, sizeof(task->error));
    else
        snprintf(task->error, sizeof(task->error), "%s", s->err);
    if (rc == 0) {
        out->curve = b.ls[0];
        out->util = b.alone_util[0];
        out->cycles = b.cycles;
        memcpy(out->alone_ms, b.alone_ms[0], s->p->queries * sizeof(double));
    }
    accel_bubble_done(&b);
    accel_scenario_done(&sc);
    return rc;
}

size_t so_curve_record_size(unsigned queries)
{
    return sizeof(struct part_blob) + queries * sizeof(double);
}

/* Takes the curve of (LS, level) pair g from a blob, measured or read from the journal. */
static void take_part(struct study *s, size_t g, const struct part_blob *in)
{
    struct accel_bubble *b = &s->parts[g];
    b->ls[0] = in->curve;
    b->alone_util[0] = in->util;
    b->cycles = in->cycles;
    b->alone_ms[0] = xmalloc(s->p->queries * sizeof(double));
    memcpy(b->alone_ms[0], in->alone_ms, s->p->queries * sizeof(double));
}

static void collect_part(void *user, size_t index, const void *result, const char *error)
{
    struct study *s = user;
    size_t g = s->todo[index];
    if (!result) {
        unsigned levels = s->r->levels;
        char *what = xasprintf("%s alone at %.0f %% load (the latency curve its cells need)",
                               s->p->ls[g / levels], 100 * s->r->load[g % levels]);
        note_failure(s, what, error);
        free(what);
        s->part_failed[g] = true;
        return;
    }
    const struct part_blob *in = result;
    take_part(s, g, in);
    s->r->cycles += in->cycles;
    char jerr[256]; /* the run goes on without it; the first failure is kept */
    if (s->p->curves && repro_journal_put(s->p->curves, 0, g, in, jerr, sizeof jerr) &&
        !s->r->curves_error[0])
        snprintf(s->r->curves_error, sizeof(s->r->curves_error), "%s", jerr);
}

/* A cell task's result: the cell as the journal keeps it. */
static int run_cell(void *user, struct forkpool_task *task, void *result)
{
    struct study *s = user;
    struct so_cell_record *out = result;
    size_t i = s->todo[task->index], nb = s->p->nbatch;
    unsigned levels = s->r->levels, level = (unsigned)(i % levels);
    size_t ls = i / levels / nb, b = i / levels % nb;
    s->err = task->error;
    s->errlen = sizeof(task->error);
    s->simulations = 0;
    s->cycles = 0;
    int rc = cell(s, &out->cell, ls, b, s->r->load[level] * s->qps[ls],
                  &s->parts[ls * levels + level], &s->batch_part);
    out->simulations = s->simulations;
    out->cycles = s->cycles;
    return rc;
}

static void collect_cell(void *user, size_t index, const void *result, const char *error)
{
    struct study *s = user;
    struct so_result *r = s->r;
    size_t i = s->todo[index];
    if (!result) {
        unsigned levels = r->levels;
        char *what = xasprintf("%s beside %s at %.0f %% load", s->p->ls[i / levels / s->p->nbatch],
                               s->p->batch[i / levels % s->p->nbatch], 100 * r->load[i % levels]);
        note_failure(s, what, error);
        free(what);
        r->failed++;
        return;
    }
    struct so_cell_record rec;
    memcpy(&rec, result, sizeof(rec)); /* padding too (zeroed by the pool): the journal copies */
    r->cells[i] = rec.cell;
    r->present[i] = true;
    r->simulated_cells++;
    r->simulations += rec.simulations;
    r->cycles += rec.cycles;
    char jerr[256]; /* the run goes on; the first failure is kept */
    if (s->p->journal && repro_journal_put(s->p->journal, 0, i, &rec, jerr, sizeof jerr) &&
        !r->journal_error[0])
        snprintf(r->journal_error, sizeof(r->journal_error), "%s", jerr);
}

/* A worker's copies of the parent's measurements, freed before it exits. */
static void child_done(void *user)
{
    struct study *s = user;
    for (size_t g = 0; g < s->p->nls * s->r->levels; g++)
        accel_bubble_done(&s->parts[g]);
    accel_bubble_done(&s->batch_part);
    accel_memo_delete(s->memo);
}

/* Runs the stage's tasks on the pool; each failure is noted in the result's failures. */
static void stage(struct study *s, const size_t *todo, size_t n, size_t result_size,
                  int (*run)(void *, struct forkpool_task *, void *),
                  void (*collect)(void *, size_t, const void *, const char *))
{
    char *err = s->err;
    size_t errlen = s->errlen;
    s->todo = todo;
    const struct forkpool_ops ops = {
        .run = run, .collect = collect, .progress = progress_units, .child_done = child_done};
    forkpool_run(&ops, s, n, result_size, s->p->jobs);
    s->err = err; /* run_cell points it at the task's */
    s->errlen = errlen;
    s->units_done += n;
}

/* The measurements the cells left share, then the cells: the batch pressures and each LS
 * application's rate here (short, and every worker then has them, the kernels' profiles in
 * its memo too), the curves of each (LS, level) pair and then the cells on the pool. */
static int measure(struct study *s, const size_t *todo, size_t ntodo)
{
    size_t levels = s->r->levels, npairs = s->p->nls * levels, ngroups = 0;
    size_t *groups = xcalloc(npairs, sizeof(size_t));
    bool *want = xcalloc(npairs, sizeof(bool));
    for (size_t t = 0; t < ntodo; t++)
        want[todo[t] / levels / s->p->nbatch * levels + todo[t] % levels] = true;
    for (size_t g = 0; g < npairs; g++) {
        const void *rec = want[g] && s->p->curves ? repro_journal_get(s->p->curves, 0, g) : NULL;
        if (rec) { /* measured by an earlier run of this build and data */
            take_part(s, g, rec);
            s->r->curves_resumed++;
        } else if (want[g]) {
            groups[ngroups++] = g;
        }
    }
    s->units = ngroups + ntodo;
    int rc = batch_pressures(s, &s->batch_part);
    for (size_t g = 0; g < npairs && rc == 0; g++) /* the cells need the rate, curve or not */
        if (want[g] && s->qps[g / levels] == 0)
            rc = capacity(s, g / levels, &s->qps[g / levels]);
    s->r->cycles += s->cycles;
    if (rc) {
        free(groups);
        free(want);
        return rc;
    }
    /* A failed curve or cell does not stop the others: the cells whose curve failed are left
     * out, and the rest are simulated and kept. */
    stage(s, groups, ngroups, so_curve_record_size(s->p->queries), run_part, collect_part);
    size_t *cells = xcalloc(ntodo, sizeof(size_t)), ncells = 0;
    for (size_t t = 0; t < ntodo; t++) {
        if (s->part_failed[todo[t] / levels / s->p->nbatch * levels + todo[t] % levels]) {
            s->r->failed++;
            s->units_done++;
        } else {
            cells[ncells++] = todo[t];
        }
    }
    stage(s, cells, ncells, sizeof(struct so_cell_record), run_cell, collect_cell);
    free(cells);
    free(groups);
    free(want);
    if (!s->nfailed)
        return 0;
    snprintf(s->err, s->errlen,
             "scale-out: %zu of the %zu cells to simulate not simulated (%zu "
             "failure%s)",
             s->r->failed, ntodo, s->nfailed, s->nfailed == 1 ? "" : "s");
    return -1;
}

int so_run(const char *datadir, const struct so_params *p, struct so_result *r,
           so_progress_fn progress, void *ctx, char *err, size_t errlen)
{
    memset(r, 0, sizeof(*r));
    if (p->shards && (p->shard < 1 || p->shard > p->shards)) {
        snprintf(err, errlen, "scale-out: shard %u of %u: expected 1 to %u", p->shard, p->shards,
                 p->shards);
        return -1;
    }
    if (p->slots < 2 || p->slots % 2 || p->slots / 2 + 1 > SO_MAX_LEVELS || p->gpus % p->nls ||
        p->nbatch + 1 > ACCEL_MAX_APPS) {
        snprintf(err, errlen,
                 "scale-out: %u slots, %u GPUs for %zu LS applications: expected an "
                 "even number of slots up to %d and the GPUs a multiple of the LS applications",
                 p->slots, p->gpus, p->nls, 2 * (SO_MAX_LEVELS - 1));
        return -1;
    }
    r->levels = p->slots / 2 + 1;
    for (unsigned l = 0; l < r->levels; l++)
        r->load[l] = so_load(p, l);
    size_t ncells = p->nls * p->nbatch * r->levels;
    r->cells = xcalloc(ncells, sizeof(struct so_cell));
    r->present = xcalloc(ncells, sizeof(bool));
    /* Cells the journal holds are read first; the shared measurements are made only for what
     * is left (they are deterministic, so a resumed run decides as a fresh one). The rest are
     * simulated in the order LS application, load, batch application. */
    size_t *todo = xcalloc(ncells, sizeof(size_t)), ntodo = 0;
    for (size_t ls = 0; ls < p->nls; ls++)
        for (unsigned l = 0; l < r->levels; l++)
            for (size_t b = 0; b < p->nbatch; b++) {
                size_t i = (ls * p->nbatch + b) * r->levels + l;
                const struct so_cell_record *rec =
                    p->journal ? repro_journal_get(p->journal, 0, i) : NULL;
                if (rec) {
                    r->cells[i] = rec->cell;
                    r->simulations += rec->simulations;
                    r->cycles += rec->cycles;
                    r->resumed++;
                    r->present[i] = true;
                } else if (!so_in_shard(p, i)) {
                    r->missing++; /* another shard's: nothing to measure for it here */
                } else {
                    todo[ntodo++] = i;
                }
            }
    struct study s = {.datadir = datadir,
                      .p = p,
                      .r = r,
                      .err = err,
                      .errlen = errlen,
                      .memo = accel_memo_new(),
                      .qps = xcalloc(p->nls, sizeof(double)),
                      .parts = xcalloc(p->nls * r->levels, sizeof(struct accel_bubble)),
                      .part_failed = xcalloc(p->nls * r->levels, sizeof(bool)),
                      .progress = progress,
                      .ctx = ctx};
    int rc = ntodo ? measure(&s, todo, ntodo) : 0;
    for (size_t g = 0; g < p->nls * r->levels; g++)
        accel_bubble_done(&s.parts[g]);
    free(s.parts);
    free(s.part_failed);
    free(s.qps);
    free(todo);
    accel_bubble_done(&s.batch_part);
    accel_memo_delete(s.memo);
    if (rc == 0 && !r->missing)
        so_summarize(p, r->cells, r->sum);
    return rc;
}

void so_result_done(struct so_result *r)
{
    free(r->cells);
    free(r->present);
    free(r->failures);
    memset(r, 0, sizeof(*r));
}
