/* accel_predict — solo-run profiles measured on the core, and Prophet's and the sequential
 * model's predictions from them. */
#include "corun/accel_predict.h"

#include "corun/accel_run.h"
#include "corun/gpu.h"
#include "corun/pcie.h"
#include "corun/rng.h"
#include "corun/solo.h"
#include "corun/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SMALL_SMS        2      /* the small-input run's SMs */
#define BANDWIDTH_CYCLES 200000 /* the streaming kernel's run for the effective bandwidth */

int accel_predictor_find(const char *name)
{
    if (strcmp(name, "prophet") == 0)
        return ACCEL_PREDICT_PROPHET;
    if (strcmp(name, "sequential") == 0)
        return ACCEL_PREDICT_SEQUENTIAL;
    if (strcmp(name, "bubble") == 0)
        return ACCEL_PREDICT_BUBBLE;
    if (strcmp(name, "prophet-even") == 0)
        return ACCEL_PREDICT_PROPHET_EVEN;
    return -1;
}

const char *accel_predictor_name(int predictor)
{
    return predictor == ACCEL_PREDICT_PROPHET        ? "prophet"
           : predictor == ACCEL_PREDICT_SEQUENTIAL   ? "sequential"
           : predictor == ACCEL_PREDICT_BUBBLE       ? "bubble"
           : predictor == ACCEL_PREDICT_PROPHET_EVEN ? "prophet-even"
                                                     : "none";
}

const char *accel_predictor_summary(int predictor)
{
    switch (predictor) {
    case ACCEL_PREDICT_PROPHET:
        return "Prophet's schedule predictor: concurrent task execution (eqs. 2-5) and PCIe "
               "transfer (eqs. 6-9) models over solo-run profiles";
    case ACCEL_PREDICT_SEQUENTIAL:
        return "Prophet's baseline (eq. 1): one kernel at a time on the whole GPU, one copy at a "
               "time per direction";
    case ACCEL_PREDICT_PROPHET_EVEN:
        return "prophet with the link split evenly among sharing copies, the new one included "
               "(corun's variant of eqs. 6-8, not the paper's)";
    case ACCEL_PREDICT_BUBBLE:
        return "the PCIe bubble (Prophet 7.2.2): sensitivity to copy-only bubbles and each batch "
               "application's pressure in bubbles";
    default: return "no prediction";
    }
}

void accel_arrivals(const struct accel_scenario *sc, unsigned app, unsigned n, double *out)
{
    const struct accel_app *a = &sc->apps[app];
    if (a->arrival != ACCEL_POISSON) {
        memset(out, 0, n * sizeof(*out));
        return;
    }
    struct rng r;
    rng_seed(&r, sc->seed, 0xacce1000ull + app);
    double t = 0;
    for (unsigned q = 0; q < n; q++) {
        t += -log(1.0 - rng_uniform(&r)) / a->rate_qps * 1e9;
        out[q] = t;
    }
}

/* ---- measuring ---- */

/* One grid of p alone on cfg: its duration (cycles) and DRAM bytes. */
static int grid_alone(const struct gpu_config *cfg, const struct kernel_profile *p, uint64_t seed,
                      uint64_t *cycles, uint64_t *bytes, char *err, size_t errlen)
{
    struct gpu *g = gpu_new_shared(cfg, 1, seed, err, errlen);
    if (!g)
        return -1;
    if (gpu_launch(g, 0, p, err, errlen)) {
        gpu_delete(g);
        return -1;
    }
    while (gpu_stream_busy(g, 0))
        gpu_run_shared(g, 1000000);
    uint64_t l, s, d;
    gpu_stream_times(g, 0, &l, &s, &d);
    struct gpu_kernel_counters c;
    gpu_kernel_counters(g, 0, &c);
    *cycles = d - l;
    *bytes = c.dram_bytes;
    gpu_delete(g);
    return 0;
}

static int profile_kernel(const struct gpu_config *cfg, const struct kernel_profile *p,
                          uint64_t seed, struct prophet_kernel *k, uint64_t *sim_cycles, char *err,
                          size_t errlen)
{
    uint64_t cycles, bytes;
    if (grid_alone(cfg, p, seed, &cycles, &bytes, err, errlen))
        return -1;
    double ns_per_cycle = 1000.0 / cfg->core_clock_mhz;
    k->solo_ns = (double)cycles * ns_per_cycle;
    k->warps = p->tbs * p->warps_per_tb;
    unsigned occ = gpu_occupancy(cfg, p, NULL);
    k->occupancy = fmin(1.0, (double)(occ * p->warps_per_tb) / cfg->warps_per_sm);
    /* The small input: two rounds of full occupancy on SMALL_SMS SMs. */
    struct gpu_config small = *cfg;
    small.sms = SMALL_SMS;
    struct kernel_profile q = *p;
    unsigned tbs = 2 * occ * SMALL_SMS;
    q.tbs = p->tbs < tbs ? p->tbs : tbs;
    unsigned used = q.tbs < SMALL_SMS ? q.tbs : SMALL_SMS;
    uint64_t small_cycles, small_bytes;
    if (grid_alone(&small, &q, seed, &small_cycles, &small_bytes, err, errlen))
        return -1;
    double small_ns = (double)small_cycles * ns_per_cycle;
    k->bw_per_pe_gbs = small_ns > 0 ? (double)small_bytes / small_ns / used : 0;
    *sim_cycles += cycles + small_cycles;
    return 0;
}

static double copy_alone_ns(const struct pcie_config *cfg, uint64_t bytes, bool exclusive)
{
    struct pcie_link *l = pcie_link_new(cfg);
    pcie_link_submit(l, 0, 0, bytes, exclusive ? PCIE_EXCLUSIVE : PCIE_SHARED);
    double t = pcie_link_next_ns(l);
    pcie_link_delete(l);
    return t;
}

/* What a streaming kernel reaches alone on every SM. */
static double effective_gbs(const struct gpu_config *cfg, uint64_t seed, uint64_t *sim_cycles,
                            char *err, size_t errlen)
{
    const struct kernel_profile *p = kernel_builtin_find("stream");
    struct gpu *g = gpu_new(cfg, &p, 1, seed, err, errlen);
    if (!g)
        return -1;
    int *own = xcalloc(cfg->sms, sizeof(int));
    int rc = gpu_set_partition(g, own, cfg->sms, GPU_SWITCH_DRAIN, err, errlen);
    free(own);
    double gbs = -1;
    if (rc == 0) {
        gpu_run(g, BANDWIDTH_CYCLES / 4); /* past the cold start */
        gpu_reset_counters(g);
        gpu_run(g, BANDWIDTH_CYCLES);
        struct gpu_kernel_counters c;
        gpu_kernel_counters(g, 0, &c);
        gbs = c.bandwidth_gbs;
        *sim_cycles += BANDWIDTH_CYCLES + BANDWIDTH_CYCLES / 4;
    }
    gpu_delete(g);
    return gbs;
}

int accel_common_start(const struct accel_scenario *sc, char *err, size_t errlen)
{
    const char *why = "the predictors model every application from a common start; set it to 0 "
                      "to predict";
    if (sc->warmup_ms > 0) {
        snprintf(err, errlen, "warmup_ms = %g: %s", sc->warmup_ms, why);
        return -1;
    }
    for (unsigned a = 0; a < sc->napps; a++)
        if (sc->apps[a].stagger_ms > 0) {
            snprintf(err, errlen, "%s: stagger_ms = %g: %s", sc->apps[a].name,
                     sc->apps[a].stagger_ms, why);
            return -1;
        }
    return 0;
}

/* ---- the memo ---- */

struct memo_entry {
    uint64_t cfg, kernel, seed; /* kernel 0: the effective bandwidth */
    struct prophet_kernel k;
    double gbs;
};

struct accel_memo {
    struct memo_entry *e;
    size_t n, cap;
    struct accel_bubble_memo *bubbles;
};

struct accel_memo *accel_memo_new(void)
{
    return xcalloc(1, sizeof(struct accel_memo));
}

void accel_memo_delete(struct accel_memo *m)
{
    if (!m)
        return;
    free(m->e);
    accel_bubble_memo_delete(m->bubbles);
    free(m);
}

static struct memo_entry *memo_find(struct accel_memo *m, uint64_t cfg, uint64_t kernel,
                                    uint64_t seed)
{
    for (size_t i = 0; m && i < m->n; i++)
        if (m->e[i].cfg == cfg && m->e[i].kernel == kernel && m->e[i].seed == seed)
            return &m->e[i];
    return NULL;
}

static void memo_add(struct accel_memo *m, const struct memo_entry *e)
{
    if (!m)
        return;
    if (m->n == m->cap) {
        m->cap = m->cap ? 2 * m->cap : 16;
        m->e = xrealloc(m->e, m->cap * sizeof(*m->e));
    }
    m->e[m->n++] = *e;
}

/* A kernel profile's hash, never 0 (0 keys the effective bandwidth). */
static uint64_t kernel_key(const struct kernel_profile *p)
{
    uint64_t h = solo_profile_hash(p);
    return h ? h : 1;
}

/* ---- profiling ---- */

int accel_profile(const struct accel_scenario *sc, struct accel_profiles *out, char *err,
                  size_t errlen)
{
    return accel_profile_memo(sc, NULL, out, err, errlen);
}

int accel_profile_memo(const struct accel_scenario *sc, struct accel_memo *memo,
                       struct accel_profiles *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof(*out));
    if (accel_common_start(sc, err, errlen))
        return -1;
    const struct gpu_config *cfg = &sc->gpu;
    out->hw.pes = cfg->sms;
    out->hw.max_warps_per_pe = cfg->warps_per_sm;
    uint64_t cfg_key = solo_config_hash(cfg);
    const struct memo_entry *got = memo_find(memo, cfg_key, 0, sc->seed);
    if (got) {
        out->hw.mem_gbs = got->gbs;
    } else {
        out->hw.mem_gbs = effective_gbs(cfg, sc->seed, &out->cycles, err, errlen);
        if (!(out->hw.mem_gbs > 0))
            return -1;
        memo_add(memo,
                 &(struct memo_entry){.cfg = cfg_key, .seed = sc->seed, .gbs = out->hw.mem_gbs});
    }
    out->napps = sc->napps;
    for (unsigned a = 0; a < sc->napps; a++) {
        const struct accel_trace *t = &sc->apps[a].trace;
        out->ntasks[a] = t->ntasks;
        out->tasks[a] = xcalloc(t->ntasks, sizeof(struct prophet_task));
        for (unsigned i = 0; i < t->ntasks; i++) {
            const struct accel_task *k = &t->tasks[i];
            struct prophet_task *pt = &out->tasks[a][i];
            if (k->type == ACCEL_KERNEL) {
                pt->type = PROPHET_KERNEL;
                uint64_t key = kernel_key(&k->kernel);
                got = memo_find(memo, cfg_key, key, sc->seed);
                if (got) {
                    pt->kernel = got->k;
                } else {
                    if (profile_kernel(cfg, &k->kernel, sc->seed, &pt->kernel, &out->cycles, err,
                                       errlen))
                        return -1;
                    memo_add(memo,
                             &(struct memo_entry){
                                 .cfg = cfg_key, .kernel = key, .seed = sc->seed, .k = pt->kernel});
                }
                pt->solo_ns = pt->kernel.solo_ns;
            } else {
                pt->type = k->type == ACCEL_H2D ? PROPHET_H2D : PROPHET_D2H;
                pt->exclusive = k->copy == ACCEL_COPY_EXCLUSIVE;
                pt->solo_ns = copy_alone_ns(&cfg->pcie, k->bytes, pt->exclusive);
            }
            out->solo_ns[a] += pt->solo_ns;
        }
    }
    return 0;
}

int accel_profile_for(const struct accel_scenario *sc, int predictor, struct accel_profiles *out,
                      accel_stop_fn stop, char *err, size_t errlen)
{
    return accel_profile_for_memo(sc, predictor, NULL, out, stop, err, errlen);
}

int accel_profile_for_memo(const struct accel_scenario *sc, int predictor, struct accel_memo *memo,
                           struct accel_profiles *out, accel_stop_fn stop, char *err, size_t errlen)
{
    if (accel_profile_memo(sc, memo, out, err, errlen))
        return -1;
    if (predictor != ACCEL_PREDICT_BUBBLE)
        return 0;
    out->bubble = xcalloc(1, sizeof(*out->bubble));
    if (memo && !memo->bubbles)
        memo->bubbles = accel_bubble_memo_new();
    if (accel_bubble_measure_memo(sc, ACCEL_BUBBLE_LS | ACCEL_BUBBLE_BATCH,
                                  memo ? memo->bubbles : NULL, out->bubble, stop, err, errlen))
        return -1;
    out->cycles += out->bubble->cycles;
    return 0;
}

void accel_profiles_done(struct accel_profiles *p)
{
    for (unsigned a = 0; a < ACCEL_MAX_APPS; a++)
        free(p->tasks[a]);
    if (p->bubble)
        accel_bubble_done(p->bubble);
    free(p->bubble);
    memset(p, 0, sizeof(*p));
}

/* ---- predicting ---- */

void accel_predict(const struct accel_scenario *sc, const struct accel_profiles *p, int predictor,
                   double *lat_ms[ACCEL_MAX_APPS])
{
    if (predictor == ACCEL_PREDICT_BUBBLE) {
        accel_bubble_predict(sc, p->bubble, lat_ms);
        return;
    }
    struct prophet_app apps[ACCEL_MAX_APPS];
    double *ends[ACCEL_MAX_APPS] = {0}, *arrive[ACCEL_MAX_APPS] = {0};
    size_t n = 0;
    for (unsigned a = 0; a < sc->napps; a++) {
        const struct accel_app *app = &sc->apps[a];
        unsigned copies = app->role == ACCEL_BATCH ? app->instances : 1;
        for (unsigned i = 0; i < copies && n < ACCEL_MAX_APPS; i++, n++) {
            apps[n] = (struct prophet_app){p->tasks[a], p->ntasks[a], 0, 0, NULL, NULL};
            if (app->role != ACCEL_LS)
                continue;
            ends[a] = xcalloc(app->queries, sizeof(double));
            arrive[a] = xcalloc(app->queries, sizeof(double));
            accel_arrivals(sc, a, app->queries, arrive[a]);
            apps[n].passes = app->queries;
            apps[n].pass_end_ns = ends[a];
            apps[n].pass_arrival_ns = app->arrival == ACCEL_POISSON ? arrive[a] : NULL;
        }
    }
    struct prophet_hw hw = p->hw;
    hw.bs_even = predictor == ACCEL_PREDICT_PROPHET_EVEN;
    if (predictor == ACCEL_PREDICT_SEQUENTIAL)
        prophet_schedule_sequential(&hw, apps, n);
    else
        prophet_schedule(&hw, apps, n);
    for (unsigned a = 0; a < sc->napps; a++) {
        const struct accel_app *app = &sc->apps[a];
        if (app->role != ACCEL_LS)
            continue;
        for (unsigned q = 0; q < app->queries; q++) {
            /* closed loop: a query arrives when the last one ends */
            double from = app->arrival == ACCEL_POISSON ? arrive[a][q] : q ? ends[a][q - 1] : 0;
            /* a query after a starved one never arrives, and never completes either */
            lat_ms[a][q] = isinf(ends[a][q]) ? INFINITY : (ends[a][q] - from) / 1e6;
        }
        free(ends[a]);
        free(arrive[a]);
    }
}

double accel_predict_alone_p99(const struct accel_scenario *sc, const struct accel_profiles *p,
                               int predictor, unsigned app)
{
    struct accel_scenario alone = *sc; /* shallow; every other application empty */
    for (unsigned a = 0; a < sc->napps; a++) {
        if (a == app)
            continue;
        alone.apps[a].role = ACCEL_BATCH;
        alone.apps[a].instances = 0;
    }
    unsigned n = sc->apps[app].queries;
    double *lat = xcalloc(n ? n : 1, sizeof(double));
    double *out[ACCEL_MAX_APPS] = {0};
    out[app] = lat;
    accel_predict(&alone, p, predictor, out);
    double x = accel_percentile(lat, n, 99);
    free(lat);
    return x;
}
