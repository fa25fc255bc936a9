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

/* before (the punctuation and the key: ", \"gpu\": "), then s as a JSON string, or null. */
static void text(const char *before, const char *s)
{
    fputs(before, stdout);
    if (s)
        cli_json_string(stdout, s);
    else
        fputs("null", stdout);
}

/* {"name": value, ...} over the metrics that are not NaN (of one run: no median). */
static void values(const double *v, bool one_run)
{
    printf("{");
    const char *sep = "";
    for (int m = 0; m < RALLOC_NMETRICS; m++) {
        if (isnan(v[m]) || (one_run && m == RALLOC_UNFAIRNESS_MEDIAN))
            continue;
        printf("%s\"%s\": ", sep, reproduce_alloc_metric_key(m));
        cli_json_number(stdout, v[m]);
        sep = ", ";
    }
    printf("}");
}

static void group(const struct ralloc_result *r, unsigned p, const char *name)
{
    struct ralloc_stats s;
    ralloc_aggregate(r->x, r->mixes, r->nmixes, p, name, &s);
    text("{\"group\": ", name ? name : "all");
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
        text(p ? ",\n  {\"label\": " : "\n  {\"label\": ", pol->label);
        text(", \"allocator\": ", pol->allocator);
        text(", \"predictor\": ", pol->predictor);
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
    for (size_t i = 0, n = 0; i < x->npublished; i++) {
        const struct ralloc_published *f = &x->published[i];
        if (!repro_published_on(f->gpu, r->gpu, r->suite_gpu))
            continue;
        text(n++ ? ",\n  {\"policy\": " : "\n  {\"policy\": ", f->policy);
        text(", \"vs\": ", f->ref);
        text(", \"group\": ", f->group ? f->group : "all");
        printf(", \"metric\": \"%s\", \"paper\": ", reproduce_alloc_metric_key(f->metric));
        cli_json_number(stdout, f->value);
        printf(", \"ours\": ");
        cli_json_number(stdout, ralloc_published_ours(x, f, r->mixes, r->nmixes));
        text(", \"source\": ", f->source);
        text(", \"what\": ", f->what);
        printf("}");
    }
    printf("]");
}

/* Run p of m: its kernels' NP and SMs over the run, its metrics, and an Offline search. */
static void run(const struct ralloc_experiment *x, const struct ralloc_mix_result *m, unsigned p)
{
    const struct ralloc_run *run = &m->runs[p];
    text("{\"policy\": ", x->policies[p].label);
    if (run->failed || !(run->cycles > 0)) {
        printf(", \"failed\": true}");
        return;
    }
    printf(", \"cycles\": %.0f, \"np\": [", run->cycles);
    for (unsigned k = 0; k < m->nkernels; k++)
        printf("%s", k ? ", " : ""), cli_json_number(stdout, run->private_cycles[k] / run->cycles);
    printf("], \"sms\": [");
    for (unsigned k = 0; k < m->nkernels; k++)
        printf("%s", k ? ", " : ""), cli_json_number(stdout, run->sm_cycles[k] / run->cycles);
    printf("], \"energy_j\": ");
    cli_json_number(stdout, run->energy_j);
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
        text(i ? ",\n  {\"mix\": " : "\n  {\"mix\": ", m->key);
        text(", \"tag\": ", m->tag);
        printf(", \"high_priority\": %d, \"seconds\": %.1f, \"runs_reused\": %u", m->hp, m->seconds,
               m->reused);
        text(", \"error\": ", m->failed ? m->error : NULL);
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
    text("{\"experiment\": ", x->name);
    text(", \"flag\": ", x->flag);
    text(", \"kind\": \"allocation\", \"figure\": ", x->figure);
    text(", \"caption\": ", x->caption);
    text(",\n \"suite\": ", r->suite);
    text(", \"gpu\": ", r->gpu);
    text(", \"suite_gpu\": ", r->suite_gpu);
    printf(", \"sets\": ");
    cli_json_gpu_sets(stdout, &o->sets);
    printf(", \"quick\": %s, \"epochs\": %u, \"epoch_cycles\": %u, \"seed\": %llu, \"mixes\": %zu, "
           "\"suite_mixes\": %zu, \"failed\": %zu, \"seconds\": %.1f, \"jobs\": %u, "
           "\"resumed\": %zu",
           o->quick ? "true" : "false", r->epochs, r->epoch_cycles, (unsigned long long)o->seed,
           r->nmixes, r->suite_mixes, failed, r->seconds, o->jobs, r->resume.resumed);
    printf(", \"policies_subset\": %s", o->policies ? "true" : "false");
    text(", \"baseline\": ", x->baseline >= 0 ? x->policies[x->baseline].label : NULL);
    printf(", \"table_metrics\": [");
    for (int c = 0; x->metrics[c] != RALLOC_NMETRICS; c++)
        printf("%s\"%s\"", c ? ", " : "", reproduce_alloc_metric_key(x->metrics[c]));
    printf("]");
    policies(r);
    published(r);
    per_mix(r);
    printf("}\n");
}
