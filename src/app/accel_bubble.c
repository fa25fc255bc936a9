/* accel_bubble — the PCIe-bubble baseline's curves and pressures, measured with the task
 * engine on scenarios derived from the one predicted. */
#include "corun/accel_bubble.h"

#include "corun/accel_run.h"
#include "corun/solo.h"
#include "corun/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The pressures a curve is measured at: up to 15 bubbles beside one application, 16
 * processes, what MPS serves. */
static const unsigned levels[] = {0, 1, 2, 4, 8, 15};
#define NLEVELS (sizeof levels / sizeof levels[0])

static const struct accel_task bubble_tasks[] = {
    {.type = ACCEL_H2D, .bytes = ACCEL_BUBBLE_BYTES, .copy = ACCEL_COPY_SHARED},
    {.type = ACCEL_D2H, .bytes = ACCEL_BUBBLE_BYTES, .copy = ACCEL_COPY_SHARED},
};

static struct accel_app bubble_app(char *name, int role, unsigned instances)
{
    struct accel_app a = {.name = name,
                          .role = role,
                          .instances = instances,
                          .arrival = ACCEL_CLOSED,
                          .queries = ACCEL_REPORTER_PASSES,
                          .qos_target = 1.0};
    a.trace.ntasks = CORUN_ARRAY_LEN(bubble_tasks);
    a.trace.tasks = (struct accel_task *)bubble_tasks; /* read only */
    return a;
}

/* Runs LS application `ls` beside `other` (NULL: alone) on sc's GPU and seed; its mean
 * latency and, when lat is given, each query's latency. The LS application keeps its index
 * `at` in sc (empty batch entries before it), so its Poisson arrivals are the same draws. */
static int mean_beside(const struct accel_scenario *sc, unsigned at, const struct accel_app *ls,
                       const struct accel_app *other, double *mean, double *lat,
                       struct accel_bubble *b, accel_stop_fn stop, char *err, size_t errlen)
{
    struct accel_scenario run = *sc; /* shallow: the applications are only read */
    char empty[] = "empty";
    for (unsigned i = 0; i < at; i++)
        run.apps[i] = bubble_app(empty, ACCEL_BATCH, 0);
    run.apps[at] = *ls;
    run.napps = at + 1;
    if (other) {
        if (run.napps == ACCEL_MAX_APPS) {
            snprintf(err, errlen,
                     "%s: the bubble baseline puts a bubble beside it, which needs "
                     "a free place among the %d applications",
                     ls->name, ACCEL_MAX_APPS);
            return -1;
        }
        run.apps[run.napps++] = *other;
    }
    struct accel_run_options o = {.solo_queries = 1, .stop = stop};
    struct accel_result r;
    int rc = accel_run(&run, &o, &r, err, errlen);
    if (rc > 0) {
        snprintf(err, errlen, "stopped while measuring %s's latency", ls->name);
        rc = -1;
    }
    if (rc == 0) {
        *mean = r.app[at].mean_ms;
        if (lat) {
            memcpy(lat, r.app[at].latency_ms, r.app[at].queries * sizeof(double));
            b->alone_util[at] = r.gpu_util;
        }
        b->cycles += r.cycles + r.solo_cycles;
    }
    accel_result_done(&r);
    return rc;
}

/* The curve of ls beside the bubble levels; its latencies alone into alone (may be NULL). */
static int curve(const struct accel_scenario *sc, unsigned at, const struct accel_app *ls,
                 struct bubble_curve *c, double *alone, struct accel_bubble *b, accel_stop_fn stop,
                 char *err, size_t errlen)
{
    char name[] = "bubble";
    double mean0 = 0;
    c->n = NLEVELS;
    for (unsigned i = 0; i < NLEVELS; i++) {
        struct accel_app bubbles = bubble_app(name, ACCEL_BATCH, levels[i]);
        double m;
        if (mean_beside(sc, at, ls, levels[i] ? &bubbles : NULL, &m, i ? NULL : alone, b, stop, err,
                        errlen))
            return -1;
        if (i == 0)
            mean0 = m;
        c->pressure[i] = levels[i];
        c->degradation[i] = mean0 > 0 ? m / mean0 : 1;
    }
    return 0;
}

int accel_bubble_measure(const struct accel_scenario *sc, struct accel_bubble *b,
                         accel_stop_fn stop, char *err, size_t errlen)
{
    memset(b, 0, sizeof(*b));
    return accel_bubble_measure_memo(sc, ACCEL_BUBBLE_LS | ACCEL_BUBBLE_BATCH, NULL, b, stop, err,
                                     errlen);
}

/* ---- the memo ---- */

enum memo_kind { MEMO_REPORTER, MEMO_LS, MEMO_BATCH };

struct memo_entry {
    enum memo_kind kind;
    uint64_t ctx, app; /* the scenario's GPU, link and seed; the application's content */
    unsigned at;       /* LS: its index in the scenario */
    struct bubble_curve curve;
    double mean;      /* reporter: its mean alone; batch: the reporter's beside one instance */
    double *alone_ms; /* LS: queries values */
    double util;
};

struct accel_bubble_memo {
    struct memo_entry *e;
    size_t n, cap;
};

struct accel_bubble_memo *accel_bubble_memo_new(void)
{
    return xcalloc(1, sizeof(struct accel_bubble_memo));
}

void accel_bubble_memo_delete(struct accel_bubble_memo *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->n; i++)
        free(m->e[i].alone_ms);
    free(m->e);
    free(m);
}

/* What every measurement depends on besides the applications: the GPU (its core and memory
 * as the solo traces key them, and the host link), the seed and the warm-up. */
static uint64_t context_key(const struct accel_scenario *sc)
{
    uint64_t h = solo_config_hash(&sc->gpu);
    util_hash_double(&h, sc->gpu.pcie.shared_gbs);
    util_hash_double(&h, sc->gpu.pcie.exclusive_gbs);
    util_hash_u64(&h, sc->seed);
    util_hash_double(&h, sc->warmup_ms);
    return h;
}

/* An application's content: its settings and every task of its trace. */
static uint64_t app_key(const struct accel_app *a)
{
    uint64_t h = UTIL_HASH_START;
    util_hash_bytes(&h, a->name, strlen(a->name) + 1);
    util_hash_u64(&h, (uint64_t)a->role);
    util_hash_u64(&h, a->instances);
    util_hash_double(&h, a->stagger_ms);
    util_hash_u64(&h, (uint64_t)a->arrival);
    util_hash_double(&h, a->rate_qps);
    util_hash_u64(&h, a->queries);
    util_hash_double(&h, a->qos_target);
    util_hash_u64(&h, a->trace.ntasks);
    for (unsigned i = 0; i < a->trace.ntasks; i++) {
        const struct accel_task *t = &a->trace.tasks[i];
        util_hash_u64(&h, (uint64_t)t->type);
        util_hash_u64(&h, t->bytes);
        util_hash_u64(&h, (uint64_t)t->copy);
        if (t->type == ACCEL_KERNEL)
            util_hash_u64(&h, solo_profile_hash(&t->kernel));
    }
    return h;
}

static struct memo_entry *memo_find(struct accel_bubble_memo *m, enum memo_kind kind, uint64_t ctx,
                                    uint64_t app, unsigned at)
{
    for (size_t i = 0; m && i < m->n; i++) {
        struct memo_entry *e = &m->e[i];
        if (e->kind == kind && e->ctx == ctx && e->app == app && e->at == at)
            return e;
    }
    return NULL;
}

static void memo_add(struct accel_bubble_memo *m, const struct memo_entry *e)
{
    if (m->n == m->cap) {
        m->cap = m->cap ? 2 * m->cap : 16;
        m->e = xrealloc(m->e, m->cap * sizeof(*m->e));
    }
    m->e[m->n++] = *e;
}

/* ---- measuring ---- */

/* The reporter's curve and its mean alone, from the memo or measured (and kept). */
static int reporter_part(const struct accel_scenario *sc, struct accel_bubble_memo *memo,
                         uint64_t ctx, const struct accel_app *reporter, struct accel_bubble *b,
                         double *alone, accel_stop_fn stop, char *err, size_t errlen)
{
    const struct memo_entry *got = memo_find(memo, MEMO_REPORTER, ctx, 0, 0);
    if (got) {
        b->reporter = got->curve;
        *alone = got->mean;
        return 0;
    }
    if (curve(sc, 0, reporter, &b->reporter, NULL, b, stop, err, errlen) ||
        mean_beside(sc, 0, reporter, NULL, alone, NULL, b, stop, err, errlen))
        return -1;
    if (memo)
        memo_add(memo,
                 &(struct memo_entry){
                     .kind = MEMO_REPORTER, .ctx = ctx, .curve = b->reporter, .mean = *alone});
    return 0;
}

/* LS application a's curve and latencies alone, from the memo or measured (and kept). */
static int ls_part(const struct accel_scenario *sc, struct accel_bubble_memo *memo, uint64_t ctx,
                   unsigned a, struct accel_bubble *b, accel_stop_fn stop, char *err, size_t errlen)
{
    const struct accel_app *app = &sc->apps[a];
    unsigned n = app->queries ? app->queries : 1;
    uint64_t key = app_key(app);
    const struct memo_entry *got = memo_find(memo, MEMO_LS, ctx, key, a);
    free(b->alone_ms[a]);
    b->alone_ms[a] = xcalloc(n, sizeof(double));
    if (got) {
        b->ls[a] = got->curve;
        memcpy(b->alone_ms[a], got->alone_ms, n * sizeof(double));
        b->alone_util[a] = got->util;
        return 0;
    }
    if (curve(sc, a, app, &b->ls[a], b->alone_ms[a], b, stop, err, errlen))
        return -1;
    if (memo) {
        struct memo_entry e = {.kind = MEMO_LS,
                               .ctx = ctx,
                               .app = key,
                               .at = a,
                               .curve = b->ls[a],
                               .alone_ms = xmalloc(n * sizeof(double)),
                               .util = b->alone_util[a]};
        memcpy(e.alone_ms, b->alone_ms[a], n * sizeof(double));
        memo_add(memo, &e);
    }
    return 0;
}

int accel_bubble_measure_part(const struct accel_scenario *sc, unsigned what,
                              struct accel_bubble *b, char *err, size_t errlen)
{
    return accel_bubble_measure_memo(sc, what, NULL, b, NULL, err, errlen);
}

int accel_bubble_measure_memo(const struct accel_scenario *sc, unsigned what,
                              struct accel_bubble_memo *memo, struct accel_bubble *b,
                              accel_stop_fn stop, char *err, size_t errlen)
{
    char name[] = "reporter";
    struct accel_app reporter = bubble_app(name, ACCEL_LS, 1);
    double reporter_alone = 0;
    uint64_t ctx = context_key(sc);
    if ((what & ACCEL_BUBBLE_BATCH) &&
        reporter_part(sc, memo, ctx, &reporter, b, &reporter_alone, stop, err, errlen))
        return -1;
    for (unsigned a = 0; a < sc->napps; a++) {
        const struct accel_app *app = &sc->apps[a];
        if (app->role == ACCEL_LS) {
            if ((what & ACCEL_BUBBLE_LS) && ls_part(sc, memo, ctx, a, b, stop, err, errlen))
                return -1;
            continue;
        }
        if (!(what & ACCEL_BUBBLE_BATCH))
            continue;
        struct accel_app one = *app;
        one.instances = 1;
        uint64_t key = app_key(&one);
        const struct memo_entry *got = memo_find(memo, MEMO_BATCH, ctx, key, 0);
        double m = got ? got->mean : 0;
        if (!got) {
            if (mean_beside(sc, 0, &reporter, &one, &m, NULL, b, stop, err, errlen))
                return -1;
            if (memo)
                memo_add(memo, &(struct memo_entry){
                                   .kind = MEMO_BATCH, .ctx = ctx, .app = key, .mean = m});
        }
        b->reporter_deg[a] = reporter_alone > 0 ? m / reporter_alone : 1;
        b->pressure[a] = bubble_pressure_for(&b->reporter, b->reporter_deg[a]);
    }
    return 0;
}

void accel_bubble_done(struct accel_bubble *b)
{
    for (unsigned a = 0; a < ACCEL_MAX_APPS; a++)
        free(b->alone_ms[a]);
    memset(b, 0, sizeof(*b));
}

double accel_bubble_pressure(const struct accel_scenario *sc, const struct accel_bubble *b)
{
    double x = 0;
    for (unsigned a = 0; a < sc->napps; a++)
        if (sc->apps[a].role == ACCEL_BATCH)
            x += sc->apps[a].instances * b->pressure[a];
    return x;
}

void accel_bubble_predict(const struct accel_scenario *sc, const struct accel_bubble *b,
                          double *lat_ms[ACCEL_MAX_APPS])
{
    double x = accel_bubble_pressure(sc, b);
    for (unsigned a = 0; a < sc->napps; a++) {
        if (sc->apps[a].role != ACCEL_LS)
            continue;
        double d = bubble_curve_at(&b->ls[a], x);
        for (unsigned q = 0; q < sc->apps[a].queries; q++)
            lat_ms[a][q] = b->alone_ms[a][q] * d;
    }
}
