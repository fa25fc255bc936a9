/* reproduce_report — the tables of `corun reproduce`: our errors per predictor, overall and per
 * category, beside the paper's published figures, as text or JSON. */
#include "reproduce_report.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "corun/cli.h"
#include "corun/predict.h"

/* Predictor name's published figure measured on the run's preset, or NULL. */
static const struct repro_published *published_for(const struct repro_part_result *r,
                                                   const char *name)
{
    const struct repro_part *part = r->part;
    for (size_t i = 0; i < part->npublished; i++)
        if (strcmp(part->published[i].predictor, name) == 0 &&
            repro_published_on(part->published[i].gpu, r->gpu, r->suite_gpu))
            return &part->published[i];
    return NULL;
}

/* Why predictor p did not run: its message when it ran in no mix, else NULL. */
static const char *unavailable(const struct repro_part_result *r, unsigned p)
{
    const char *why = NULL;
    for (size_t i = 0; i < r->nmixes; i++) {
        if (r->mixes[i].failed)
            continue;
        if (!r->mixes[i].unavailable[p][0])
            return NULL;
        why = r->mixes[i].unavailable[p];
    }
    return why;
}

static size_t mixes_in(const struct repro_part_result *r, const char *group, bool failed)
{
    size_t n = 0;
    for (size_t i = 0; i < r->nmixes; i++)
        n += repro_in_group(&r->mixes[i], group) && (r->mixes[i].failed != 0) == failed;
    return n;
}

/* "   12.3%" or "       -": 8 columns */
static void pct(double v)
{
    if (isnan(v))
        printf(" %7s", "-");
    else
        printf(" %6.1f%%", 100 * v);
}

static void print_published(const struct repro_published *pub, bool median)
{
    printf("  |");
    pct(pub ? pub->avg : NAN);
    pct(pub ? pub->max : NAN);
    if (median)
        pct(pub ? pub->median : NAN);
    printf("  %s\n", pub ? pub->source : "-");
}

static void print_group(const struct repro_part_result *r, unsigned p, const char *group,
                        bool median, const struct repro_published *pub)
{
    struct repro_stats e, run;
    repro_aggregate(r->mixes, r->nmixes, p, r->part->error, group, &e, &run);
    printf("%-10s %-20s %5zu", group ? "" : r->predictors[p], group ? group : "all",
           mixes_in(r, group, false));
    pct(e.avg);
    pct(e.max);
    if (median)
        pct(e.median);
    printf("  ");
    pct(run.avg);
    pct(run.max);
    if (median)
        pct(run.median);
    if (group)
        printf("\n");
    else
        print_published(pub, median);
}

/* Where predictor p extrapolated (predict_output.far), per group: the share of its kernel-epochs
 * and its error there and elsewhere. When it never did, one line if it knows its training range
 * (flags_far), else nothing. */
static void print_far(const struct repro_part_result *r, unsigned p)
{
    struct repro_stats far;
    repro_aggregate_far(r->mixes, r->nmixes, p, r->part->error, NULL, true, &far);
    const struct predictor_ops *ops = predict_registry_find(r->predictors[p]);
    if (far.n == 0) {
        if (ops && ops->flags_far)
            printf("%-10s NP^ extrapolated in no kernel-epoch: every input within its training "
                   "range\n",
                   r->predictors[p]);
        return;
    }
    printf(
        "%-10s NP^ extrapolated (an input far outside the model's training range; `corun run\n"
        "%-10s --explain` names it) in some kernel-epochs; per-epoch error there and elsewhere:\n",
        r->predictors[p], "");
    printf("%-10s %-20s %13s %9s %9s %9s\n", "", "group", "kernel-epochs", "far", "err far",
           "err else");
    for (int g = -1; g < (int)(r->ngroups + r->nsplits); g++) {
        const char *group = g < 0                 ? NULL
                            : g < (int)r->ngroups ? r->groups[g]
                                                  : r->splits[g - (int)r->ngroups];
        struct repro_stats in, out; /* together, every kernel-epoch with an NP^ */
        repro_aggregate_far(r->mixes, r->nmixes, p, r->part->error, group, true, &out);
        repro_aggregate_far(r->mixes, r->nmixes, p, r->part->error, group, false, &in);
        size_t all = out.n + in.n;
        printf("%-10s %-20s %13zu", "", group ? group : "all", all);
        pct(all ? (double)out.n / (double)all : NAN);
        pct(out.n ? out.avg : NAN);
        pct(in.n ? in.avg : NAN);
        printf("\n");
    }
}

void reproduce_print_resume(const char *path, const struct repro_resume *r, size_t nmixes)
{
    if (!path)
        return;
    printf("resumed from %s: %zu of %zu mixes read from it%s\n", path, r->resumed, nmixes,
           r->resumed ? ", not simulated (their seconds are as recorded)"
                      : "; each mix is kept there as it finishes");
    if (r->damaged)
        printf("resumed from %s: skipped %zu damaged record%s in its middle, whose mix%s ran "
               "again\n",
               path, r->damaged, r->damaged == 1 ? "" : "s", r->damaged == 1 ? "" : "es");
    if (r->dropped)
        printf("resumed from %s: cut off a torn last record (%zu bytes), whose mix ran again\n",
               path, r->dropped);
    if (r->error[0])
        printf("NOT KEPT: a finished mix could not be put in %s (%s); a later --resume runs it "
               "again\n",
               path, r->error);
}

int reproduce_journal_status(const char *path, const struct repro_resume *r, unsigned shards,
                             int rc)
{
    if (!path || !r->error[0])
        return rc;
    fprintf(stderr,
            "corun: reproduce: a finished mix could not be put in %s (%s); a later --resume "
            "runs it again%s\n",
            path, r->error, shards ? ", and this shard fails: the journal is all it leaves" : "");
    return shards ? CLI_FAILED : rc;
}

void reproduce_print_text(const struct repro_options *ro, const struct repro_part_result *r)
{
    const struct repro_part *part = r->part;
    bool median = false;
    for (size_t i = 0; i < part->npublished; i++)
        median |= !isnan(part->published[i].median);
    size_t failed = mixes_in(r, NULL, true);
    double mix_seconds = 0;
    for (size_t i = 0; i < r->nmixes; i++)
        mix_seconds += r->mixes[i].seconds;
    printf("\n%s: %s\n", part->figure, part->caption);
    if (strcmp(r->gpu, r->suite_gpu) != 0)
        printf("run on %s instead of the suite's %s (--gpu; splits scaled to its SMs); published "
               "figures only where the paper measured %s\n",
               r->gpu, r->suite_gpu, r->gpu);
    printf("suite %s (gpu %s): %zu of %zu mixes%s, %u epoch%s of %u cycles, seed %llu; "
           "%zu failed; %.0f s wall, %.1f s per mix, %u worker%s\n",
           r->suite, r->gpu, r->nmixes, r->suite_mixes, ro->quick ? " (--quick)" : "", r->epochs,
           r->epochs == 1 ? "" : "s", r->epoch_cycles, (unsigned long long)ro->seed, failed,
           r->seconds, r->nmixes ? mix_seconds / (double)r->nmixes : 0, ro->jobs,
           ro->jobs == 1 ? "" : "s");
    reproduce_print_resume(ro->resume, &r->resume, r->nmixes);
    unsigned reused = 0, runs = 0;
    for (size_t i = 0; i < r->nmixes; i++) {
        reused += r->mixes[i].reused;
        runs += r->mixes[i].runs;
    }
    if (reused)
        printf("REUSED: %u of %zu predictor measurements read from the catalog, made earlier by "
               "this build on the same data and mixes (--fresh measures them again); %u "
               "simulation%s of a mix made\n",
               reused, r->nmixes * r->npredictors, runs, runs == 1 ? "" : "s");
    printf(
        "error (%%): %s. per epoch: over every kernel-epoch; over the run: each kernel's NP\n"
        "over the run (private cycles of all its instructions / run cycles) against its\n"
        "predicted NP over the run (the mean of its epoch NP^s). published: the paper's own.\n\n",
        part->error == REPRO_ERROR_SD ? "ARE of slowdown 1/NP, |SD^ - SD| / SD, as Themis"
                                      : "ARE of NP, |NP^ - NP| / NP, as HSM");
    const char *m = median ? "  median" : "";
    int block = 8 * (median ? 3 : 2), label = 26 + 2 * block + 2;
    printf("%37s%*s  %*s  |%*s\n", "", block, "per epoch", block, "over the run", block,
           "published");
    printf("%-10s %-20s %5s%8s%8s%s  %8s%8s%s  |%8s%8s%s  %s\n", "predictor", "group", "mixes",
           "avg", "max", m, "avg", "max", m, "avg", "max", m, "source");
    for (unsigned p = 0; p < r->npredictors; p++) {
        const struct repro_published *pub = published_for(r, r->predictors[p]);
        const char *why = unavailable(r, p);
        if (why) {
            printf("%-10s %-*s", r->predictors[p], label, why);
            print_published(pub, median);
            continue;
        }
        struct repro_stats e, run;
        repro_aggregate(r->mixes, r->nmixes, p, part->error, NULL, &e, &run);
        if (e.n == 0) {
            printf("%-10s %-*s", r->predictors[p], label,
                   "no prediction: NP^ undefined in every kernel-epoch");
            print_published(pub, median);
            continue;
        }
        print_group(r, p, NULL, median, pub);
        for (unsigned g = 0; g < r->ngroups; g++)
            print_group(r, p, r->groups[g], median, NULL);
        for (unsigned g = 0; g < r->nsplits; g++)
            print_group(r, p, r->splits[g], median, NULL);
        print_far(r, p);
    }
    for (size_t i = 0; i < part->npublished; i++) {
        if (!repro_published_on(part->published[i].gpu, r->gpu, r->suite_gpu))
            continue;
        bool ours = false;
        for (unsigned p = 0; p < r->npredictors; p++)
            ours |= strcmp(r->predictors[p], part->published[i].predictor) == 0;
        if (!ours) {
            /* Published for a predictor this run left out (--predictors), or one corun lacks. */
            printf("%-10s %-*s", part->published[i].predictor, label,
                   predict_registry_find(part->published[i].predictor)
                       ? "not in this run (add it with --predictors)"
                       : "not registered in this build");
            print_published(&part->published[i], median);
        }
    }
    for (unsigned p = 0; r->nmixes && p < r->npredictors; p++)
        if (r->mixes[0].own_run[p])
            printf("%s: measured on its own run of each mix, against that run's NP: its priority "
                   "epochs change the memory schedule.\n",
                   r->predictors[p]);
    for (size_t i = 0; i < r->nmixes; i++)
        if (r->mixes[i].failed)
            printf("failed: %s: %s\n", r->mixes[i].key, r->mixes[i].error);
}

static void json_stats(const char *name, const struct repro_stats *s)
{
    printf("\"%s\": {\"n\": %zu, \"avg\": ", name, s->n);
    cli_json_number(stdout, s->avg);
    printf(", \"max\": ");
    cli_json_number(stdout, s->max);
    printf(", \"median\": ");
    cli_json_number(stdout, s->median);
    printf("}");
}

static void json_group(const struct repro_part_result *r, unsigned p, const char *group)
{
    struct repro_stats e, run;
    repro_aggregate(r->mixes, r->nmixes, p, r->part->error, group, &e, &run);
    printf("{\"group\": ");
    cli_json_string(stdout, group ? group : "all");
    printf(", \"mixes\": %zu, ", mixes_in(r, group, false));
    json_stats("per_epoch", &e);
    printf(", ");
    json_stats("per_run", &run);
    /* where the predictor extrapolated (predict_output.far) and where not, per epoch */
    struct repro_stats far, in;
    repro_aggregate_far(r->mixes, r->nmixes, p, r->part->error, group, true, &far);
    repro_aggregate_far(r->mixes, r->nmixes, p, r->part->error, group, false, &in);
    printf(", ");
    json_stats("per_epoch_extrapolated", &far);
    printf(", ");
    json_stats("per_epoch_in_range", &in);
    printf("}");
}

void reproduce_print_json(const struct repro_options *ro, const struct repro_part_result *r,
                          bool first)
{
    const struct repro_part *part = r->part;
    printf("%s{\"figure\": ", first ? "" : ",\n");
    cli_json_string(stdout, part->figure);
    printf(", \"suite\": ");
    cli_json_string(stdout, r->suite);
    printf(", \"gpu\": ");
    cli_json_string(stdout, r->gpu);
    printf(", \"suite_gpu\": ");
    cli_json_string(stdout, r->suite_gpu);
    printf(", \"sets\": ");
    cli_json_gpu_sets(stdout, &ro->sets);
    printf(", \"error\": \"%s\", \"quick\": %s, \"epochs\": %u, \"epoch_cycles\": %u, "
           "\"seed\": %llu, \"mixes\": %zu, \"suite_mixes\": %zu, \"failed\": %zu, "
           "\"seconds\": %.1f, \"jobs\": %u, \"resumed\": %zu,\n \"predictors\": [",
           part->error == REPRO_ERROR_SD ? "slowdown" : "np", ro->quick ? "true" : "false",
           r->epochs, r->epoch_cycles, (unsigned long long)ro->seed, r->nmixes, r->suite_mixes,
           mixes_in(r, NULL, true), r->seconds, ro->jobs, r->resume.resumed);
    for (unsigned p = 0; p < r->npredictors; p++) {
        const struct repro_published *pub = published_for(r, r->predictors[p]);
        const char *why = unavailable(r, p);
        printf("%s\n  {\"name\": ", p ? "," : "");
        cli_json_string(stdout, r->predictors[p]);
        printf(", \"unavailable\": ");
        why ? cli_json_string(stdout, why) : (void)printf("null");
        printf(", \"published\": ");
        if (pub) {
            printf("{\"source\": ");
            cli_json_string(stdout, pub->source);
            printf(", \"avg\": ");
            cli_json_number(stdout, pub->avg);
            printf(", \"max\": ");
            cli_json_number(stdout, pub->max);
            printf(", \"median\": ");
            cli_json_number(stdout, pub->median);
            printf("}");
        } else {
            printf("null");
        }
        printf(", \"groups\": [");
        json_group(r, p, NULL);
        for (unsigned g = 0; g < r->ngroups; g++)
            printf(", "), json_group(r, p, r->groups[g]);
        for (unsigned g = 0; g < r->nsplits; g++)
            printf(", "), json_group(r, p, r->splits[g]);
        printf("]}");
    }
    printf("],\n \"per_mix\": [");
    for (size_t i = 0; i < r->nmixes; i++) {
        const struct repro_mix_result *m = &r->mixes[i];
        printf("%s\n  {\"mix\": ", i ? "," : "");
        cli_json_string(stdout, m->key);
        printf(", \"tag\": ");
        cli_json_string(stdout, m->tag);
        printf(", \"seconds\": %.1f, \"simulations\": %u, \"measurements_reused\": %u, \"error\": ",
               m->seconds, m->runs, m->reused);
        m->failed ? cli_json_string(stdout, m->error) : (void)printf("null");
        for (unsigned p = 0; !m->failed && p < r->npredictors; p++) {
            struct repro_stats e, run;
            repro_aggregate(m, 1, p, part->error, NULL, &e, &run);
            printf(", \"%s\": {", r->predictors[p]);
            json_stats("per_epoch", &e);
            printf(", ");
            json_stats("per_run", &run);
            printf("}");
        }
        printf("}");
    }
    printf("]}");
}
