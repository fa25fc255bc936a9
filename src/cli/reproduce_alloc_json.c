/* reproduce_alloc_json — `corun reproduce ... --json` for the SM-allocation experiments: the
 * whole result as one JSON document, per policy and group the metrics the tables average, each
 * published figure beside ours, and per mix and policy each kernel's NP and SMs over the run
 * with every metric of that run, so a table can be taken apart mix by mix. Numbers are plain
 * ratios (a share of 0.733, not 73.3 %); a metric that does not apply is left out. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "corun/cli.h"
#include "reproduce_alloc_report.h"
#include "reproduce_report.h"

/* The metrics' JSON names. */
static const char *const metric_keys[RALLOC_NMETRICS] = {
    [RALLOC_FAIRNESS] = "fairness",
    [RALLOC_STP] = "stp",
    [RALLOC_ANTT] = "antt",
    [RALLOC_UNFAIRNESS] = "unfairness",
    [RALLOC_UNFAIRNESS_MEDIAN] = "unfairness_median",
    [RALLOC_MET] = "met",
    [RALLOC_MET_NEAR] = "met_within_5pct",
    [RALLOC_HP_NP] = "hp_np_over_target",
    [RALLOC_BATCH] = "batch_np",
    [RALLOC_ENERGY] = "energy_vs_baseline",
    [RALLOC_POWER] = "power_vs_baseline",
    [RALLOC_MOVED] = "sms_moved",
    [RALLOC_HP_SMS] = "hp_sms",
};

static void string_or_null(const char *s)
{
    if (s)
        cli_json_string(stdout, s);
    else
        printf("null");
}

/* {"name": value, ...} over the metrics that are not NaN (of one run: no median). */
static void values(const double *v, bool one_run)
{
    printf("{");
    const char *sep = "";
    for (int m = 0; m < RALLOC_NMETRICS; m++) {
        if (isnan(v[m]) || (one_run && m == RALLOC_UNFAIRNESS_MEDIAN))
            continue;
        printf("%s\"%s\": ", sep, metric_keys[m]);
        reproduce_json_number(v[m]);
        sep = ", ";
    }
    printf("}");
}

static void group(const struct ralloc_result *r, unsigned p, const char *name)
{
    struct ralloc_stats s;
    ralloc_aggregate(r->x, r->mixes, r->nmixes, p, name, &s);
    printf("{\"group\": ");
    cli_json_string(stdout, name ? name : "all");
    printf(", \"mixes\": %zu, \"values\": ", s.n);
    values(s.value, false);
    printf("}");
}

static void policies(const struct ralloc_result *r)
{
    const struct ralloc_experiment *x = r->x;
    printf(",\n \"policies\": [");
    for (unsigned p = 0; p < x->npolicies; p++) {
        const struct ralloc_policy *pol = &x->policies[p];
        printf("%s\n  {\"label\": ", p ? "," : "");
        cli_json_string(stdout, pol->label);
        printf(", \"allocator\": ");
        cli_json_string(stdout, pol->allocator);
        printf(", \"predictor\": ");
        string_or_null(pol->predictor);
        printf(", \"groups\": [");
        group(r, p, NULL);
        for (unsigned g = 0; g < r->ngroups; g++)
            printf(", "), group(r, p, r->groups[g]);
        printf("]}");
    }
    printf("]");
}

static void published(const struct ralloc_result *r)
{
    const struct ralloc_experiment *x = r->x;
    printf(",\n \"published\": [");
    for (size_t i = 0; i < x->npublished; i++) {
        const struct ralloc_published *f = &x->published[i];
        printf("%s\n  {\"policy\": ", i ? "," : "");
        cli_json_string(stdout, f->policy);
        printf(", \"vs\": ");
        string_or_null(f->ref);
        printf(", \"group\": ");
        cli_json_string(stdout, f->group ? f->group : "all");
        printf(", \"metric\": \"%s\", \"paper\": ", metric_keys[f->metric]);
        reproduce_json_number(f->value);
        printf(", \"ours\": ");
        reproduce_json_number(ralloc_published_ours(x, f, r->mixes, r->nmixes));
        printf(", \"source\": ");
        cli_json_string(stdout, f->source);
        printf(", \"what\": ");
        cli_json_string(stdout, f->what);
        printf("}");
    }
    printf("]");
}

/* Run p of m: its kernels' NP and SMs over the run, its metrics, and an Offline search. */
static void run(const struct ralloc_experiment *x, const struct ralloc_mix_result *m, unsigned p)
{
    const struct ralloc_run *run = &m->runs[p];
    printf("{\"policy\": ");
    cli_json_string(stdout, x->policies[p].label);
    if (run->failed || !(run->cycles > 0)) {
        printf(", \"failed\": true}");
        return;
    }
    printf(", \"cycles\": %.0f, \"np\": [", run->cycles);
    for (unsigned k = 0; k < m->nkernels; k++)
        printf("%s", k ? ", " : ""), reproduce_json_number(run->private_cycles[k] / run->cycles);
    printf("], \"sms\": [");
    for (unsigned k = 0; k < m->nkernels; k++)
        printf("%s", k ? ", " : ""), reproduce_json_number(run->sm_cycles[k] / run->cycles);
    printf("], \"energy_j\": ");
    reproduce_json_number(run->energy_j);
    double v[RALLOC_NMETRICS];
    ralloc_run_metrics(x, m, p, v);
    printf(", \"values\": ");
    values(v, true);
    if (strcmp(x->policies[p].allocator, RALLOC_OFFLINE) == 0)
        printf(", \"offline\": {\"ls_sms\": %u, \"batch_sms\": %u, \"met\": %s, \"runs\": %u}",
               run->offline.ls_sms, run->offline.batch_sms, run->offline.met ? "true" : "false",
               run->offline.runs);
    printf("}");
}

static void per_mix(const struct ralloc_result *r)
{
    printf(",\n \"per_mix\": [");
    for (size_t i = 0; i < r->nmixes; i++) {
        const struct ralloc_mix_result *m = &r->mixes[i];
        printf("%s\n  {\"mix\": ", i ? "," : "");
        cli_json_string(stdout, m->key);
        printf(", \"tag\": ");
        cli_json_string(stdout, m->tag);
        printf(", \"high_priority\": %d, \"seconds\": %.1f, \"error\": ", m->hp, m->seconds);
        m->failed ? cli_json_string(stdout, m->error) : (void)printf("null");
        printf(", \"runs\": [");
        for (unsigned p = 0; !m->failed && p < r->x->npolicies; p++)
            printf("%s", p ? ", " : ""), run(r->x, m, p);
        printf("]}");
    }
    printf("]");
}

void reproduce_alloc_print_json(const struct ralloc_options *o, const struct ralloc_result *r)
{
    const struct ralloc_experiment *x = r->x;
    size_t failed = 0;
    for (size_t i = 0; i < r->nmixes; i++)
        failed += r->mixes[i].failed != 0;
    printf("{\"experiment\": ");
    cli_json_string(stdout, x->name);
    printf(", \"flag\": ");
    cli_json_string(stdout, x->flag);
    printf(", \"kind\": \"allocation\", \"figure\": ");
    cli_json_string(stdout, x->figure);
    printf(", \"caption\": ");
    cli_json_string(stdout, x->caption);
    printf(",\n \"suite\": ");
    cli_json_string(stdout, r->suite);
    printf(", \"gpu\": ");
    cli_json_string(stdout, r->gpu);
    printf(", \"quick\": %s, \"epochs\": %u, \"epoch_cycles\": %u, \"seed\": %llu, \"mixes\": %zu, "
           "\"suite_mixes\": %zu, \"failed\": %zu, \"seconds\": %.1f, \"jobs\": %u, "
           "\"resumed\": %zu, \"baseline\": ",
           o->quick ? "true" : "false", r->epochs, r->epoch_cycles, (unsigned long long)o->seed,
           r->nmixes, r->suite_mixes, failed, r->seconds, o->jobs, r->resume.resumed);
    string_or_null(x->baseline >= 0 ? x->policies[x->baseline].label : NULL);
    printf(", \"table_metrics\": [");
    for (int c = 0; x->metrics[c] != RALLOC_NMETRICS; c++)
        printf("%s\"%s\"", c ? ", " : "", metric_keys[x->metrics[c]]);
    printf("]");
    policies(r);
    published(r);
    per_mix(r);
    printf("}\n");
}
