/* reproduce_alloc_report — the tables of an SM-allocation experiment: per policy, overall and
 * per category, the run-level metrics averaged over the mixes, then each published figure
 * beside ours. */
#include "reproduce_alloc_report.h"
#include "reproduce_report.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Each metric's column in the tables, its key in --json, and its line under the table. */
static const struct metric_text {
    const char *column, *key, *help;
} metric_info[RALLOC_NMETRICS] = {
    [RALLOC_FAIRNESS] = {"fairness", "fairness", "fairness: min NP / max NP over the run"},
    [RALLOC_STP] = {"STP", "stp", "STP: sum of NP"},
    [RALLOC_ANTT] = {"ANTT", "antt", "ANTT: mean 1/NP"},
    [RALLOC_UNFAIRNESS] = {"unfair", "unfairness",
                           "unfair: Themis eq. 11, (max s*w - min s*w) / max s*w, s = 1/NP"},
    [RALLOC_UNFAIRNESS_MEDIAN] = {"unf.med", "unfairness_median",
                                  "unf.med: its median over the mixes"},
    [RALLOC_MET] = {"met", "met",
                    "met: share of runs (QoS_reach) whose high-priority NP over the run >= "
                    "target"},
    [RALLOC_MET_NEAR] = {"met-5%", "met_within_5pct", "met-5%: share with NP >= 0.95 x target"},
    [RALLOC_HP_NP] = {"hpNP/T", "hp_np_over_target",
                      "hpNP/T: the high-priority kernel's NP / target"},
    [RALLOC_BATCH] = {"batchNP", "batch_np",
                      "batchNP: sum of the other kernels' NP (throughput / isolated)"},
    [RALLOC_ENERGY] = {"energy", "energy_vs_baseline", "energy: / the baseline run's"},
    [RALLOC_POWER] = {"power", "power_vs_baseline", "power: energy per cycle / the baseline run's"},
    [RALLOC_MOVED] = {"moved", "sms_moved",
                      "moved: SMs the kernels gained from each epoch to the next (time-weighted), "
                      "summed over the run (0: the split never changed after epoch 1)"},
    [RALLOC_HP_SMS] = {"hpSMs", "hp_sms",
                       "hpSMs: the high-priority kernel's SMs, time-weighted over the run"},
};

const char *reproduce_alloc_metric_key(enum ralloc_metric m)
{
    return metric_info[m].key;
}

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
    else if (m == RALLOC_MOVED || m == RALLOC_HP_SMS)
        printf(" %8.1f", v);
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

/* The policy column's width: 18, or the longest label ("static-smqos@95%:down"). */
static int label_width(const struct ralloc_experiment *x)
{
    size_t w = 18;
    for (unsigned p = 0; p < x->npolicies; p++)
        w = strlen(x->policies[p].label) > w ? strlen(x->policies[p].label) : w;
    return (int)w;
}

static void row(const struct ralloc_result *r, unsigned p, const char *group)
{
    const struct ralloc_experiment *x = r->x;
    struct ralloc_stats s;
    ralloc_aggregate(x, r->mixes, r->nmixes, p, group, &s);
    printf("%-*s %-20s %5zu", label_width(x), group ? "" : x->policies[p].label,
           group ? group : "all", s.n);
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

/* The policy compared with Offline policy o: the other one of o's column. -1: none. */
static int offline_partner(const struct ralloc_experiment *x, unsigned o)
{
    for (unsigned p = 0; p < x->npolicies; p++)
        if (p != o && x->policies[p].column && x->policies[o].column &&
            strcmp(x->policies[p].column, x->policies[o].column) == 0 &&
            strcmp(x->policies[p].allocator, RALLOC_OFFLINE) != 0)
            return (int)p;
    return -1;
}

/* Sums over the mixes of a group where both the policy and its Offline ran. */
struct offline_sums {
    size_t n, closer;
    double np_s, np_o, sms_s, ls_sms, batch_sms, batch_s, batch_o, power_s, power_o;
    double runs, simulated;
    size_t npower;
};

static void offline_row(const struct ralloc_result *r, unsigned s, unsigned o, const char *group)
{
    const struct ralloc_experiment *x = r->x;
    struct offline_sums t = {0};
    for (size_t i = 0; i < r->nmixes; i++) {
        const struct ralloc_mix_result *m = &r->mixes[i];
        if (group && strcmp(m->tag, group) != 0)
            continue;
        double vs[RALLOC_NMETRICS], vo[RALLOC_NMETRICS];
        ralloc_run_metrics(x, m, s, vs);
        ralloc_run_metrics(x, m, o, vo);
        if (isnan(vs[RALLOC_HP_NP]) || isnan(vo[RALLOC_HP_NP]))
            continue;
        const struct ralloc_run *rs = &m->runs[s], *ro = &m->runs[o];
        t.n++;
        t.closer += fabs(vs[RALLOC_HP_NP] - 1) < fabs(vo[RALLOC_HP_NP] - 1);
        t.np_s += vs[RALLOC_HP_NP];
        t.np_o += vo[RALLOC_HP_NP];
        t.sms_s += rs->sm_cycles[m->hp] / rs->cycles;
        t.ls_sms += ro->offline.ls_sms;
        t.batch_sms += ro->offline.batch_sms;
        t.batch_s += vs[RALLOC_BATCH];
        t.batch_o += vo[RALLOC_BATCH];
        t.runs += ro->offline.runs;
        t.simulated += ro->offline.simulated;
        if (!isnan(vs[RALLOC_POWER]) && !isnan(vo[RALLOC_POWER])) {
            t.npower++;
            t.power_s += vs[RALLOC_POWER];
            t.power_o += vo[RALLOC_POWER];
        }
    }
    printf("%-7s %-12s %5zu", group ? "" : x->policies[o].column, group ? group : "all", t.n);
    if (!t.n) {
        printf("\n");
        return;
    }
    double n = (double)t.n;
    printf(" %8.3f %8.3f %6.1f%% %7.1f %7.1f %7.1f %+7.1f%%", t.np_s / n, t.np_o / n,
           100.0 * (double)t.closer / n, t.sms_s / n, t.ls_sms / n, t.batch_sms / n,
           100 * (t.batch_s / t.batch_o - 1));
    if (t.npower)
        printf(" %+7.1f%%", 100 * (t.power_s / t.power_o - 1));
    else
        printf(" %8s", "-");
    printf(" %6.1f %6.1f\n", t.runs / n, t.simulated / n);
}

/* SMQoS §5.4: each Offline policy against its column's other policy, per group. */
static void offline_table(const struct ralloc_result *r)
{
    const struct ralloc_experiment *x = r->x;
    bool any = false;
    for (unsigned o = 0; o < x->npolicies; o++) {
        int s = offline_partner(x, o);
        if (strcmp(x->policies[o].allocator, RALLOC_OFFLINE) != 0 || s < 0)
            continue;
        if (!any) {
            const char *name = x->policies[s].allocator;
            printf(
                "\n%s vs offline (SMQoS §5.4, Figs. 11-13). Offline: the static partition LS n "
                "SMs, batch m\nSMs, the rest power-gated; n the smallest whose run meets the "
                "target with the batch on all\nthe other SMs, then m the smallest whose batch NP "
                "is within %.0f %% of the best over m; both by\nbinary search over static runs "
                "(assumed: the LS NP rises with n, the batch NP with m).\n",
                name, 100 * RALLOC_OFFLINE_THRESHOLD);
            printf("  NP/T, off.NP/T: the LS task's NP / target, %s's and Offline's (Fig. 11)\n"
                   "  closer: share of mixes where %s's NP/T is nearer 1 than Offline's\n"
                   "  LS SMs: %s's time-weighted mean; n, m: Offline's partition\n"
                   "  batch, power: %s's / Offline's - 1 over the group means (Figs. 12, 13)\n"
                   "  runs: static runs per Offline search; new: those no earlier column's search "
                   "made\n",
                   name, name, name, name);
            printf("%-7s %-12s %5s %8s %8s %7s %7s %7s %7s %8s %8s %6s %6s\n", "column", "group",
                   "mixes", "NP/T", "off.NP/T", "closer", "LS SMs", "n", "m", "batch", "power",
                   "runs", "new");
            any = true;
        }
        offline_row(r, (unsigned)s, o, NULL);
        for (unsigned g = 0; g < r->ngroups; g++)
            offline_row(r, (unsigned)s, o, r->groups[g]);
    }
    /* An Offline column without its partner (--policies named one of the two): say so, with
     * the partner's label from the whole experiment. */
    const struct ralloc_experiment *whole = ralloc_experiment_find(x->name, x->flag);
    for (unsigned o = 0; o < x->npolicies; o++) {
        if (strcmp(x->policies[o].allocator, RALLOC_OFFLINE) != 0 || offline_partner(x, o) >= 0)
            continue;
        int wo = whole ? ralloc_policy_index(whole, x->policies[o].label) : -1;
        int ws = wo >= 0 ? offline_partner(whole, (unsigned)wo) : -1;
        printf(
            "\n%s is compared with nothing: the other policy of its column did not run "
            "(--policies);\nthe Offline comparison (Figs. 11-13) needs both: --policies %s%s%s\n",
            x->policies[o].label, ws >= 0 ? whole->policies[ws].label : "", ws >= 0 ? "," : "",
            x->policies[o].label);
    }
    if (any)
        printf("%-7s %-12s %5s %8s %8s %6.1f%% %7s %7s %7s %+7.2f%% %+7.1f%%\n"
               "  paper: SMQoS is closer to the target in every co-running (Fig. 11); batch and "
               "power are\n  averages over all its runs (Figs. 12, 13)\n",
               "paper", "all", "", "", "", 100.0, "", "", "", -7.07, 0.6);
}

/* x->by_mix: metrics[0] of every mix under every policy, a policy per column headed by its
 * label after the '@' ("t0.01"), for figures with a bar per mix. */
static void by_mix_table(const struct ralloc_result *r)
{
    const struct ralloc_experiment *x = r->x;
    enum ralloc_metric m = x->metrics[0];
    printf("\n%s per mix and policy:\n%-26s", metric_info[m].column, "mix");
    for (unsigned p = 0; p < x->npolicies; p++) {
        const char *at = strchr(x->policies[p].label, '@');
        printf(" %7.7s", at ? at + 1 : x->policies[p].label);
    }
    printf("\n");
    for (size_t i = 0; i < r->nmixes; i++) {
        printf("%-26.26s", r->mixes[i].key);
        for (unsigned p = 0; p < x->npolicies; p++) {
            double v[RALLOC_NMETRICS];
            ralloc_run_metrics(x, &r->mixes[i], p, v);
            if (isnan(v[m]))
                printf(" %7s", "-");
            else
                printf(" %7.3f", is_share(m) ? 100 * v[m] : v[m]);
        }
        printf("\n");
    }
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
    if (strcmp(r->gpu, r->suite_gpu) != 0)
        printf("run on %s instead of the suite's %s (--gpu; splits scaled to its SMs); published "
               "figures only where the paper measured %s\n",
               r->gpu, r->suite_gpu, r->gpu);
    printf("suite %s (gpu %s): %zu of %zu mixes x %u policies, %u epoch%s of %u cycles, seed "
           "%llu; %zu failed; %.0f s wall, %.1f s per mix, %u worker%s\n",
           r->suite, r->gpu, r->nmixes, r->suite_mixes, x->npolicies, r->epochs,
           r->epochs == 1 ? "" : "s", r->epoch_cycles, (unsigned long long)o->seed, failed,
           r->seconds, r->nmixes ? mix_seconds / (double)r->nmixes : 0, o->jobs,
           o->jobs == 1 ? "" : "s");
    reproduce_print_resume(o->resume, &r->resume, r->nmixes);
    unsigned reused = 0;
    for (size_t i = 0; i < r->nmixes; i++)
        reused += r->mixes[i].reused;
    if (reused)
        printf("REUSED: %u of %zu runs read from the catalog, finished earlier by this build on "
               "the same data and scenario (--fresh simulates them again); the seconds count "
               "only the runs simulated\n",
               reused, r->nmixes * x->npolicies);
    if (r->nmixes < r->suite_mixes || r->epochs != full_epochs || r->epoch_cycles != full_cycles)
        printf("REDUCED%s: %zu of %zu mixes, %u x %u cycles per run instead of the paper-sized "
               "%u x %u (%.1f%% of the simulated cycles); the full run takes about %.1f h of one "
               "core\n",
               o->quick ? " (--quick)" : "", r->nmixes, r->suite_mixes, r->epochs, r->epoch_cycles,
               full_epochs, full_cycles,
               100.0 * (double)r->nmixes * r->epochs * r->epoch_cycles /
                   ((double)r->suite_mixes * full_epochs * full_cycles),
               reproduce_alloc_projected_hours(x, r->suite_mixes, full_epochs, full_cycles));
    if (o->policies)
        printf("POLICIES: only %s (--policies; the experiment's others were not run)\n",
               o->policies);
    printf("each (mix, policy) is its own run; NP over the run = private cycles of all its\n"
           "instructions / run cycles; values are means over the mixes.\n");
    for (int c = 0; x->metrics[c] != RALLOC_NMETRICS; c++)
        printf("  %s\n", metric_info[x->metrics[c]].help);
    if (x->baseline >= 0)
        printf("  the baseline run: %s's\n", x->policies[x->baseline].label);
    int lw = label_width(x);
    printf("\n%-*s %-20s %5s", lw, "policy", "group", "mixes");
    for (int c = 0; x->metrics[c] != RALLOC_NMETRICS; c++)
        printf(" %8s", metric_info[x->metrics[c]].column);
    printf("\n");
    for (unsigned p = 0; p < x->npolicies; p++) {
        row(r, p, NULL);
        for (unsigned g = 0; g < r->ngroups; g++)
            row(r, p, r->groups[g]);
    }
    offline_table(r);
    if (x->by_mix)
        by_mix_table(r);
    size_t shown = 0;
    for (size_t i = 0; i < x->npublished; i++)
        shown += repro_published_on(x->published[i].gpu, r->gpu, r->suite_gpu);
    if (shown == 0)
        printf("\npublished beside ours: none the paper gives for %s on %s\n",
               o->policies ? "these policies" : "this experiment", r->gpu);
    else
        printf("\npublished beside ours (relative: ours / reference's - 1 over the group "
               "means):\n%-*s %-*s %-20s %-8s %9s %9s  %s\n",
               lw, "policy", lw < 18 ? 14 : lw - 4, "vs", "group", "metric", "paper", "ours",
               "source: what the paper says");
    for (size_t i = 0; i < x->npublished; i++) {
        const struct ralloc_published *f = &x->published[i];
        if (!repro_published_on(f->gpu, r->gpu, r->suite_gpu))
            continue;
        printf("%-*s %-*s %-20s %-8s", lw, f->policy, lw - 4, f->ref ? f->ref : "-",
               f->group ? f->group : "all", metric_info[f->metric].column);
        figure(f, f->value);
        figure(f, ralloc_published_ours(x, f, r->mixes, r->nmixes));
        printf("  %s: %s\n", f->source, f->what);
    }
    bool words = false, first = false;
    for (size_t i = 0; i < x->npublished; i++) {
        if (!repro_published_on(x->published[i].gpu, r->gpu, r->suite_gpu))
            continue;
        words |= isnan(x->published[i].value);
        first |= ralloc_group_first(x->published[i].group) != NULL;
    }
    if (words)
        printf("paper -: the paper says it in words or as a bound, without a number\n");
    if (first)
        printf("group first=NAME: the mixes whose first kernel is NAME\n");
    if (x->missing)
        printf("not run: %s\n", x->missing);
    for (size_t i = 0; i < r->nmixes; i++)
        if (r->mixes[i].failed)
            printf("failed: %s: %s\n", r->mixes[i].key, r->mixes[i].error);
}
