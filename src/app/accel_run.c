/* accel_run — an accelerator scenario run to its end (accel_sim.c steps it), and the
 * percentiles of its latencies. */
#include "corun/accel_run.h"

#include "corun/accel_predict.h"
#include "corun/accel_sim.h"
#include "corun/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double accel_percentile(const double *v, size_t n, double p)
{
    if (n == 0)
        return 0;
    double *s = xmalloc(n * sizeof(*s));
    memcpy(s, v, n * sizeof(*s));
    qsort(s, n, sizeof(*s), cmp_double);
    double rank = ceil(p / 100.0 * (double)n);
    size_t i = rank < 1 ? 0 : (size_t)rank - 1;
    double x = s[i < n ? i : n - 1];
    free(s);
    return x;
}

int accel_run(const struct accel_scenario *sc, const struct accel_run_options *o,
              struct accel_result *r, char *err, size_t errlen)
{
    memset(r, 0, sizeof(*r));
    struct accel_sim *s = accel_sim_new(sc, o, err, errlen);
    if (!s)
        return -1;
    int rc = 0;
    bool stopped = false;
    while (!stopped && (rc = accel_sim_step(s, INFINITY, err, errlen)) == 0)
        stopped = o && o->stop && o->stop();
    if (rc < 0) {
        accel_sim_delete(s);
        return -1;
    }
    if (stopped && !accel_sim_solo_done(s)) { /* no reference for the QoS targets: nothing */
        accel_sim_delete(s);
        return 1;
    }
    accel_sim_result(s, r);
    if (!o || !o->record_tasks) {
        free(r->tasks);
        r->tasks = NULL;
        r->ntasks = 0;
    }
    rc = stopped;
    if (!stopped && o && o->predictor != ACCEL_PREDICT_NONE && accel_sim_has_ls(s))
        rc = accel_sim_predict(s, o->predictor, r, err, errlen);
    accel_sim_delete(s);
    return rc;
}

void accel_result_done(struct accel_result *r)
{
    for (unsigned a = 0; a < r->napps; a++) {
        free(r->app[a].latency_ms);
        free(r->app[a].pred_latency_ms);
    }
    free(r->tasks);
    memset(r, 0, sizeof(*r));
}
