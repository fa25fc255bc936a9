/* rbhshift — HSM Fig. 4: private against shared RBH of the memory-bound HSM applications. */
#include "corun/rbhshift.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corun/conftable.h"
#include "corun/forkpool.h"
#include "corun/gpu.h"
#include "corun/preset.h"
#include "corun/solo.h"
#include "corun/util.h"

/* One simulation: kernel a alone on all SMs (b < 0), or a and b on an even split. */
struct task {
    int a, b;
};

/* What the parent keeps of a run; only rbh travels back from a worker. */
struct result {
    bool failed;
    double rbh[2];
    char err[FORKPOOL_ERROR_LEN];
};

struct job {
    const struct gpu_config *cfg;
    const struct rbhshift_options *o;
    struct kernel_profile *hsm; /* every HSM application, by name */
    size_t nhsm;
    struct task *tasks;
    size_t ntasks;
};

/* ---- the runs, here or in forked workers ---- */

struct run_ctx {
    const struct job *j;
    struct result *res; /* [ntasks], filled in the parent */
    rbhshift_progress_fn progress;
    void *user;
};

/* Run task->index into rbh[2]; 0, or -1 with a message in task->error. */
static int run_task(void *user, struct forkpool_task *ft, void *result)
{
    const struct job *j = ((const struct run_ctx *)user)->j;
    const struct task *task = &j->tasks[ft->index];
    double *rbh = result;
    char *err = ft->error;
    size_t errlen = sizeof ft->error;
    if (task->b < 0) {
        struct solo_result s;
        if (solo_characterize(j->cfg, &j->hsm[task->a], 0, j->o->cycles, j->o->seed, NULL, NULL, &s,
                              err, errlen) != 0)
            return -1;
        rbh[0] = s.rbh;
        return 0;
    }
    const struct kernel_profile *ps[2] = {&j->hsm[task->a], &j->hsm[task->b]};
    struct gpu *g = gpu_new(j->cfg, ps, 2, j->o->seed, err, errlen);
    if (!g)
        return -1;
    int *own = xcalloc(j->cfg->sms, sizeof(*own));
    gpu_partition_even(j->cfg->sms, 2, own);
    int rc = gpu_set_partition(g, own, j->cfg->sms, GPU_SWITCH_DRAIN, err, errlen);
    free(own);
    if (rc == 0) {
        gpu_run(g, j->o->cycles / 10);
        gpu_reset_counters(g);
        gpu_run(g, j->o->cycles);
        for (unsigned k = 0; k < 2; k++) {
            struct gpu_kernel_counters c;
            gpu_kernel_counters(g, k, &c);
            rbh[k] = c.rbh;
        }
    }
    gpu_delete(g);
    return rc;
}

static void collect(void *user, size_t t, const void *rbh, const char *error)
{
    struct run_ctx *c = user;
    if (rbh) {
        memcpy(c->res[t].rbh, rbh, sizeof c->res[t].rbh);
    } else {
        c->res[t].failed = true;
        snprintf(c->res[t].err, sizeof c->res[t].err, "%s", error);
    }
}

static void forward_progress(void *user, double done, size_t total)
{
    struct run_ctx *c = user;
    if (c->progress)
        c->progress(c->user, done, total);
}

/* Tasks go to whichever worker is idle, so a slow pair does not hold back the others; results
 * land by task whatever the number of workers. */
static void run_all(const struct job *j, struct result *res, rbhshift_progress_fn progress,
                    void *user)
{
    struct run_ctx c = {j, res, progress, user};
    const struct forkpool_ops ops = {
        .run = run_task, .collect = collect, .progress = forward_progress};
    forkpool_run(&ops, &c, j->ntasks, sizeof res->rbh, j->o->jobs);
}

/* ---- selection and the table ---- */

static bool in_list(const char *const *names, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(names[i], name) == 0)
            return true;
    return false;
}

static bool memory_bound(const struct kernel_profile *p)
{
    return p->target_class == KERNEL_CLASS_MEMORY;
}

/* Every HSM application, sorted by name, into j->hsm; names in o->only / o->with that are not
 * (memory-bound) HSM applications go to diags. */
static int load_hsm(const char *datadir, const struct rbhshift_options *o, struct job *j,
                    struct diag *diags)
{
    struct name_list all;
    preset_kernel_names(datadir, &all);
    int rc = 0;
    j->hsm = xcalloc(all.count + 1, sizeof(*j->hsm));
    for (size_t i = 0; i < all.count; i++) {
        struct kernel_profile p;
        if (preset_kernel_load(datadir, all.names[i], &p, diags) != 0) {
            rc = -1;
            continue;
        }
        if (p.paper == KERNEL_PAPER_HSM)
            j->hsm[j->nhsm++] = p;
        else
            kernel_profile_done(&p);
    }
    name_list_done(&all);
    for (size_t i = 0; i < o->n_only + o->n_with; i++) {
        bool only = i < o->n_only;
        const char *name = only ? o->only[i] : o->with[i - o->n_only];
        size_t k = 0;
        while (k < j->nhsm && strcmp(j->hsm[k].name, name) != 0)
            k++;
        if (k == j->nhsm || (only && !memory_bound(&j->hsm[k]))) {
            /* The names it takes, and the likely one ("LBM", "pvc " were only refused). */
            const char **names = xcalloc(j->nhsm + 1, sizeof(*names));
            size_t n = 0;
            for (size_t h = 0; h < j->nhsm; h++)
                if (!only || memory_bound(&j->hsm[h]))
                    names[n++] = j->hsm[h].name;
            char *known = conf_known_names(name, names, n);
            diag_add(diags, "corun: rbh-shift: \"%s\" is not %s HSM application%s%s", name,
                     only ? "a memory-bound" : "an",
                     k == j->nhsm ? " (profiles with paper = \"hsm\")" : "", known);
            free(known);
            free(names);
            rc = -1;
        }
    }
    return rc;
}

static bool selected(const struct job *j, int k)
{
    return memory_bound(&j->hsm[k]) &&
           (j->o->n_only == 0 || in_list(j->o->only, j->o->n_only, j->hsm[k].name));
}

static bool partners(const struct job *j, int k)
{
    return j->o->n_with == 0 || in_list(j->o->with, j->o->n_with, j->hsm[k].name);
}

/* The private runs, then each pair once (a pair of two selected applications serves both). */
static void plan(struct job *j)
{
    size_t n = j->nhsm;
    j->tasks = xcalloc(n + n * n + 1, sizeof(*j->tasks));
    for (size_t a = 0; a < n; a++)
        if (selected(j, (int)a))
            j->tasks[j->ntasks++] = (struct task){(int)a, -1};
    for (size_t a = 0; a < n; a++)
        for (size_t b = a + 1; b < n; b++)
            if ((selected(j, (int)a) && partners(j, (int)b)) ||
                (selected(j, (int)b) && partners(j, (int)a)))
                j->tasks[j->ntasks++] = (struct task){(int)a, (int)b};
}

/* Fill the row of application k from the runs. */
static void tabulate(const struct job *j, const struct result *res, int k, struct rbhshift_row *w)
{
    w->kernel = xstrdup(j->hsm[k].name);
    w->pairs = xcalloc(j->nhsm, sizeof(*w->pairs));
    w->rbh_min = INFINITY;
    w->rbh_max = -INFINITY;
    double sum = 0;
    for (size_t t = 0; t < j->ntasks; t++) {
        const struct task *task = &j->tasks[t];
        if (task->b < 0) {
            if (task->a == k)
                w->rbh_private = res[t].rbh[0];
            continue;
        }
        int side = task->a == k ? 0 : task->b == k ? 1 : -1;
        int other = side == 0 ? task->b : task->a;
        if (side < 0 || !partners(j, other) || res[t].failed)
            continue;
        struct rbhshift_pair *p = &w->pairs[w->npairs++];
        p->corunner = xstrdup(j->hsm[other].name);
        p->rbh_shared = res[t].rbh[side];
        sum += p->rbh_shared;
        w->rbh_min = fmin(w->rbh_min, p->rbh_shared);
        w->rbh_max = fmax(w->rbh_max, p->rbh_shared);
    }
    w->rbh_mean = w->npairs ? sum / (double)w->npairs : NAN;
    for (size_t i = 0; i < w->npairs; i++) {
        double shift = fabs(w->pairs[i].rbh_shared - w->rbh_private);
        if (i == 0 || shift > w->max_shift) {
            w->max_shift = shift;
            w->worst = i;
        }
    }
    w->ok = w->max_shift <= RBHSHIFT_TOLERANCE;
}

static void job_done(struct job *j)
{
    for (size_t i = 0; i < j->nhsm; i++)
        kernel_profile_done(&j->hsm[i]);
    free(j->hsm);
    free(j->tasks);
}

int rbhshift_run(const char *datadir, const struct rbhshift_options *o,
                 rbhshift_progress_fn progress, void *user, struct rbhshift_report *report,
                 struct diag *diags)
{
    memset(report, 0, sizeof(*report));
    struct gpu_config cfg;
    if (preset_gpu_find(datadir, o->gpu, "corun: --gpu", &cfg, diags) != 0)
        return -1;
    char err[512];
    if (gpu_sets_apply_gpu(&o->sets, &cfg, o->gpu, err, sizeof err) != 0) {
        diag_add(diags, "corun: rbh-shift: %s", err);
        return -1;
    }
    struct job j = {.cfg = &cfg, .o = o};
    if (load_hsm(datadir, o, &j, diags) != 0) {
        job_done(&j);
        return -1;
    }
    /* Every kernel that will run must fit the GPU as --set left it: a bad input, said before
     * anything runs (it was a failed run each, exit 1). */
    size_t before = diags->count;
    for (size_t k = 0; k < j.nhsm; k++)
        if ((selected(&j, (int)k) || partners(&j, (int)k)) &&
            preset_kernel_check(datadir, NULL, &cfg, &j.hsm[k], err, sizeof err) != 0)
            diag_add(diags, "corun: rbh-shift: on %s%s: %s", o->gpu,
                     o->sets.n ? " with its --set" : "", err);
    if (diags->count != before) {
        job_done(&j);
        return -1;
    }
    /* An application whose only co-runner named is itself would have no pair to compare. */
    bool lonely = false;
    for (size_t k = 0; k < j.nhsm; k++) {
        if (!selected(&j, (int)k))
            continue;
        size_t others = 0;
        for (size_t b = 0; b < j.nhsm; b++)
            others += b != k && partners(&j, (int)b);
        if (others == 0) {
            diag_add(diags, "corun: rbh-shift: %s has no co-runner: --with names only itself",
                     j.hsm[k].name);
            lonely = true;
        }
    }
    if (lonely) {
        job_done(&j);
        return -1;
    }
    plan(&j);
    struct result *res = xcalloc(j.ntasks + 1, sizeof(*res));
    run_all(&j, res, progress, user);
    /* A failed run is named and left out; the rest of the study is still reported. */
    bool *alone_failed = xcalloc(j.nhsm + 1, sizeof(*alone_failed));
    for (size_t t = 0; t < j.ntasks; t++)
        if (res[t].failed) {
            const struct task *task = &j.tasks[t];
            diag_add(diags, "corun: rbh-shift: %s%s%s on %s: %s", j.hsm[task->a].name,
                     task->b < 0 ? "" : " + ", task->b < 0 ? "" : j.hsm[task->b].name, o->gpu,
                     res[t].err);
            report->failed_runs++;
            if (task->b < 0)
                alone_failed[task->a] = true;
        }
    report->runs = j.ntasks;
    report->gpu = xstrdup(o->gpu);
    report->sms = cfg.sms;
    /* As gpu_partition_even splits them: kernel 0, the first by name, takes the odd SM. */
    report->sms_first = cfg.sms - cfg.sms / 2;
    report->sms_second = cfg.sms / 2;
    report->cycles = o->cycles;
    report->warmup_cycles = o->cycles / 10;
    report->rows = xcalloc(j.nhsm + 1, sizeof(*report->rows));
    for (size_t k = 0; k < j.nhsm; k++)
        if (selected(&j, (int)k) && !alone_failed[k]) {
            struct rbhshift_row *w = &report->rows[report->count];
            tabulate(&j, res, (int)k, w);
            if (w->npairs == 0) { /* every pair of it failed */
                free(w->pairs);
                free(w->kernel);
                memset(w, 0, sizeof(*w));
                continue;
            }
            report->count++;
            report->failures += !w->ok;
        }
    free(alone_failed);
    free(res);
    job_done(&j);
    return 0;
}

void rbhshift_report_done(struct rbhshift_report *r)
{
    for (size_t i = 0; i < r->count; i++) {
        for (size_t p = 0; p < r->rows[i].npairs; p++)
            free(r->rows[i].pairs[p].corunner);
        free(r->rows[i].pairs);
        free(r->rows[i].kernel);
    }
    free(r->rows);
    free(r->gpu);
    memset(r, 0, sizeof(*r));
}
