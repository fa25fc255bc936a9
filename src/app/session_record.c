/* session_record — the event log, recording to run files, and the run's summary. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corun/catalog.h"
#include "corun/columns.h"
#include "corun/datadir.h"
#include "corun/diag.h"
#include "corun/runfile.h"
#include "corun/util.h"
#include "session_internal.h"

static void to_runfile_epoch(const struct session *s, const struct session_epoch *e,
                             struct runfile_epoch *out)
{
    memset(out, 0, sizeof(*out));
    out->start_cycle = e->start_cycle;
    out->cycles = e->cycles;
    out->nkernels = e->nkernels;
    for (unsigned k = 0; k < e->nkernels; k++) {
        out->k[k].c = e->k[k].c;
        out->k[k].np_true = e->k[k].np_true;
        out->k[k].np_pred = e->k[k].np_pred;
        out->k[k].in_mix = e->k[k].in_mix;
        out->k[k].pred_class = e->k[k].pred_class;
        const char *x = session_epoch_explain(s, e->index, k);
        if (x) /* cut to the room a run file has */
            snprintf(out->k[k].explain, sizeof out->k[k].explain, "%s", x);
    }
    out->nsms = e->nsms;
    for (unsigned i = 0; i < e->nsms; i++)
        out->owner[i] = e->owner[i];
    out->sys = e->sys;
    out->stp = e->m.valid ? e->m.stp : NAN;
    out->antt = e->m.valid ? e->m.antt : NAN;
    out->fairness = e->m.valid ? e->m.fairness : NAN;
}

static void fail_recording(struct session *s, const char *what)
{
    snprintf(s->error, sizeof s->error, "%s", what);
    s->rec_failed = true;
    char ignored[256];
    runfile_close(s->rec, ignored, sizeof ignored);
    s->rec = NULL;
}

/* Kernels that joined the mix since the run file's last epoch go into it first. */
static int record_kernels(struct session *s, unsigned nkernels, char *err, size_t errlen)
{
    for (; s->rec_kernels < nkernels; s->rec_kernels++) {
        const struct scenario_kernel *sk = &s->sc->kernels[s->rec_kernels];
        struct runfile_kernel rk = {sk->name, sk->priority, sk->qos_target, sk->weight};
        if (runfile_add_kernel(s->rec, &rk, err, errlen) != 0)
            return -1;
    }
    return 0;
}

int session_record_epoch(struct session *s, const struct session_epoch *e)
{
    if (!s->rec)
        return 0;
    struct runfile_epoch *re = xmalloc(sizeof(*re));
    to_runfile_epoch(s, e, re);
    char err[512];
    int rc = record_kernels(s, e->nkernels, err, sizeof err);
    if (rc == 0)
        rc = runfile_append_epoch(s->rec, re, err, sizeof err);
    free(re);
    if (rc != 0)
        fail_recording(s, err);
    else
        s->rec_epochs++;
    return rc;
}

static int record_event(struct session *s, const struct session_event *ev)
{
    char err[512];
    if (s->rec &&
        runfile_append_event(s->rec, ev->epoch, ev->cycle, ev->kind, ev->text, err, sizeof err)) {
        fail_recording(s, err);
        return -1;
    }
    return 0;
}

struct session_event *session_new_event(struct session *s)
{
    if (s->nevents == s->events_cap) {
        s->events_cap = s->events_cap ? s->events_cap * 2 : 16;
        s->events = xrealloc(s->events, s->events_cap * sizeof(*s->events));
    }
    struct session_event *ev = &s->events[s->nevents++];
    memset(ev, 0, sizeof(*ev));
    return ev;
}

int session_note(struct session *s, const char *kind, const char *text)
{
    if (s->replaying)
        return 0; /* a branch re-applying the recorded run: its log already has this */
    struct session_event *ev = session_new_event(s);
    ev->epoch = s->nepochs;
    if (s->gpu)
        ev->cycle = gpu_now(s->gpu);
    else if (s->nepochs)
        ev->cycle = s->epochs[s->nepochs - 1].start_cycle + s->epochs[s->nepochs - 1].cycles;
    snprintf(ev->kind, sizeof ev->kind, "%s", kind);
    snprintf(ev->text, sizeof ev->text, "%s", text);
    util_utf8_whole(ev->text); /* a text longer than an event holds: cut between characters */
    return record_event(s, ev);
}

unsigned session_event_count(const struct session *s)
{
    return s->nevents;
}

const struct session_event *session_event_at(const struct session *s, unsigned i)
{
    return i < s->nevents ? &s->events[i] : NULL;
}

int session_record(struct session *s, const char *path, char *err, size_t errlen)
{
    if (s->rec) {
        snprintf(err, errlen, "%s: already recording to %s", path, s->rec_path);
        return -1;
    }
    const struct scenario *sc = s->sc;
    struct runfile_header h = {0};
    h.scenario_text = sc->text;
    char *scenario = datadir_absolute_file(sc->path); /* the file from any directory */
    h.scenario_path = scenario;
    h.seed = sc->seed;
    h.gpu_preset = sc->gpu_name;
    h.sms = sc->gpu.sms;
    h.epoch_cycles = sc->epoch_cycles;
    /* The mix the scenario text gives; kernels added later join the file as epochs need them. */
    h.nkernels = s->nkernels_start;
    for (unsigned k = 0; k < h.nkernels; k++) {
        h.kernels[k].name = sc->kernels[k].name;
        h.kernels[k].priority = sc->kernels[k].priority;
        h.kernels[k].qos_target = sc->kernels[k].qos_target;
        h.kernels[k].weight = sc->kernels[k].weight;
    }
    s->rec = runfile_create(path, &h, err, errlen);
    free(scenario);
    if (!s->rec)
        return -1;
    s->rec_kernels = h.nkernels;
    s->rec_epochs = 0;
    s->rec_failed = false;
    free(s->rec_path);
    s->rec_path = xstrdup(path);
    for (unsigned i = 0; i < s->nepochs; i++)
        if (session_record_epoch(s, &s->epochs[i]) != 0)
            goto failed;
    for (unsigned i = 0; i < s->nevents; i++)
        if (record_event(s, &s->events[i]) != 0)
            goto failed;
    return 0;
failed:
    snprintf(err, errlen, "%s", s->error);
    return -1;
}

const char *session_run_path(const struct session *s)
{
    return s->rec_path;
}

int session_stop_recording(struct session *s)
{
    if (!s->rec)
        return 0;
    int rc = runfile_close(s->rec, s->error, sizeof s->error);
    s->rec = NULL;
    return rc;
}

int session_finish(struct session *s, char *err, size_t errlen)
{
    int rc = session_stop_recording(s);
    if (rc != 0)
        snprintf(err, errlen, "%s", s->error);
    return rc;
}

unsigned session_epochs_recorded(const struct session *s, bool *failed)
{
    if (failed)
        *failed = s->rec_failed;
    return s->rec_epochs;
}

/* session_summary over the first n epochs. */
static const char *summary_of(const struct session *s, unsigned n, struct catalog_metrics *out)
{
    const char *predictor = "none";
    memset(out, 0, sizeof(*out));
    /* The predictor of the last epoch that had one; ARE over every kernel-epoch it predicted. */
    size_t nare = 0;
    for (unsigned i = 0; i < n; i++) {
        const struct session_epoch *e = &s->epochs[i];
        if (e->predictor[0])
            predictor = e->predictor;
        for (unsigned k = 0; k < e->nkernels; k++) {
            if (isnan(e->k[k].are))
                continue;
            out->mean_are += e->k[k].are;
            out->max_are = fmax(out->max_are, e->k[k].are);
            nare++;
        }
    }
    out->has_are = nare > 0;
    if (nare)
        out->mean_are /= (double)nare;
    unsigned valid = 0;
    out->min_fairness = INFINITY;
    for (unsigned i = 0; i < n; i++) {
        const struct metrics *m = &s->epochs[i].m;
        if (!m->valid)
            continue;
        valid++;
        out->mean_stp += m->stp;
        out->mean_antt += m->antt;
        out->mean_fairness += m->fairness;
        out->min_fairness = fmin(out->min_fairness, m->fairness);
    }
    if (valid) {
        out->mean_stp /= valid;
        out->mean_antt /= valid;
        out->mean_fairness /= valid;
    } else {
        out->mean_stp = out->mean_antt = out->mean_fairness = out->min_fairness = NAN;
    }
    return predictor;
}

const char *session_summary(const struct session *s, struct catalog_metrics *out)
{
    return summary_of(s, s->nepochs, out);
}

int session_catalog(const struct session *s, const char *catalog_path, int64_t *id, char *err,
                    size_t errlen)
{
    struct catalog *cat = catalog_open(catalog_path, err, errlen);
    int rc = cat ? session_catalog_into(s, cat, id, err, errlen) : -1;
    catalog_close(cat);
    return rc;
}

int session_catalog_into(const struct session *s, struct catalog *cat, int64_t *id, char *err,
                         size_t errlen)
{
    const struct scenario *sc = s->sc;
    struct catalog_run run = {0};
    char mix[512] = "";
    for (unsigned k = 0; k < sc->nkernels; k++) {
        size_t used = strlen(mix);
        snprintf(mix + used, sizeof mix - used, "%s%s", k ? "+" : "", sc->kernels[k].name);
    }
    /* Absolute, so that the row means the same file from any directory. */
    char *abs = s->rec_path ? util_absolute_path(s->rec_path) : NULL;
    /* A recorded run's row describes its file: the epochs recorded before a failed write. */
    unsigned n = s->rec_path ? s->rec_epochs : s->nepochs;
    run.run_path = abs;
    run.scenario_name = sc->name;
    /* A replay's scenario, its created time and corun's version are its file's. */
    char *scenario = datadir_absolute_file(sc->path); /* as the run file has it */
    run.scenario_path = session_is_replay(s) ? s->rec_scenario_path : scenario;
    run.created_utc = s->rec_created;
    run.corun_version = s->rec_version;
    run.gpu = sc->gpu_name;
    run.mix = mix;
    run.predictor = summary_of(s, n, &run.metrics);
    run.allocator = session_allocator_name(s);
    run.seed = sc->seed;
    run.epochs = n;
    run.epoch_cycles = sc->epoch_cycles;
    int rc = catalog_add_run(cat, &run, id, err, errlen);
    free(abs);
    free(scenario);
    return rc;
}
