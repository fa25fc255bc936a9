/* reproduce_prophet — Prophet's accuracy and co-location experiments over the task engine
 * and the predictors. */
#include "corun/reproduce_prophet.h"

#include "corun/accel_predict.h"
#include "corun/accel_run.h"
#include "corun/accel_scenario.h"
#include "corun/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const double rp_published_error[RP_CLASSES] = {0.059, 0.051, 0.055};

const char *rp_class_name(int cls)
{
    static const char *const names[] = {"compute-intensive", "PCIe-intensive", "low-contention"};
    return cls >= 0 && cls < RP_CLASSES ? names[cls] : "?";
}

/* The classes of docs/accelerator.md: Prophet's text names the LS ones; corun chose the
 * batch ones. A low-contention pair puts applications of different classes together. */
static const char *const ls_compute[] = {"gmm", "asr", "dig", "imc"};
static const char *const ls_pcie[] = {"pos", "ner", "stemmer"};
static const char *const batch_compute[] = {"hw", "md", "kms", "mc", "hs"};
static const char *const batch_pcie[] = {"bp", "bfs", "pf", "nn", "bfs-ex", "pf-ex"};

static const struct rp_pair quick_accuracy[] = {
    {"gmm", "md", RP_COMPUTE},  {"dig", "hs", RP_COMPUTE}, {"pos", "pf", RP_PCIE},
    {"ner", "bfs-ex", RP_PCIE}, {"dig", "nn", RP_LOW},     {"pos", "md", RP_LOW},
};

#define NFULL                                                                                      \
    (4 * 5 + 3 * 6 + 4 * 6 + 3 * 5) /* compute x compute, PCIe x PCIe, and the mixed pairs */

size_t rp_accuracy_pairs(bool quick, const struct rp_pair **out)
{
    static struct rp_pair full[NFULL];
    if (quick) {
        *out = quick_accuracy;
        return CORUN_ARRAY_LEN(quick_accuracy);
    }
    size_t n = 0;
    for (size_t i = 0; i < CORUN_ARRAY_LEN(ls_compute); i++)
        for (size_t j = 0; j < CORUN_ARRAY_LEN(batch_compute); j++)
            full[n++] = (struct rp_pair){ls_compute[i], batch_compute[j], RP_COMPUTE};
    for (size_t i = 0; i < CORUN_ARRAY_LEN(ls_pcie); i++)
        for (size_t j = 0; j < CORUN_ARRAY_LEN(batch_pcie); j++)
            full[n++] = (struct rp_pair){ls_pcie[i], batch_pcie[j], RP_PCIE};
    for (size_t i = 0; i < CORUN_ARRAY_LEN(ls_compute); i++)
        for (size_t j = 0; j < CORUN_ARRAY_LEN(batch_pcie); j++)
            full[n++] = (struct rp_pair){ls_compute[i], batch_pcie[j], RP_LOW};
    for (size_t i = 0; i < CORUN_ARRAY_LEN(ls_pcie); i++)
        for (size_t j = 0; j < CORUN_ARRAY_LEN(batch_compute); j++)
            full[n++] = (struct rp_pair){ls_pcie[i], batch_compute[j], RP_LOW};
    *out = full;
    return n;
}

static const struct rp_pair quick_coloc[] = {{"dig", "pf", RP_LOW}};
static const struct rp_pair full_coloc[] = {
    {"gmm", "pf", RP_LOW}, {"asr", "pf", RP_LOW}, {"dig", "pf", RP_LOW},     {"imc", "pf", RP_LOW},
    {"pos", "md", RP_LOW}, {"ner", "md", RP_LOW}, {"stemmer", "md", RP_LOW},
};

size_t rp_coloc_pairs(bool quick, const struct rp_pair **out)
{
    *out = quick ? quick_coloc : full_coloc;
    return quick ? CORUN_ARRAY_LEN(quick_coloc) : CORUN_ARRAY_LEN(full_coloc);
}

int rp_scenario(struct accel_scenario *sc, const char *datadir, const char *ls,
                const char *const *batch, const unsigned *instances, size_t nbatch,
                unsigned queries, double target, double rate_qps, char *err, size_t errlen)
{
    char *arrival =
        rate_qps > 0 ? xasprintf("\"poisson\"; rate_qps = %.6f", rate_qps) : xstrdup("\"closed\"");
    char *others = xstrdup("");
    for (size_t i = 0; i < nbatch; i++) {
        if (!instances[i])
            continue;
        char *more = xasprintf("%s,\n  { name = \"%s\"; role = \"batch\"; instances = %u; }",
                               others, batch[i], instances[i]);
        free(others);
        others = more;
    }
    char *text = xasprintf("mode = \"accelerator\"; name = \"%s beside batch\"; gpu = \"k40\"; "
                           "seed = 1;\napplications = (\n  { name = \"%s\"; role = \"ls\"; "
                           "qos_target = %g; arrival = %s; queries = %u; }%s\n);\n",
                           ls, ls, target, arrival, queries, others);
    free(others);
    free(arrival);
    struct diag d;
    diag_init(&d);
    int rc = accel_scenario_load_text(sc, "reproduce-prophet", text, datadir, &d);
    if (rc && d.count)
        snprintf(err, errlen, "%s", d.msgs[0]);
    diag_done(&d);
    free(text);
    return rc;
}

/* The scenario of LS application ls beside `instances` instances of batch (none: alone). */
static int load_pair(struct accel_scenario *sc, const char *datadir, const char *ls,
                     const char *batch, unsigned instances, unsigned queries, double target,
                     double rate_qps, char *err, size_t errlen)
{
    return rp_scenario(sc, datadir, ls, &batch, &instances, 1, queries, target, rate_qps, err,
                       errlen);
}

static double mean(const double *v, unsigned n)
{
    double s = 0;
    for (unsigned i = 0; i < n; i++)
        s += v[i];
    return n ? s / n : 0;
}

int rp_accuracy_run(const char *datadir, const struct rp_pair *pair, unsigned queries,
                    struct accel_memo *memo, struct rp_accuracy_row *row, char *err, size_t errlen)
{
    memset(row, 0, sizeof(*row));
    row->pair = *pair;
    row->queries = queries;
    struct accel_scenario sc;
    if (load_pair(&sc, datadir, pair->ls, pair->batch, 1, queries, 1.5, 0, err, errlen)) {
        accel_scenario_done(&sc);
        return -1;
    }
    struct accel_result r;
    memset(&r, 0, sizeof(r));
    struct accel_profiles p;
    memset(&p, 0, sizeof(p));
    /* The bubble's curve starts with the LS application alone under the same (closed-loop)
     * arrivals: the run's reference, not simulated again. */
    int rc = accel_profile_for_memo(&sc, ACCEL_PREDICT_BUBBLE, memo, &p, NULL, err, errlen);
    if (rc == 0) {
        struct accel_run_options o = {.solo_queries = queries,
                                      .solo_latency_ms = {p.bubble->alone_ms[0]}};
        rc = accel_run(&sc, &o, &r, err, errlen);
    }
    if (rc == 0) {
        const struct accel_app_result *ls = &r.app[0];
        row->measured = ls->mean_ms / ls->solo_mean_ms;
        double *lat = xcalloc(queries, sizeof(double));
        double *out[ACCEL_MAX_APPS] = {lat};
        double solo_ms = p.solo_ns[0] / 1e6;
        accel_predict(&sc, &p, ACCEL_PREDICT_PROPHET, out);
        row->prophet = mean(lat, queries) / solo_ms;
        accel_predict(&sc, &p, ACCEL_PREDICT_SEQUENTIAL, out);
        row->sequential = mean(lat, queries) / solo_ms;
        /* the bubble scales the latencies alone it measured: over their mean */
        accel_predict(&sc, &p, ACCEL_PREDICT_BUBBLE, out);
        row->bubble = mean(lat, queries) / mean(p.bubble->alone_ms[0], queries);
        free(lat);
        row->prophet_error = fabs(row->prophet - row->measured) / row->measured;
        row->sequential_error = fabs(row->sequential - row->measured) / row->measured;
        row->bubble_error = fabs(row->bubble - row->measured) / row->measured;
        row->cycles = r.cycles + r.solo_cycles + p.cycles;
    }
    accel_result_done(&r);
    accel_profiles_done(&p);
    accel_scenario_done(&sc);
    return rc;
}

/* The predicted mean latency (ms) of the LS application. */
static double predicted_mean(const struct accel_scenario *sc, const struct accel_profiles *p,
                             int predictor, unsigned queries)
{
    double *lat = xcalloc(queries, sizeof(double));
    double *out[ACCEL_MAX_APPS] = {lat};
    accel_predict(sc, p, predictor, out);
    double m = mean(lat, queries);
    free(lat);
    return m;
}

int rp_coloc_run(const char *datadir, const struct rp_pair *pair, unsigned queries, double target,
                 double load, struct rp_coloc_point out[16], uint64_t *cycles, char *err,
                 size_t errlen)
{
    *cycles = 0;
    struct accel_scenario sc;
    struct accel_profiles p;
    memset(&p, 0, sizeof(p));
    int rc = load_pair(&sc, datadir, pair->ls, pair->batch, 1, queries, target, 0, err, errlen);
    if (rc == 0)
        rc = accel_profile(&sc, &p, err, errlen);
    accel_scenario_done(&sc);
    *cycles += p.cycles;
    double rate = rc == 0 ? load * 1e9 / p.solo_ns[0] : 0; /* queries per second */
    double *alone_ms = NULL; /* n = 0's latencies: every n's reference, run once */
    for (unsigned n = 0; n < 16 && rc == 0; n++) {
        struct rp_coloc_point *pt = &out[n];
        memset(pt, 0, sizeof(*pt));
        pt->instances = n;
        rc = load_pair(&sc, datadir, pair->ls, pair->batch, n, queries, target, rate, err, errlen);
        struct accel_run_options o = {.solo_queries = queries, .solo_latency_ms = {alone_ms}};
        struct accel_result r;
        memset(&r, 0, sizeof(r));
        if (rc == 0)
            rc = accel_run(&sc, &o, &r, err, errlen);
        if (rc == 0 && n == 0) {
            alone_ms = xmalloc(queries * sizeof(double));
            memcpy(alone_ms, r.app[0].latency_ms, queries * sizeof(double));
        }
        if (rc == 0) {
            const struct accel_app_result *ls = &r.app[0];
            /* the engine's own reference: alone under the same arrivals */
            pt->measured_x = ls->mean_ms / ls->solo_mean_ms;
            pt->measured_p99_x = ls->p99_ms / ls->solo_p99_ms;
            pt->gpu_util = r.gpu_util;
            pt->prophet_x = predicted_mean(&sc, &p, ACCEL_PREDICT_PROPHET, queries);
            pt->sequential_x = predicted_mean(&sc, &p, ACCEL_PREDICT_SEQUENTIAL, queries);
            pt->even_x = predicted_mean(&sc, &p, ACCEL_PREDICT_PROPHET_EVEN, queries);
            *cycles += r.cycles + r.solo_cycles;
        }
        accel_result_done(&r);
        accel_scenario_done(&sc);
    }
    free(alone_ms);
    accel_profiles_done(&p);
    /* The predicted reference is the predicted LS application alone under the same arrivals
     * (n = 0). */
    double p0 = out[0].prophet_x, s0 = out[0].sequential_x, e0 = out[0].even_x;
    for (unsigned n = 0; n < 16 && rc == 0; n++) {
        struct rp_coloc_point *pt = &out[n];
        pt->prophet_x /= p0;
        pt->sequential_x /= s0;
        pt->even_x /= e0;
        pt->measured_met = pt->measured_x <= target;
        pt->prophet_met = pt->prophet_x <= target;
        pt->sequential_met = pt->sequential_x <= target;
        pt->even_met = pt->even_x <= target;
    }
    return rc;
}

int rp_coloc_largest(const struct rp_coloc_point out[16], int which)
{
    int best = -1;
    for (int n = 0; n < 16; n++) {
        bool met = which == 0   ? out[n].measured_met
                   : which == 1 ? out[n].prophet_met
                   : which == 2 ? out[n].sequential_met
                                : out[n].even_met;
        if (met)
            best = n;
    }
    return best;
}

/* One predictor's choice for a pair (which as in rp_coloc_largest) added to *util, and to
 * *violations and *worst when it misses the target on the core. */
static void count_choice(const struct rp_coloc_point *pt, int which, double target, double *util,
                         unsigned *violations, double *worst)
{
    int k = rp_coloc_largest(pt, which);
    *util += (k > 0 ? k : 0) / 15.0;
    if (k >= 0 && !pt[k].measured_met) {
        ++*violations;
        *worst = fmax(*worst, pt[k].measured_x / target - 1);
    }
}

void rp_coloc_summarize(const struct rp_coloc_point (*points)[16], size_t npairs, double target,
                        struct rp_coloc_summary *out)
{
    memset(out, 0, sizeof(*out));
    out->pairs = (unsigned)npairs;
    for (size_t i = 0; i < npairs; i++) {
        const struct rp_coloc_point *pt = points[i];
        int m = rp_coloc_largest(pt, 0);
        out->oracle_util += (m > 0 ? m : 0) / 15.0;
        count_choice(pt, 1, target, &out->prophet_util, &out->prophet_violations,
                     &out->prophet_worst);
        count_choice(pt, 2, target, &out->sequential_util, &out->sequential_violations,
                     &out->sequential_worst);
        count_choice(pt, 3, target, &out->even_util, &out->even_violations, &out->even_worst);
    }
    if (npairs) {
        out->oracle_util /= (double)npairs;
        out->prophet_util /= (double)npairs;
        out->sequential_util /= (double)npairs;
        out->even_util /= (double)npairs;
    }
}
