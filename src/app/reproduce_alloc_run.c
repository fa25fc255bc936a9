/* reproduce_alloc_run — simulating an allocation experiment: each mix once per policy, each
 * run its own session with the policy's allocator, predictor and settings in the scenario,
 * summed over its epochs. The runs of one mix share the private-mode references through the
 * catalog's trace cache (they do not change results). A policy whose allocator is
 * RALLOC_OFFLINE is SMQoS §5.4's Offline: a search over static runs of the mix
 * (reproduce_offline.c), whose runs the mix's Offline policies share. With -j N the mixes go to
 * forked workers (reproduce_fork.c); results are stored by mix, so they do not depend on N. */
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "corun/catalog.h"
#include "corun/diag.h"
#include "corun/kernel.h"
#include "corun/reproduce_alloc.h"
#include "corun/scenario.h"
#include "corun/session.h"
#include "corun/util.h"
#include "reproduce_alloc_internal.h"
#include "reproduce_internal.h"

/* The scenario of mix m under policy pol (NULL: no allocator settings), hp the high-priority
 * kernel. */
static char *scenario_text(const struct ralloc_job *j, const struct suite_mix *m,
                           const struct ralloc_policy *pol, int hp)
{
    char kernels[2048] = "", extra[256] = "";
    size_t used = 0;
    unsigned total = j->s->gpu_sms, sms[RALLOC_MAX_KERNELS];
    suite_split(j->s, m, sms);
    if (pol && pol->weight0 > 0 && m->nkernels == 2) {
        sms[0] = (unsigned)lround(total * pol->weight0);
        sms[0] = sms[0] < 1 ? 1 : sms[0] >= total ? total - 1 : sms[0];
        sms[1] = total - sms[0];
    }
    for (unsigned k = 0; k < m->nkernels && used < sizeof kernels; k++) {
        char opt[96] = "";
        if (pol && pol->target > 0 && (int)k == hp)
            snprintf(opt, sizeof opt, " priority = \"high\"; qos_target = %.4g;", pol->target);
        else if (pol && pol->weight0 > 0 && m->nkernels == 2)
            snprintf(opt, sizeof opt, " weight = %.4g;", k ? 1 - pol->weight0 : pol->weight0);
        used += (size_t)snprintf(kernels + used, sizeof kernels - used,
                                 "%s { name = \"%s\"; sms = %u;%s }", k ? "," : "", m->kernels[k],
                                 sms[k], opt);
    }
    if (pol && pol->hp_share > 0)
        snprintf(extra, sizeof extra, "hp_share = %.4g;\n", pol->hp_share);
    if (pol && pol->smqos > 0)
        snprintf(extra, sizeof extra, "smqos_policy = %.4g;\n", pol->smqos);
    if (pol && pol->threshold > 0) {
        size_t at = strlen(extra);
        snprintf(extra + at, sizeof extra - at, "%s = %.4g;\n",
                 strcmp(pol->allocator, "smqos") == 0 ? "smqos_threshold" : "fairness_threshold",
                 pol->threshold);
    }
    if (pol && pol->set) {
        size_t at = strlen(extra);
        snprintf(extra + at, sizeof extra - at, "%s\n", pol->set);
    }
    /* --set's settings are applied after loading (load); the comment puts them in the text,
     * which keys the runs kept in the catalog. */
    char sets[1024];
    gpu_sets_describe(&j->o->sets, "# --set ", "\n# --set ", sets, sizeof sets);
    return xasprintf("name = \"reproduce %s\";\ngpu = \"%s\";\nseed = %llu;\nepochs = %u;\n"
                     "epoch_cycles = %u;\npredictor = \"%s\";\nallocator = \"%s\";\n%s"
                     "kernels = (%s );\n%s%s",
                     j->s->name, j->s->gpu, (unsigned long long)j->o->seed, j->res->epochs,
                     j->res->epoch_cycles, pol && pol->predictor ? pol->predictor : "none",
                     pol ? pol->allocator : "static", extra, kernels, sets, sets[0] ? "\n" : "");
}

static int load(const struct ralloc_job *j, const struct suite_mix *m, const char *text,
                struct scenario *sc, char *err, size_t errlen)
{
    char *name = xasprintf("%s:%d", j->s->path, m->line);
    struct diag d;
    diag_init(&d);
    int rc = scenario_load_text(sc, name, text, j->o->datadir, &d);
    if (rc != 0)
        snprintf(err, errlen, "%s", d.count ? d.msgs[0] : "cannot build the mix's scenario");
    else
        rc = gpu_sets_apply(&j->o->sets, sc, err, errlen);
    diag_done(&d);
    free(name);
    return rc;
}

/* The high-priority kernel: with memory_hp, the one memory-bound kernel (the class the paper
 * gives its application) when exactly one is; else the first. */
static int high_priority(const struct ralloc_job *j, const struct suite_mix *m, char *err,
                         size_t errlen)
{
    if (!j->x->memory_hp)
        return 0;
    char *text = scenario_text(j, m, NULL, -1);
    struct scenario sc;
    int hp = 0, memory = 0, last = 0;
    if (load(j, m, text, &sc, err, errlen) != 0)
        hp = -1;
    for (unsigned k = 0; hp == 0 && k < sc.nkernels; k++)
        if (sc.kernels[k].profile.target_class == KERNEL_CLASS_MEMORY) {
            memory++;
            last = (int)k;
        }
    if (hp == 0 && memory == 1)
        hp = last;
    scenario_done(&sc);
    free(text);
    return hp;
}

/* Where a run's progress lands in its mix's: [base, base + share). */
struct step_ctx {
    void (*report)(void *ctx, double done);
    void *ctx;
    double base, share;
};

static void step_report(void *ctx, double done)
{
    struct step_ctx *sp = ctx;
    sp->report(sp->ctx, sp->base + sp->share * done);
}

struct epoch_ctx {
    void (*report)(void *ctx, double done);
    void *ctx;
    unsigned epoch, epochs;
};

static int epoch_report(void *ctx, double done)
{
    struct epoch_ctx *ec = ctx;
    ec->report(ec->ctx, (ec->epoch + done) / ec->epochs);
    return 0;
}

/* SMs the kernels gained from epoch a to epoch b: the sum of their increases in time-weighted
 * SMs, so an SM given from one kernel to another counts once, drained or not, and a gated
 * one not at all. */
static double sms_moved(const struct session_epoch *a, const struct session_epoch *b)
{
    double moved = 0;
    for (unsigned k = 0; k < a->nkernels && k < b->nkernels; k++)
        moved += fmax(0, b->k[k].c.sms - a->k[k].c.sms);
    return moved;
}

int ralloc_run_scenario(const struct scenario *sc, unsigned threads, struct catalog *cat,
                        void (*report)(void *ctx, double done), void *ctx, struct ralloc_run *run,
                        char *err, size_t errlen)
{
    memset(run, 0, sizeof(*run));
    struct session *sess = session_new(sc, err, errlen);
    int rc = sess ? 0 : -1;
    if (sess)
        session_set_threads(sess, threads ? threads : 1);
    if (sess && cat && session_traces_from_catalog(sess, cat, err, errlen) < 0)
        err[0] = '\0'; /* no cache: the references are simulated instead */
    struct epoch_ctx ec = {report, ctx, 0, sc->epochs};
    for (unsigned e = 0; rc == 0 && e < sc->epochs; e++) {
        ec.epoch = e;
        if (session_step_epoch(sess, report ? epoch_report : NULL, &ec) != 0) {
            snprintf(err, errlen, "%s", session_error(sess));
            rc = -1;
            break;
        }
        const struct session_epoch *ep = session_epoch_at(sess, e);
        double cycles = (double)ep->cycles;
        run->cycles += cycles;
        for (unsigned k = 0; k < sc->nkernels && k < RALLOC_MAX_KERNELS; k++) {
            run->private_cycles[k] += ep->k[k].np_true * cycles;
            run->sm_cycles[k] += ep->k[k].c.sms * cycles;
        }
        run->energy_j += ep->sys.energy_j;
        if (e > 0)
            run->sms_moved += sms_moved(session_epoch_at(sess, e - 1), ep);
        run->epochs = e + 1;
    }
    if (rc == 0 && cat)
        session_traces_to_catalog(sess, cat, err, errlen); /* a miss only costs time */
    if (sess)
        session_delete(sess);
    run->failed = rc != 0;
    return rc;
}

/* One run of m under policy p into run: read from the catalog when it holds the run finished
 * (*reused is then set), else simulated and put there. The key is the build's and the data's
 * ids and the run's whole scenario, which is everything the run depends on (the trace cache
 * and the worker count change nothing). Returns 0, or -1 with a message in err. */
static int run_policy(const struct ralloc_job *j, const struct suite_mix *m, unsigned p, int hp,
                      struct ralloc_run *run, bool *reused, struct step_ctx sp, char *err,
                      size_t errlen)
{
    char *text = scenario_text(j, m, &j->x->policies[p], hp);
    char *key = j->cat && j->key_head[0] ? xasprintf("%s\n%s", j->key_head, text) : NULL;
    char cerr[512];
    *reused = false;
    if (key && !j->o->fresh &&
        catalog_get_result(j->cat, key, run, sizeof(*run), reused, cerr, sizeof cerr) != 0)
        *reused = false; /* an unreadable cache only costs the run */
    int rc = 0;
    if (*reused) {
        if (sp.report)
            step_report(&sp, 1);
    } else {
        struct scenario sc;
        rc = load(j, m, text, &sc, err, errlen);
        if (rc == 0)
            rc = ralloc_run_scenario(&sc, j->o->threads, j->cat, sp.report ? step_report : NULL,
                                     &sp, run, err, errlen);
        scenario_done(&sc);
        if (rc == 0 && key)
            catalog_put_result(j->cat, key, run, sizeof(*run), cerr, sizeof cerr);
    }
    free(key);
    free(text);
    run->failed = rc != 0;
    return rc;
}

/* Offline's static runs report after each one: a search asks for about this many. */
static unsigned offline_expected_runs(unsigned sms)
{
    unsigned bits = 0;
    while ((1u << bits) < sms)
        bits++;
    return 2 * bits + 1;
}

struct offline_ctx {
    struct ralloc_prober *prober;
    struct step_ctx sp;
    unsigned runs, expected;
};

static int offline_probe(void *ctx, unsigned ls_sms, unsigned batch_sms, struct ralloc_run *out,
                         char *err, size_t errlen)
{
    struct offline_ctx *oc = ctx;
    int rc = ralloc_prober_run(oc->prober, ls_sms, batch_sms, out, err, errlen);
    oc->runs++;
    if (oc->sp.report)
        step_report(&oc->sp, oc->runs < oc->expected ? (double)oc->runs / oc->expected : 1);
    return rc;
}

/* SMQoS §5.4's Offline for policy p of m into run: *prober (made at the first such policy of
 * the mix) holds the static runs, which carry no policy setting, so the searches of every
 * policy share them. Returns 0, or -1 with a message in err. */
static int run_offline(const struct ralloc_job *j, const struct suite_mix *m, unsigned p, int hp,
                       struct ralloc_prober **prober, struct ralloc_run *run, struct step_ctx sp,
                       char *err, size_t errlen)
{
    memset(run, 0, sizeof(*run));
    run->failed = 1;
    if (!*prober) {
        const struct ralloc_policy none = {.label = RALLOC_OFFLINE, .allocator = "static"};
        char *text = scenario_text(j, m, &none, -1);
        struct scenario sc;
        if (load(j, m, text, &sc, err, errlen) == 0)
            *prober = ralloc_prober_new(&sc, (unsigned)hp, j->cat, err, errlen);
        scenario_done(&sc);
        free(text);
        if (!*prober)
            return -1;
    }
    struct offline_ctx oc = {*prober, sp, 0, offline_expected_runs(j->s->gpu_sms)};
    unsigned before = ralloc_prober_simulated(*prober);
    struct ralloc_offline found;
    if (ralloc_offline_search(j->s->gpu_sms, (unsigned)hp, j->x->policies[p].target, false,
                              offline_probe, &oc, &found, run, err, errlen) != 0)
        return -1;
    found.simulated = ralloc_prober_simulated(*prober) - before;
    run->offline = found;
    return run->failed ? -1 : 0;
}

/* repro_mix_ops.run: every policy of suite mix mi. */
static void run_mix(const void *job, size_t mi, void *result,
                    void (*report)(void *ctx, double done), void *ctx)
{
    const struct ralloc_job *j = job;
    struct ralloc_mix_result *out = result;
    const struct suite_mix *m = &j->s->mixes[mi];
    double t0 = repro_wall_seconds();
    char err[512] = "";
    out->hp = high_priority(j, m, err, sizeof err);
    if (out->hp < 0) {
        out->failed = 1;
        snprintf(out->error, sizeof out->error, "%.255s", err);
        return;
    }
    unsigned np = j->x->npolicies;
    struct ralloc_prober *prober = NULL;
    for (unsigned p = 0; p < np; p++) {
        struct step_ctx sp = {report, ctx, (double)p / np, 1.0 / np};
        const struct ralloc_policy *pol = &j->x->policies[p];
        bool reused = false;
        int rc = strcmp(pol->allocator, RALLOC_OFFLINE) == 0
                     ? run_offline(j, m, p, out->hp, &prober, &out->runs[p], sp, err, sizeof err)
                     : run_policy(j, m, p, out->hp, &out->runs[p], &reused, sp, err, sizeof err);
        out->reused += reused;
        if (rc != 0 && !out->failed) {
            out->failed = 1;
            snprintf(out->error, sizeof out->error, "%.40s: %.200s", pol->label, err);
        }
    }
    ralloc_prober_delete(prober);
    out->seconds = repro_wall_seconds() - t0;
}

static const struct repro_mix_ops mix_ops = {
    .result_size = sizeof(struct ralloc_mix_result),
    .run = run_mix,
    .failed_at = offsetof(struct ralloc_mix_result, failed),
    .error_at = offsetof(struct ralloc_mix_result, error),
    .error_size = sizeof(((struct ralloc_mix_result *)0)->error),
};

/* ---- an experiment ---- */

/* 1 when m is one of x's mixes: m's split, written "10:50", is x->only, or x->only is
 * "first=NAME" and m's first kernel is NAME; every mix without x->only. */
static bool chosen_by(const struct ralloc_experiment *x, const struct suite_mix *m)
{
    const char *only = x->only, *first = ralloc_group_first(only);
    if (!only)
        return true;
    if (first)
        return m->nkernels > 0 && strcmp(m->kernels[0], first) == 0;
    char buf[64] = "";
    for (unsigned k = 0; m->sms[0] && k < m->nkernels; k++) {
        size_t at = strlen(buf);
        snprintf(buf + at, sizeof buf - at, "%s%u", k ? ":" : "", m->sms[k]);
    }
    return strcmp(buf, only) == 0;
}

static void describe_mix(const struct suite *s, size_t mi, struct ralloc_mix_result *r)
{
    const struct suite_mix *m = &s->mixes[mi];
    r->mix = (unsigned)mi;
    r->nkernels = m->nkernels;
    size_t used = 0;
    for (unsigned k = 0; k < m->nkernels && used < sizeof r->key; k++)
        used += (size_t)snprintf(r->key + used, sizeof r->key - used, "%s%s", k ? "+" : "",
                                 m->kernels[k]);
    snprintf(r->tag, sizeof r->tag, "%s", m->tag ? m->tag : "");
}

/* The mixes to run, as suite indices into chosen; returns their count and sets *eligible. */
static size_t choose(const struct ralloc_options *o, const struct ralloc_experiment *x,
                     const struct suite *s, size_t *chosen, size_t *eligible)
{
    size_t *idx = xmalloc((s->nmixes + 1) * sizeof(*idx)), n = 0;
    struct suite sub = *s;
    sub.mixes = xmalloc((s->nmixes + 1) * sizeof(*sub.mixes));
    for (size_t i = 0; i < s->nmixes; i++)
        if (chosen_by(x, &s->mixes[i])) {
            sub.mixes[n] = s->mixes[i];
            idx[n++] = i;
        }
    sub.nmixes = n;
    *eligible = n;
    unsigned want = o->mixes ? o->mixes : o->quick ? RALLOC_QUICK_MIXES : 0;
    size_t got = n;
    if (want && want < n) {
        got = repro_quick_select(&sub, want, chosen);
        for (size_t i = 0; i < got; i++)
            chosen[i] = idx[chosen[i]];
    } else {
        memcpy(chosen, idx, n * sizeof(*idx));
    }
    free(sub.mixes);
    free(idx);
    return got;
}

/* The run's identity in its journal: it names every mix it has (n of them), so that all
 * shards share one journal's. */
static void run_identity(const struct ralloc_options *o, const struct ralloc_experiment *x,
                         const struct suite *s, unsigned epochs, unsigned epoch_cycles, size_t n,
                         char *what, size_t len)
{
    char sets[1024];
    /* --set's settings are named only when given: other runs' journals keep their identity */
    gpu_sets_describe(&o->sets, ", set ", " ", sets, sizeof sets);
    snprintf(what, len,
             "reproduce %s%s%s (suite %s, quick %d, mixes %u: %zu, %u epochs of %u cycles, "
             "seed %llu, gpu %s%s%s%s)",
             x->name, x->flag[0] ? " --" : "", x->flag, x->suite, o->quick, o->mixes, n, epochs,
             epoch_cycles, (unsigned long long)o->seed, s->gpu, o->policies ? ", policies " : "",
             o->policies ? o->policies : "", sets);
}

static unsigned run_epochs(const struct ralloc_options *o, const struct suite *s)
{
    return o->epochs ? o->epochs : o->quick ? RALLOC_QUICK_EPOCHS : s->epochs;
}

static unsigned run_epoch_cycles(const struct ralloc_options *o, const struct suite *s)
{
    return o->epoch_cycles ? o->epoch_cycles : o->quick ? RALLOC_QUICK_CYCLES : s->epoch_cycles;
}

int ralloc_check_options(const struct ralloc_options *o, const struct ralloc_experiment *x,
                         size_t *mixes, char *err, size_t errlen)
{
    struct suite s;
    *mixes = 0;
    if (repro_load_suite(o->datadir, x->suite, o->gpu, &s, err, errlen) != 0)
        return -1;
    int rc = gpu_sets_check(&o->sets, o->datadir, s.gpu, err, errlen);
    size_t *chosen = xmalloc((s.nmixes + 1) * sizeof(*chosen)), eligible;
    size_t n = choose(o, x, &s, chosen, &eligible);
    free(chosen);
    *mixes = n;
    if (rc == 0 && o->resume && access(o->resume, F_OK) == 0) {
        /* A --resume journal of another run, or no journal: as ralloc_run opens it. */
        char what[2048];
        run_identity(o, x, &s, run_epochs(o, &s), run_epoch_cycles(o, &s), n, what, sizeof what);
        rc = repro_journal_check_run(o->resume, o->datadir, what, mix_ops.result_size, err, errlen);
    }
    suite_done(&s);
    return rc;
}

int ralloc_run(const struct ralloc_options *o, const struct ralloc_experiment *x,
               repro_progress_fn progress, void *ctx, struct ralloc_result *out, char *err,
               size_t errlen)
{
    memset(out, 0, sizeof(*out));
    out->x = x;
    double t0 = repro_wall_seconds();
    struct suite s;
    char suite_gpu[32] = "";
    if (repro_load_suite(o->datadir, x->suite, NULL, &s, err, errlen) != 0)
        return -1;
    snprintf(suite_gpu, sizeof suite_gpu, "%s", s.gpu);
    suite_done(&s);
    if (repro_load_suite(o->datadir, x->suite, o->gpu, &s, err, errlen) != 0)
        return -1;
    if (gpu_sets_check(&o->sets, o->datadir, s.gpu, err, errlen) != 0) {
        suite_done(&s);
        return -1;
    }
    snprintf(out->suite, sizeof out->suite, "%s", s.name);
    snprintf(out->gpu, sizeof out->gpu, "%s", s.gpu);
    snprintf(out->suite_gpu, sizeof out->suite_gpu, "%s", suite_gpu);
    out->suite_epochs = s.epochs;
    out->suite_epoch_cycles = s.epoch_cycles;
    out->epochs = run_epochs(o, &s);
    out->epoch_cycles = run_epoch_cycles(o, &s);
    size_t *chosen = xmalloc((s.nmixes + 1) * sizeof(*chosen));
    size_t n = choose(o, x, &s, chosen, &out->suite_mixes);
    char what[2048];
    run_identity(o, x, &s, out->epochs, out->epoch_cycles, n, what, sizeof what);
    n = repro_shard_select(chosen, n, o->shard, o->shards);
    out->mixes = xcalloc(n + 1, sizeof(*out->mixes));
    out->nmixes = n;
    for (size_t i = 0; i < n; i++)
        describe_mix(&s, chosen[i], &out->mixes[i]);
    out->ngroups = repro_list_groups(&s, chosen, n, out->groups);
    struct ralloc_job j = {o, x, &s, out, NULL, ""};
    repro_reuse_head(o->datadir, sizeof(struct ralloc_run), j.key_head, sizeof j.key_head);
    const struct repro_mixes mixes = {.ops = &mix_ops,
                                      .job = &j,
                                      .cat = &j.cat,
                                      .catalog = o->catalog,
                                      .jobs = o->jobs,
                                      .chosen = chosen,
                                      .results = out->mixes,
                                      .n = n,
                                      .resume = o->resume,
                                      .datadir = o->datadir,
                                      .what = what,
                                      .resumed = &out->resume};
    long failed = repro_run_mixes(&mixes, progress, ctx, err, errlen);
    out->seconds = repro_wall_seconds() - t0;
    free(chosen);
    suite_done(&s);
    return failed < 0 ? -1 : failed > 0;
}

void ralloc_result_done(struct ralloc_result *r)
{
    free(r->mixes);
    r->mixes = NULL;
    r->nmixes = 0;
}
