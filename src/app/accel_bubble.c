/* accel_bubble — the PCIe-bubble baseline's curves and pressures, measured with the task
 * engine on scenarios derived from the one predicted. */
#include "corun/accel_bubble.h"

#include "corun/accel_run.h"
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
                       struct accel_bubble *b, char *err, size_t errlen)
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
    struct accel_run_options o = {.solo_queries = 1};
    struct accel_result r;
    int rc = accel_run(&run, &o, &r, err, errlen);
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
                 struct bubble_curve *c, double *alone, struct accel_bubble *b, char *err,
                 size_t errlen)
{
    char name[] = "bubble";
    double mean0 = 0;
    c->n = NLEVELS;
    for (unsigned i = 0; i < NLEVELS; i++) {
        struct accel_app bubbles = bubble_app(name, ACCEL_BATCH, levels[i]);
        double m;
        if (mean_beside(sc, at, ls, levels[i] ? &bubbles : NULL, &m, i ? NULL : alone, b, err,
                        errlen))
            return -1;
        if (i == 0)
            mean0 = m;
        c->pressure[i] = levels[i];
        c->degradation[i] = mean0 > 0 ? m / mean0 : 1;
    }
    return 0;
}

int accel_bubble_measure(const struct accel_scenario *sc, struct accel_bubble *b, char *err,
                         size_t errlen)
{
    memset(b, 0, sizeof(*b));
    return accel_bubble_measure_part(sc, ACCEL_BUBBLE_LS | ACCEL_BUBBLE_BATCH, b, err, errlen);
}

int accel_bubble_measure_part(const struct accel_scenario *sc, unsigned what,
                              struct accel_bubble *b, char *err, size_t errlen)
{
    char name[] = "reporter";
    struct accel_app reporter = bubble_app(name, ACCEL_LS, 1);
    double reporter_alone = 0;
    if (what & ACCEL_BUBBLE_BATCH) {
        if (curve(sc, 0, &reporter, &b->reporter, NULL, b, err, errlen))
            return -1;
        if (mean_beside(sc, 0, &reporter, NULL, &reporter_alone, NULL, b, err, errlen))
            return -1;
    }
    for (unsigned a = 0; a < sc->napps; a++) {
        const struct accel_app *app = &sc->apps[a];
        if (app->role == ACCEL_LS) {
            if (!(what & ACCEL_BUBBLE_LS))
                continue;
            free(b->alone_ms[a]);
            b->alone_ms[a] = xcalloc(app->queries ? app->queries : 1, sizeof(double));
            if (curve(sc, a, app, &b->ls[a], b->alone_ms[a], b, err, errlen))
                return -1;
            continue;
        }
        if (!(what & ACCEL_BUBBLE_BATCH))
            continue;
        struct accel_app one = *app;
        one.instances = 1;
        double m;
        if (mean_beside(sc, 0, &reporter, &one, &m, NULL, b, err, errlen))
            return -1;
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
