/* train_themis — Themis' training runs (simulated, optionally in forked workers), then the
 * network fit and its train/test errors. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corun/forkpool.h"
#include "corun/mlp.h"
#include "corun/themis.h"
#include "corun/train.h"
#include "corun/util.h"

#define NCOUNTS     6 /* SM counts: five splits and every SM */
#define NLEVELS     12
#define ERR_LEN     160
#define MAX_KERNELS 64

/* One simulation: a kernel alone on counts[n], or kernel a on counts[n] SMs beside b on the
 * rest. */
struct item {
    bool alone;
    unsigned a, b, n;
};

/* What the parent keeps of one simulation; only the counters travel back from a worker. */
struct record {
    int ok;
    struct gpu_kernel_counters c[2];
    char err[FORKPOOL_ERROR_LEN];
};

struct plan {
    struct gpu_config cfg;
    uint64_t cycles, seed;
    unsigned counts[NCOUNTS];
    struct kernel_profile prof[MAX_KERNELS]; /* train kernels, test kernels, producers */
    char *names[MAX_KERNELS];
    size_t nprof, ntrain, ntest;
    struct item *items;
    size_t nitems;
    struct record *results; /* [nitems] */
};

static int run_item(const struct plan *p, const struct item *it, struct gpu_kernel_counters *c,
                    char *err, size_t errlen)
{
    const struct kernel_profile *ps[2] = {&p->prof[it->a], &p->prof[it->b]};
    unsigned nk = it->alone ? 1 : 2, n = p->counts[it->n];
    struct gpu *g = gpu_new(&p->cfg, ps, nk, p->seed, err, errlen);
    if (!g)
        return -1;
    int owner[1024];
    for (unsigned i = 0; i < p->cfg.sms; i++)
        owner[i] = i < n ? 0 : it->alone ? GPU_SM_GATED : 1;
    if (gpu_set_partition(g, owner, p->cfg.sms, GPU_SWITCH_DRAIN, err, errlen) != 0) {
        gpu_delete(g);
        return -1;
    }
    /* Warm the caches and fill the DRAM queues before counting. */
    gpu_run(g, p->cycles / 4);
    gpu_reset_counters(g);
    gpu_run(g, p->cycles);
    for (unsigned k = 0; k < nk; k++)
        gpu_kernel_counters(g, k, &c[k]);
    gpu_delete(g);
    return 0;
}

static const char *item_label(const struct plan *p, size_t i, char *buf, size_t len)
{
    const struct item *it = &p->items[i];
    if (it->alone)
        snprintf(buf, len, "%s alone @%u", p->names[it->a], p->counts[it->n]);
    else
        snprintf(buf, len, "%s@%u + %s", p->names[it->a], p->counts[it->n], p->names[it->b]);
    return buf;
}

/* ---- the runs, here or in forked workers ---- */

struct run_ctx {
    struct plan *p;
    calib_progress_fn progress;
    void *user;
    size_t done;
};

/* Item task->index into counters c[2]; 0, or -1 with a message in task->error. */
static int run_task(void *user, struct forkpool_task *task, void *c)
{
    const struct plan *p = ((const struct run_ctx *)user)->p;
    return run_item(p, &p->items[task->index], c, task->error, sizeof task->error);
}

static void collect(void *user, size_t i, const void *c, const char *error)
{
    struct run_ctx *ctx = user;
    struct record *r = &ctx->p->results[i];
    r->ok = c != NULL;
    if (c)
        memcpy(r->c, c, sizeof r->c);
    else
        snprintf(r->err, sizeof r->err, "%s", error);
    char label[128];
    if (ctx->progress)
        ctx->progress(ctx->user, item_label(ctx->p, i, label, sizeof label), ++ctx->done,
                      ctx->p->nitems);
}

/* Every item, on jobs forked workers (or here when jobs is 1); results land by item whatever
 * the number of workers. */
static int run_all(struct plan *p, unsigned jobs, calib_progress_fn progress, void *user,
                   struct diag *d)
{
    struct run_ctx ctx = {p, progress, user, 0};
    const struct forkpool_ops ops = {.run = run_task, .collect = collect};
    if (forkpool_run(&ops, &ctx, p->nitems, sizeof p->results->c, jobs) == 0)
        return 0;
    char label[128];
    for (size_t i = 0; i < p->nitems; i++)
        if (!p->results[i].ok) {
            diag_add(d, "corun: train themis: %s: %s", item_label(p, i, label, sizeof label),
                     p->results[i].err);
            break;
        }
    return -1;
}

/* Add profile name to p; returns its index or -1. */
static int add_profile(struct plan *p, const char *datadir, const char *name, struct diag *d)
{
    if (p->nprof == MAX_KERNELS) {
        diag_add(d, "corun: train themis: more than %d kernels", MAX_KERNELS);
        return -1;
    }
    if (preset_kernel_find(datadir, name, "corun: train themis", &p->prof[p->nprof], d) != 0)
        return -1;
    p->names[p->nprof] = xstrdup(name);
    return (int)p->nprof++;
}

/* Themis' split kernels (quick: the first of each class, fewer for the test set). */
static int add_split(struct plan *p, const char *datadir, int split, bool quick, struct diag *d)
{
    struct name_list all;
    preset_kernel_names(datadir, &all);
    bool class_taken[4] = {false};
    size_t added = 0;
    int rc = 0;
    for (size_t i = 0; i < all.count && rc == 0; i++) {
        struct kernel_profile k;
        if (preset_kernel_load(datadir, all.names[i], &k, d) != 0) {
            rc = -1;
            break;
        }
        bool take = k.paper == KERNEL_PAPER_THEMIS && k.split == split &&
                    k.target_class > KERNEL_CLASS_NONE && k.target_class <= KERNEL_CLASS_BALANCED;
        if (take && quick)
            take = !class_taken[k.target_class] &&
                   (split == KERNEL_SPLIT_TRAIN || k.target_class != KERNEL_CLASS_BALANCED);
        if (take) {
            class_taken[k.target_class] = true;
            rc = add_profile(p, datadir, all.names[i], d) < 0 ? -1 : 0;
            added++;
        }
        kernel_profile_done(&k);
    }
    name_list_done(&all);
    if (rc == 0 && added == 0) {
        diag_add(d, "corun: train themis: no Themis %s kernels in %s/data/kernels",
                 split == KERNEL_SPLIT_TRAIN ? "training" : "test", datadir);
        rc = -1;
    }
    return rc;
}

static void add_item(struct plan *p, bool alone, unsigned a, unsigned b, unsigned n)
{
    p->items = xrealloc(p->items, (p->nitems + 1) * sizeof(*p->items));
    p->items[p->nitems++] = (struct item){alone, a, b, n};
}

/* The SM counts N/6, N/3, N/2, N - N/3, N - N/6 and N, so that splits pair up exactly. */
static void sm_counts(unsigned sms, unsigned *c)
{
    c[0] = (unsigned)lround(sms / 6.0);
    c[1] = (unsigned)lround(sms / 3.0);
    c[2] = sms / 2;
    c[3] = sms - c[1];
    c[4] = sms - c[0];
    c[5] = sms;
    for (int i = 0; i < NCOUNTS; i++)
        c[i] = c[i] ? c[i] : 1;
}

static int make_plan(struct plan *p, const char *datadir, const char *gpu,
                     const struct train_themis_options *o, struct train_themis_result *out,
                     struct diag *d)
{
    if (preset_gpu_find(datadir, gpu, "corun: --gpu", &p->cfg, d) != 0)
        return -1;
    if (p->cfg.sms < 6 || p->cfg.sms > 1024) {
        diag_add(d, "corun: train themis: %s has %u SMs; the splits need 6 to 1024", gpu,
                 p->cfg.sms);
        return -1;
    }
    p->seed = o->seed;
    p->cycles = o->cycles ? o->cycles : o->quick ? TRAIN_THEMIS_QUICK_CYCLES : TRAIN_THEMIS_CYCLES;
    sm_counts(p->cfg.sms, p->counts);
    if (add_split(p, datadir, KERNEL_SPLIT_TRAIN, o->quick, d) != 0)
        return -1;
    p->ntrain = p->nprof;
    if (add_split(p, datadir, KERNEL_SPLIT_TEST, o->quick, d) != 0)
        return -1;
    p->ntest = p->nprof - p->ntrain;
    static const unsigned quick_levels[] = {1, 6, 12}, quick_splits[] = {1, 3};
    size_t nlevels = o->quick ? 3 : NLEVELS, nsplits = o->quick ? 2 : 5;
    size_t first_producer = p->nprof;
    for (size_t l = 0; l < nlevels; l++)
        for (int kind = 0; kind < 2; kind++) {
            unsigned level = o->quick ? quick_levels[l] : (unsigned)l + 1;
            char name[32];
            snprintf(name, sizeof name, "%s%u", kind ? "bwpp" : "cachepp", level);
            if (add_profile(p, datadir, name, d) < 0)
                return -1;
        }
    for (unsigned k = 0; k < p->ntrain + p->ntest; k++)
        for (unsigned n = 0; n < NCOUNTS; n++)
            add_item(p, true, k, k, n);
    for (unsigned k = 0; k < p->ntrain; k++)
        for (size_t pp = first_producer; pp < p->nprof; pp++)
            for (size_t s = 0; s < nsplits; s++)
                add_item(p, false, k, (unsigned)pp, o->quick ? quick_splits[s] : (unsigned)s);
    /* Test pairs: N/6:5N/6, N/3:2N/3, N/2:N/2 (quick: N/2:N/2 only). */
    for (unsigned a = 0; a < p->ntest; a++)
        for (unsigned b = 0; b < p->ntest; b++)
            for (unsigned s = o->quick ? 2 : 0; s < 3; s++)
                add_item(p, false, (unsigned)p->ntrain + a, (unsigned)p->ntrain + b, s);
    p->results = xcalloc(p->nitems, sizeof(*p->results));
    out->train_kernels = p->ntrain;
    out->test_kernels = p->ntest;
    out->levels = nlevels;
    out->splits = nsplits;
    out->runs = p->nitems;
    out->cycles = p->cycles;
    return 0;
}

/* IPC of kernel k alone on counts[n] (items list every kernel's solos first, in order). */
static double solo_ipc(const struct plan *p, unsigned k, unsigned n)
{
    return p->results[(size_t)k * NCOUNTS + n].c[0].ipc;
}

struct samples {
    double *x, *y; /* n rows of THEMIS_INPUTS, of 2 */
    int *cls;
    size_t n;
};

/* Kernel j of co-run item i as a sample: features and labels. Skipped when a rate is 0. */
static void add_sample(const struct plan *p, size_t i, unsigned j, struct samples *s)
{
    const struct item *it = &p->items[i];
    const struct record *r = &p->results[i];
    unsigned k = j == 0 ? it->a : it->b, n = j == 0 ? it->n : NCOUNTS - 2 - it->n;
    double all = solo_ipc(p, k, NCOUNTS - 1), part = solo_ipc(p, k, n);
    double x[THEMIS_INPUTS];
    if (!(all > 0) || !(part > 0) || !(r->c[j].ipc > 0) || themis_features(r->c, 2, j, x) != 0)
        return;
    s->x = xrealloc(s->x, (s->n + 1) * THEMIS_INPUTS * sizeof(*s->x));
    s->y = xrealloc(s->y, (s->n + 1) * 2 * sizeof(*s->y));
    s->cls = xrealloc(s->cls, (s->n + 1) * sizeof(*s->cls));
    memcpy(s->x + s->n * THEMIS_INPUTS, x, sizeof x);
    s->y[s->n * 2] = all / part;
    s->y[s->n * 2 + 1] = part / r->c[j].ipc;
    s->cls[s->n] = p->prof[k].target_class;
    s->n++;
}

static void samples_done(struct samples *s)
{
    free(s->x);
    free(s->y);
    free(s->cls);
}

/* Mean errors over s of the network in out (per class, then all) into out->rows. */
static void evaluate(struct train_themis_result *out, const struct samples *s, bool test)
{
    struct mlp net;
    mlp_init(&net, out->layers, THEMIS_LAYERS, 0);
    mlp_set_params(&net, out->weights + 2 * THEMIS_INPUTS, net.nparams);
    for (int cls = KERNEL_CLASS_COMPUTE; cls <= KERNEL_CLASS_BALANCED + 1; cls++) {
        struct train_themis_row *row = &out->rows[out->nrows++];
        *row = (struct train_themis_row){.test = test, .cls = cls};
        if (cls > KERNEL_CLASS_BALANCED)
            row->cls = KERNEL_CLASS_NONE;
        for (size_t r = 0; r < s->n; r++) {
            if (row->cls != KERNEL_CLASS_NONE && s->cls[r] != row->cls)
                continue;
            double scal, inter;
            const double *y = s->y + 2 * r;
            themis_slowdowns(&net, out->weights, out->weights + THEMIS_INPUTS,
                             s->x + r * THEMIS_INPUTS, &scal, &inter);
            double sd = scal * inter, truth = y[0] * y[1];
            row->err_scal += fabs(scal - y[0]) / y[0];
            row->err_inter += fabs(inter - y[1]) / y[1];
            row->err_sd += fabs(sd - truth) / truth;
            row->are_np += fabs(truth / sd - 1); /* |1/sd - 1/truth| / (1/truth) */
            row->samples++;
        }
        if (row->samples) {
            double n = (double)row->samples;
            row->err_scal /= n;
            row->err_inter /= n;
            row->err_sd /= n;
            row->are_np /= n;
        }
    }
    mlp_done(&net);
}

static void plan_done(struct plan *p)
{
    for (size_t i = 0; i < p->nprof; i++) {
        kernel_profile_done(&p->prof[i]);
        free(p->names[i]);
    }
    free(p->items);
    free(p->results);
}

int train_themis(const char *datadir, const char *gpu, const struct train_themis_options *o,
                 calib_progress_fn progress, void *user, struct train_themis_result *out,
                 struct diag *diags)
{
    memset(out, 0, sizeof(*out));
    struct plan *p = xcalloc(1, sizeof(*p));
    int rc = make_plan(p, datadir, gpu, o, out, diags) == 0 ? 0 : TRAIN_BAD_INPUT;
    if (rc == 0 && run_all(p, o->jobs, progress, user, diags) != 0)
        rc = TRAIN_FAILED;
    struct samples train = {0}, test = {0};
    if (rc == 0) {
        for (size_t i = 0; i < p->nitems; i++) {
            const struct item *it = &p->items[i];
            if (it->alone)
                continue;
            bool is_test = it->a >= p->ntrain;
            add_sample(p, i, 0, is_test ? &test : &train);
            if (is_test)
                add_sample(p, i, 1, &test);
        }
        if (train.n < 2 * THEMIS_INPUTS) {
            diag_add(diags, "corun: train themis: only %zu usable training samples", train.n);
            rc = TRAIN_FAILED;
        }
    }
    if (rc == 0) {
        if (progress)
            progress(user, "fitting the network", p->nitems, p->nitems);
        out->gpu = xstrdup(gpu);
        out->sms = p->cfg.sms;
        memcpy(out->layers, themis_widths, sizeof(out->layers));
        out->nweights = THEMIS_WEIGHTS;
        out->weights = xcalloc(THEMIS_WEIGHTS, sizeof(*out->weights));
        unsigned epochs = o->quick ? TRAIN_THEMIS_QUICK_EPOCHS : TRAIN_THEMIS_EPOCHS;
        out->loss = themis_fit(train.x, train.y, train.n, epochs, o->seed, out->weights);
        evaluate(out, &train, false);
        evaluate(out, &test, true);
        if (progress)
            progress(user, "", p->nitems, p->nitems);
    }
    samples_done(&train);
    samples_done(&test);
    plan_done(p);
    free(p);
    if (rc != 0)
        train_themis_done(out);
    return rc;
}

void train_themis_done(struct train_themis_result *r)
{
    free(r->gpu);
    free(r->weights);
    memset(r, 0, sizeof(*r));
}
