/* reproduce_run — simulating an experiment's mixes: one session per mix with no predictor, and
 * after each epoch every registered predictor (but the private-mode truth) evaluated on the
 * epoch's counters through session_predict_with. With -j N the mixes go to forked workers
 * (reproduce_fork.c); results are stored by mix, so they do not depend on N. */
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "corun/catalog.h"
#include "corun/diag.h"
#include "corun/predict.h"
#include "corun/reproduce.h"
#include "corun/reproduce_journal.h"
#include "corun/scenario.h"
#include "corun/session.h"
#include "corun/util.h"
#include "reproduce_internal.h"

void repro_reuse_head(const char *datadir, size_t result_size, char *out, size_t len)
{
    char build[REPRO_BUILD_ID_LEN], data[REPRO_BUILD_ID_LEN];
    repro_build_id(build, sizeof build);
    repro_data_id(datadir, data, sizeof data);
    out[0] = '\0';
    if (strncmp(build, "unknown", 7) != 0)
        snprintf(out, len, "corun reproduce; build %s, data %s; result %zu bytes", build, data,
                 result_size);
}

double repro_wall_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The scenario text of mix m: the suite's preset and epochs, no predictor, its split. */
static char *scenario_text(const struct repro_job *j, const struct suite_mix *m)
{
    char kernels[1024] = "";
    size_t used = 0;
    unsigned sms[SUITE_MAX_KERNELS];
    suite_split(j->s, m, sms);
    for (unsigned k = 0; k < m->nkernels && used < sizeof kernels; k++)
        used += (size_t)snprintf(kernels + used, sizeof kernels - used,
                                 "%s { name = \"%s\"; sms = %u; }", k ? "," : "", m->kernels[k],
                                 sms[k]);
    /* --set's settings are applied after loading (gpu_sets_apply); the comment puts them in
     * the text, which keys the results kept in the catalog. */
    char sets[1024];
    gpu_sets_describe(&j->o->sets, "# --set ", "\n# --set ", sets, sizeof sets);
    return xasprintf("name = \"reproduce %s\";\ngpu = \"%s\";\nseed = %llu;\nepochs = %u;\n"
                     "epoch_cycles = %u;\npredictor = \"none\";\nkernels = (%s );\n%s%s",
                     j->s->name, j->s->gpu, (unsigned long long)j->o->seed, j->res->epochs,
                     j->res->epoch_cycles, kernels, sets, sets[0] ? "\n" : "");
}

/* "no model: run corun train ..." from a predictor's creation message (the line naming the
 * command that makes the model, else the first line). */
static void unavailable_reason(const char *err, char *out, size_t len)
{
    const char *cmd = strstr(err, "corun train");
    if (cmd) {
        size_t n = strcspn(cmd, "\n`'\"");
        snprintf(out, len, "no model: run %.*s", (int)n, cmd);
    } else {
        snprintf(out, len, "%.*s", (int)strcspn(err, "\n"), err[0] ? err : "cannot be created");
    }
}

/* Predictors that change the run they measure — ASM's priority epochs reorder the memory
 * controllers' queues — are each simulated on their own run with themselves active, and
 * measured against that run's truth; the others share one run without a predictor. */
static bool needs_own_run(const struct predictor_ops *ops)
{
    return ops->priority_epoch_cycles != 0;
}

struct step_progress {
    void (*report)(void *ctx, double done);
    void *ctx;
    double base, share; /* of the mix, for this run */
    unsigned epoch, epochs;
};

static int step_report(void *ctx, double done)
{
    struct step_progress *sp = ctx;
    sp->report(sp->ctx, sp->base + sp->share * (sp->epoch + done) / sp->epochs);
    return 0;
}

/* One run of sc: with predictor `own` active (its own run), or with none while every shared
 * predictor (own < 0) but those kept[] from an earlier run is evaluated on the epochs' counters.
 * Fills their NP^ and truth in out. Returns 0, or -1 with a message in err. */
static int simulate(const struct repro_job *j, const struct scenario *sc, int own, const bool *kept,
                    struct repro_mix_result *out, struct step_progress sp, char *err, size_t errlen)
{
    struct session *sess = session_new(sc, err, errlen);
    if (!sess)
        return -1;
    session_set_threads(sess, j->o->threads ? j->o->threads : 1);
    if (j->cat && session_traces_from_catalog(sess, j->cat, err, errlen) < 0)
        err[0] = '\0'; /* no cache: the references are simulated instead */
    const struct predictor_ops *ops[REPRO_MAX_PREDICTORS] = {0};
    void *state[REPRO_MAX_PREDICTORS] = {0};
    bool evaluated[REPRO_MAX_PREDICTORS] = {0};
    for (unsigned p = 0; p < out->npredictors; p++) {
        ops[p] = predict_registry_find(j->res->predictors[p]);
        char why[1024] = "";
        if (own >= 0 ? (int)p != own : needs_own_run(ops[p]) || kept[p])
            continue;
        evaluated[p] = true;
        if (own >= 0 ? session_set_predictor(sess, ops[p]->name, why, sizeof why) != 0
                     : !(state[p] = session_predictor_new(sess, ops[p], NULL, why, sizeof why))) {
            unavailable_reason(why, out->unavailable[p], sizeof out->unavailable[p]);
            evaluated[p] = false;
        }
    }
    int rc = 0;
    if (own >= 0 && !evaluated[own]) {
        session_delete(sess); /* no model: nothing to measure */
        return 0;
    }
    for (unsigned e = 0; e < j->res->epochs && rc == 0; e++) {
        sp.epoch = e;
        if (session_step_epoch(sess, sp.report ? step_report : NULL, &sp) != 0) {
            snprintf(err, errlen, "%s", session_error(sess));
            rc = -1;
            break;
        }
        const struct session_epoch *ep = session_epoch_at(sess, e);
        out->cycles[e] = ep->cycles;
        for (unsigned p = 0; p < out->npredictors; p++) {
            if (!evaluated[p])
                continue;
            struct predict_output po;
            for (unsigned k = 0; k < sc->nkernels; k++) {
                po.np[k] = own >= 0 ? ep->k[k].np_pred : NAN;
                po.far[k] = false; /* not kept for a predictor with its own run (ASM: none) */
            }
            if (state[p])
                session_predict_with(sess, ops[p], state[p], e, &po);
            for (unsigned k = 0; k < sc->nkernels; k++) {
                out->np_pred[p][e][k] = po.np[k];
                out->far[p][e][k] = po.far[k];
                out->np_true[p][e][k] = ep->k[k].np_true;
            }
        }
        out->nepochs = e + 1;
    }
    if (rc == 0 && j->cat)
        session_traces_to_catalog(sess, j->cat, err, errlen); /* a miss only costs time */
    for (unsigned p = 0; p < out->npredictors; p++)
        if (state[p])
            ops[p]->destroy(state[p]);
    session_delete(sess);
    return rc;
}

/* What predictor p measured on a mix: kept in the catalog under a key naming the build, the
 * data, the mix's scenario and p (and whether p had a run of its own), so that a later run
 * asking for the same reads it instead of simulating the mix again (a predictor added to a
 * finished table costs only its own measurement). */
struct measured {
    unsigned nepochs;
    uint64_t cycles[REPRO_MAX_EPOCHS];
    double np_true[REPRO_MAX_EPOCHS][REPRO_MAX_KERNELS];
    double np_pred[REPRO_MAX_EPOCHS][REPRO_MAX_KERNELS];
    uint8_t far[REPRO_MAX_EPOCHS][REPRO_MAX_KERNELS];
    char unavailable[200];
};

static char *measured_key(const struct repro_job *j, const char *text, unsigned p, bool own)
{
    return xasprintf("%s; predictor %s on %s\n%s", j->key_head, j->res->predictors[p],
                     own ? "its own run" : "the shared run", text);
}

/* Predictor p's measurement of the mix from the catalog into out; false when there is none
 * (or --fresh, or no catalog). */
static bool get_measured(const struct repro_job *j, const char *text, unsigned p, bool own,
                         struct repro_mix_result *out)
{
    if (!j->cat || !j->key_head[0] || j->o->fresh)
        return false;
    struct measured m;
    bool found = false;
    char err[512];
    char *key = measured_key(j, text, p, own);
    if (catalog_get_result(j->cat, key, &m, sizeof m, &found, err, sizeof err) != 0)
        found = false; /* an unreadable cache only costs the run */
    free(key);
    if (!found)
        return false;
    out->nepochs = m.nepochs;
    memcpy(out->cycles, m.cycles, sizeof m.cycles);
    memcpy(out->np_true[p], m.np_true, sizeof m.np_true);
    memcpy(out->np_pred[p], m.np_pred, sizeof m.np_pred);
    memcpy(out->far[p], m.far, sizeof m.far);
    snprintf(out->unavailable[p], sizeof out->unavailable[p], "%s", m.unavailable);
    return true;
}

static void put_measured(const struct repro_job *j, const char *text, unsigned p, bool own,
                         const struct repro_mix_result *out)
{
    if (!j->cat || !j->key_head[0])
        return;
    struct measured m;
    memset(&m, 0, sizeof m); /* stored byte for byte */
    m.nepochs = out->nepochs;
    memcpy(m.cycles, out->cycles, sizeof m.cycles);
    memcpy(m.np_true, out->np_true[p], sizeof m.np_true);
    memcpy(m.np_pred, out->np_pred[p], sizeof m.np_pred);
    memcpy(m.far, out->far[p], sizeof m.far);
    snprintf(m.unavailable, sizeof m.unavailable, "%s", out->unavailable[p]);
    char err[512];
    char *key = measured_key(j, text, p, own);
    catalog_put_result(j->cat, key, &m, sizeof m, err, sizeof err); /* a miss only costs time */
    free(key);
}

/* repro_mix_ops.run: suite mix mi once, every predictor in the job's part evaluated on each
 * epoch; a predictor whose measurement the catalog keeps is read from there. */
static void run_mix(const void *job, size_t mi, void *result,
                    void (*report)(void *ctx, double done), void *ctx)
{
    const struct repro_job *j = job;
    struct repro_mix_result *out = result;
    const struct suite_mix *m = &j->s->mixes[mi];
    double t0 = repro_wall_seconds();
    out->nkernels = m->nkernels;
    out->npredictors = j->res->npredictors;
    for (unsigned p = 0; p < out->npredictors; p++)
        for (unsigned e = 0; e < REPRO_MAX_EPOCHS; e++)
            for (unsigned k = 0; k < REPRO_MAX_KERNELS; k++)
                out->np_pred[p][e][k] = out->np_true[p][e][k] = NAN;
    memset(out->far, 0, sizeof out->far);
    /* Run -1 is the shared one, when some predictor still to measure is measured on it (with
     * only ASM it would measure nothing); then one per predictor that needs its own. */
    char *text = scenario_text(j, m);
    int runs[REPRO_MAX_PREDICTORS + 1] = {-1};
    bool kept[REPRO_MAX_PREDICTORS] = {0};
    unsigned nruns = 1, shared = 0;
    for (unsigned p = 0; p < out->npredictors; p++) {
        bool own = needs_own_run(predict_registry_find(j->res->predictors[p]));
        out->own_run[p] = own;
        kept[p] = get_measured(j, text, p, own, out);
        out->reused += kept[p];
        if (kept[p])
            continue;
        if (own)
            runs[nruns++] = (int)p;
        else
            shared++;
    }
    unsigned first = shared || out->npredictors == 0 ? 0 : 1;
    out->runs = nruns - first;
    char *name = xasprintf("%s:%d", j->s->path, m->line);
    struct scenario sc;
    struct diag d;
    diag_init(&d);
    char err[512] = "";
    int rc = scenario_load_text(&sc, name, text, j->o->datadir, &d);
    if (rc != 0)
        snprintf(err, sizeof err, "%s", d.count ? d.msgs[0] : "cannot build the mix's scenario");
    else
        rc = gpu_sets_apply(&j->o->sets, &sc, err, sizeof err);
    for (unsigned r = first; rc == 0 && r < nruns; r++) {
        double share = 1.0 / (nruns - first);
        struct step_progress sp = {report, ctx, (r - first) * share, share, 0, j->res->epochs};
        rc = simulate(j, &sc, runs[r], kept, out, sp, err, sizeof err);
    }
    for (unsigned p = 0; rc == 0 && p < out->npredictors; p++)
        if (!kept[p])
            put_measured(j, text, p, out->own_run[p], out);
    if (rc != 0) {
        out->failed = 1;
        snprintf(out->error, sizeof out->error, "%.255s", err);
    }
    out->seconds = repro_wall_seconds() - t0;
    scenario_done(&sc);
    diag_done(&d);
    free(name);
    free(text);
}

static const struct repro_mix_ops mix_ops = {
    .result_size = sizeof(struct repro_mix_result),
    .run = run_mix,
    .failed_at = offsetof(struct repro_mix_result, failed),
    .error_at = offsetof(struct repro_mix_result, error),
    .error_size = sizeof(((struct repro_mix_result *)0)->error),
};

/* ---- a part ---- */

/* 1 when name is in the comma-separated list. */
static bool listed(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
        if (strncmp(p, name, n) == 0 && (p[n] == ',' || p[n] == '\0'))
            return true;
    return false;
}

/* The predictors to evaluate: every registered one (or those o names) but those reading the
 * private truth. */
static void list_predictors(const struct repro_options *o, struct repro_part_result *res)
{
    for (size_t i = 0; i < predict_registry_count(); i++) {
        const struct predictor_ops *ops = predict_registry_at(i);
        if (ops->needs_private || res->npredictors == REPRO_MAX_PREDICTORS ||
            (o->predictors && !listed(o->predictors, ops->name)))
            continue;
        snprintf(res->predictors[res->npredictors++], sizeof res->predictors[0], "%s", ops->name);
    }
}

/* Fill the mix's identity (key, tag, split) and the groups it adds. */
static void describe_mix(const struct suite *s, size_t mi, struct repro_part_result *res,
                         struct repro_mix_result *r)
{
    const struct suite_mix *m = &s->mixes[mi];
    r->mix = (unsigned)mi;
    size_t used = 0;
    for (unsigned k = 0; k < m->nkernels && used < sizeof r->key; k++)
        used += (size_t)snprintf(r->key + used, sizeof r->key - used, "%s%s", k ? "+" : "",
                                 m->kernels[k]);
    for (unsigned k = 0; m->sms[0] && k < m->nkernels; k++) {
        size_t at = strlen(r->split);
        snprintf(r->split + at, sizeof r->split - at, "%s%u", k ? ":" : "", m->sms[k]);
    }
    if (r->split[0] && used < sizeof r->key)
        snprintf(r->key + used, sizeof r->key - used, "@%s", r->split);
    snprintf(r->tag, sizeof r->tag, "%s", m->tag ? m->tag : "");
    if (!res->part->by_split || !r->split[0])
        return;
    for (unsigned i = 0; i < res->nsplits; i++)
        if (strcmp(res->splits[i], r->split) == 0)
            return;
    if (res->nsplits < CORUN_ARRAY_LEN(res->splits))
        snprintf(res->splits[res->nsplits++], sizeof res->splits[0], "%s", r->split);
}

int repro_load_suite(const char *datadir, const char *file, const char *gpu, struct suite *s,
                     char *err, size_t errlen)
{
    char *path = xasprintf("%s/scenarios/suites/%s", datadir, file);
    struct diag d;
    diag_init(&d);
    int rc = suite_load(path, datadir, s, &d);
    if (rc == 0 && gpu)
        rc = suite_retarget(s, datadir, gpu, "--gpu", &d);
    free(path);
    if (rc != 0) {
        snprintf(err, errlen, "%s", d.count ? d.msgs[0] : "cannot load the suite");
        suite_done(s);
    }
    diag_done(&d);
    return rc;
}

unsigned repro_list_groups(const struct suite *s, const size_t *chosen, size_t n,
                           char groups[REPRO_MAX_GROUPS][32])
{
    unsigned ngroups = 0;
    for (size_t t = 0; t < s->ntags && ngroups < REPRO_MAX_GROUPS; t++)
        for (size_t i = 0; i < n; i++) {
            const char *tag = s->mixes[chosen[i]].tag;
            if (strcmp(tag ? tag : "", s->tags[t]) == 0) {
                snprintf(groups[ngroups++], sizeof groups[0], "%s", s->tags[t]);
                break;
            }
        }
    return ngroups;
}

/* The --resume journal's description of the run (one file serves every part of the
 * experiment, each under its own number, *part_no) into what. */
static void journal_what(const struct repro_options *o, const struct repro_part *part,
                         unsigned *part_no, char *what, size_t len)
{
    const struct repro_experiment *e = NULL;
    for (size_t i = 0; i < repro_experiment_count() && !e; i++) {
        const struct repro_experiment *x = repro_experiment_at(i);
        if (part >= x->parts && part < x->parts + x->nparts)
            e = x;
    }
    *part_no = e ? (unsigned)(part - e->parts) : 0;
    /* --set's settings are named only when given, so that the journals of runs without them
     * keep their identity. */
    char sets[1024];
    gpu_sets_describe(&o->sets, ", set ", " ", sets, sizeof sets);
    snprintf(what, len,
             "reproduce %s --%s (quick %d, epochs %u, epoch cycles %u, seed %llu, predictors %s, "
             "gpu %s%s)",
             e ? e->name : part->suite, e ? e->flag : "accuracy", o->quick, o->epochs,
             o->epoch_cycles, (unsigned long long)o->seed, o->predictors ? o->predictors : "all",
             o->gpu ? o->gpu : "the suite's", sets);
}

int repro_check_options(const struct repro_options *o, const struct repro_experiment *e,
                        size_t *most_mixes, char *err, size_t errlen)
{
    *most_mixes = 0;
    for (size_t i = 0; i < e->nparts; i++) {
        struct suite s;
        if (repro_load_suite(o->datadir, e->parts[i].suite, o->gpu, &s, err, errlen) != 0)
            return -1;
        int rc = gpu_sets_check(&o->sets, o->datadir, s.gpu, err, errlen);
        size_t *chosen = xmalloc((s.nmixes + 1) * sizeof(*chosen)); /* as repro_run_part */
        size_t n = o->quick ? repro_quick_select(&s, e->parts[i].quick_mixes, chosen) : s.nmixes;
        free(chosen);
        if (n > *most_mixes)
            *most_mixes = n;
        suite_done(&s);
        if (rc != 0)
            return -1;
        if (!o->resume || access(o->resume, F_OK) != 0)
            continue;
        /* The journal's identity, as repro_run_mixes opens it. */
        char what[1536];
        unsigned part_no;
        journal_what(o, &e->parts[i], &part_no, what, sizeof what);
        if (repro_journal_check_run(o->resume, o->datadir, what, mix_ops.result_size, err,
                                    errlen) != 0)
            return -1;
    }
    return 0;
}

int repro_run_part(const struct repro_options *o, const struct repro_part *part,
                   repro_progress_fn progress, void *ctx, struct repro_part_result *out, char *err,
                   size_t errlen)
{
    memset(out, 0, sizeof(*out));
    out->part = part;
    double t0 = repro_wall_seconds();
    struct suite s;
    char suite_gpu[32] = "";
    if (repro_load_suite(o->datadir, part->suite, NULL, &s, err, errlen) != 0)
        return -1;
    snprintf(suite_gpu, sizeof suite_gpu, "%s", s.gpu);
    suite_done(&s);
    if (repro_load_suite(o->datadir, part->suite, o->gpu, &s, err, errlen) != 0)
        return -1;
    if (gpu_sets_check(&o->sets, o->datadir, s.gpu, err, errlen) != 0) {
        suite_done(&s);
        return -1;
    }
    snprintf(out->suite, sizeof out->suite, "%s", s.name);
    snprintf(out->gpu, sizeof out->gpu, "%s", s.gpu);
    snprintf(out->suite_gpu, sizeof out->suite_gpu, "%s", suite_gpu);
    out->epochs = o->epochs ? o->epochs : o->quick ? REPRO_QUICK_EPOCHS : s.epochs;
    if (out->epochs > REPRO_MAX_EPOCHS)
        out->epochs = REPRO_MAX_EPOCHS;
    out->epoch_cycles = o->epoch_cycles ? o->epoch_cycles : s.epoch_cycles;
    out->suite_mixes = s.nmixes;
    list_predictors(o, out);
    size_t *chosen = xmalloc((s.nmixes + 1) * sizeof(*chosen));
    size_t n = s.nmixes;
    if (o->quick)
        n = repro_quick_select(&s, part->quick_mixes, chosen);
    else
        for (size_t i = 0; i < n; i++)
            chosen[i] = i;
    n = repro_shard_select(chosen, n, o->shard, o->shards);
    out->mixes = xcalloc(n + 1, sizeof(*out->mixes));
    out->nmixes = n;
    for (size_t i = 0; i < n; i++)
        describe_mix(&s, chosen[i], out, &out->mixes[i]);
    out->ngroups = repro_list_groups(&s, chosen, n, out->groups);
    char what[1536]; /* with --set's settings */
    unsigned part_no;
    journal_what(o, part, &part_no, what, sizeof what);
    struct repro_job j = {o, &s, out, NULL, ""};
    repro_reuse_head(o->datadir, sizeof(struct measured), j.key_head, sizeof j.key_head);
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
                                      .part = part_no,
                                      .resumed = &out->resume};
    long failed = repro_run_mixes(&mixes, progress, ctx, err, errlen);
    out->seconds = repro_wall_seconds() - t0;
    free(chosen);
    suite_done(&s);
    return failed < 0 ? -1 : failed > 0;
}

void repro_part_result_done(struct repro_part_result *r)
{
    free(r->mixes);
    r->mixes = NULL;
    r->nmixes = 0;
}
