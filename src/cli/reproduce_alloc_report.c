/* reproduce_alloc_report — the tables of an SM-allocation experiment: per policy, overall and
 * per category, the run-level metrics averaged over the mixes, then each published figure
 * beside ours. */
#include "reproduce_alloc_report.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const metric_names[RALLOC_NMETRICS] = {
    [RALLOC_FAIRNESS] = "fairness",
    [RALLOC_STP] = "STP",
    [RALLOC_ANTT] = "ANTT",
    [RALLOC_UNFAIRNESS] = "unfair",
    [RALLOC_UNFAIRNESS_MEDIAN] = "unf.med",
    [RALLOC_MET] = "met",
    [RALLOC_MET_NEAR] = "met-5%",
    [RALLOC_HP_NP] = "hpNP/T",
    [RALLOC_BATCH] = "batchNP",
    [RALLOC_ENERGY] = "energy",
    [RALLOC_POWER] = "power",
};

static const char *const metric_help[RALLOC_NMETRICS] = {
    [RALLOC_FAIRNESS] = "fairness: min NP / max NP over the run",
    [RALLOC_STP] = "STP: sum of NP",
    [RALLOC_ANTT] = "ANTT: mean 1/NP",
    [RALLOC_UNFAIRNESS] = "unfair: Themis eq. 11, (max s*w - min s*w) / max s*w, s = 1/NP",
    [RALLOC_UNFAIRNESS_MEDIAN] = "unf.med: its median over the mixes",
    [RALLOC_MET] = "met: share of runs (QoS_reach) whose high-priority NP over the run >= target",
    [RALLOC_MET_NEAR] = "met-5%: share with NP >= 0.95 x target",
    [RALLOC_HP_NP] = "hpNP/T: the high-priority kernel's NP / target",
    [RALLOC_BATCH] = "batchNP: sum of the other kernels' NP (throughput / isolated)",
    [RALLOC_ENERGY] = "energy: / the baseline run's",
    [RALLOC_POWER] = "power: energy per cycle / the baseline run's",
};

static bool is_share(enum ralloc_metric m)
{
    return m == RALLOC_FAIRNESS || m == RALLOC_MET || m == RALLOC_MET_NEAR;
}

/* A metric value in 9 columns: shares in %, the rest as numbers. */
static void value(enum ralloc_metric m, double v)
{
    if (isnan(v))
        printf(" %8s", "-");
    else if (is_share(m))
        printf(" %7.1f%%", 100 * v);
    else
        printf(" %8.3f", v);
}

/* A published or our figure: relative ones as signed %, absolute as value() does. */
static void figure(const struct ralloc_published *f, double v)
{
    if (isnan(v))
        printf(" %8s", "-");
    else if (f->ref)
        printf(" %+7.1f%%", 100 * v);
    else
        value(f->metric, v);
}

static void row(const struct ralloc_result *r, unsigned p, const char *group)
{
    const struct ralloc_experiment *x = r->x;
    struct ralloc_stats s;
    ralloc_aggregate(x, r->mixes, r->nmixes, p, group, &s);
    printf("%-18s %-20s %5zu", group ? "" : x->policies[p].label, group ? group : "all", s.n);
    for (int c = 0; x->metrics[c] != RALLOC_NMETRICS; c++)
        value(x->metrics[c], s.value[x->metrics[c]]);
    printf("\n");
}

double reproduce_alloc_projected_hours(const struct ralloc_experiment *x, size_t mixes,
                                       unsigned epochs, unsigned epoch_cycles)
{
    double mcycles = (double)epochs * epoch_cycles / 1e6;
    return (double)mixes * x->npolicies * mcycles * x->cpu_seconds_per_mcycle / 3600;
}

void reproduce_alloc_print(const struct ralloc_options *o, const struct ralloc_result *r)
{
    unsigned full_epochs = r->suite_epochs, full_cycles = r->suite_epoch_cycles;
    const struct ralloc_experiment *x = r->x;
    size_t failed = 0;
    double mix_seconds = 0;
    for (size_t i = 0; i < r->nmixes; i++) {
        failed += r->mixes[i].failed != 0;
        mix_seconds += r->mixes[i].seconds;
    }
    printf("\n%s: %s\n", x->figure, x->caption);
    printf("suite %s (gpu %s): %zu of %zu mixes x %u policies, %u epoch%s of %u cycles, seed "
           "%llu; %zu failed; %.0f s wall, %.1f s per mix, %u worker%s\n",
           r->suite, r->gpu, r->nmixes, r->suite_mixes, x->npolicies, r->epochs,
           r->epochs == 1 ? "" : "s", r->epoch_cycles, (unsigned long long)o->seed, failed,
           r->seconds, r->nmixes ? mix_seconds / (double)r->nmixes : 0, o->jobs,
           o->jobs == 1 ? "" : "s");
    if (r->nmixes < r->suite_mixes || r->epochs != full_epochs || r->epoch_cycles != full_cycles)
        printf("REDUCED%s: %zu of %zu mixes, %u x %u cycles per run instead of the paper-sized "
               "%u x %u (%.1f%% of the simulated cycles); the full run takes about %.1f h of one "
               "core\n",
               o->quick ? " (--quick)" : "", r->nmixes, r->suite_mixes, r->epochs, r->epoch_cycles,
               full_epochs, full_cycles,
               100.0 * (double)r->nmixes * r->epochs * r->epoch_cycles /
                   ((double)r->suite_mixes * full_epochs * full_cycles),
               reproduce_alloc_projected_hours(x, r->suite_mixes, full_epochs, full_cycles));
    printf("each (mix, policy) is its own run; NP over the run = private cycles of all its\n"
           "instructions / run cycles; values are means over the mixes.\n");
    for (int c = 0; x->metrics[c] != RALLOC_NMETRICS; c++)
        printf("  %s\n", metric_help[x->metrics[c]]);
    printf("\n%-18s %-20s %5s", "policy", "group", "mixes");
    for (int c = 0; x->metrics[c] != RALLOC_NMETRICS; c++)
        printf(" %8s", metric_names[x->metrics[c]]);
    printf("\n");
    for (unsigned p = 0; p < x->npolicies; p++) {
        row(r, p, NULL);
        for (unsigned g = 0; g < r->ngroups; g++)
            row(r, p, r->groups[g]);
    }
    printf("\npublished beside ours (relative: ours / reference's - 1 over the group means):\n");
    printf("%-18s %-14s %-20s %-8s %9s %9s  %s\n", "policy", "vs", "group", "metric", "paper",
           "ours", "source: what the paper says");
    for (size_t i = 0; i < x->npublished; i++) {
        const struct ralloc_published *f = &x->published[i];
        printf("%-18s %-14s %-20s %-8s", f->policy, f->ref ? f->ref : "-",
               f->group ? f->group : "all", metric_names[f->metric]);
        figure(f, f->value);
        figure(f, ralloc_published_ours(x, f, r->mixes, r->nmixes));
        printf("  %s: %s\n", f->source, f->what);
    }
    if (x->missing)
        printf("not run: %s\n", x->missing);
    for (size_t i = 0; i < r->nmixes; i++)
        if (r->mixes[i].failed)
            printf("failed: %s: %s\n", r->mixes[i].key, r->mixes[i].error);
}
