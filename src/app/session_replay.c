/* session_replay — replaying a run file without simulating, and branching from it: the
 * recorded scenario is simulated again up to the branch point, with the recorded switches and
 * mix changes re-applied at their epochs, and checked against the file. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corun/diag.h"
#include "corun/runfile.h"
#include "corun/util.h"
#include "session_internal.h"

void session_from_runfile_epoch(const struct runfile_epoch *re, struct session_epoch *e)
{
    e->start_cycle = re->start_cycle;
    e->cycles = re->cycles;
    e->nkernels = re->nkernels;
    for (unsigned k = 0; k < re->nkernels; k++) {
        e->k[k].c = re->k[k].c;
        e->k[k].np_true = re->k[k].np_true;
        e->k[k].np_pred = re->k[k].np_pred;
        e->k[k].in_mix = re->k[k].in_mix != 0;
        e->k[k].pred_class = re->k[k].pred_class; /* NONE in a file older than 2.1 */
        double are = isnan(re->k[k].np_pred) ? -1 : metrics_are(re->k[k].np_pred, re->k[k].np_true);
        e->k[k].are = are < 0 ? NAN : are;
        if (!isnan(re->k[k].np_pred))
            snprintf(e->predictor, sizeof e->predictor, "recorded");
    }
    e->sys = re->sys;
    e->m.valid = !isnan(re->stp);
    e->m.stp = re->stp;
    e->m.antt = re->antt;
    e->m.fairness = re->fairness;
    e->nsms = re->nsms < SESSION_MAX_SMS ? re->nsms : SESSION_MAX_SMS;
    for (unsigned i = 0; i < e->nsms; i++)
        e->owner[i] = (int8_t)re->owner[i];
}

int session_is_replay(const struct session *s)
{
    return s->gpu == NULL;
}

/* Load the scenario recorded in h (with its seed) into sc. */
static int load_recorded_scenario(const char *path, const struct runfile_header *h,
                                  const char *datadir, struct scenario *sc, char *err,
                                  size_t errlen)
{
    char *name = xasprintf("%s (recorded scenario)", path);
    struct diag d;
    diag_init(&d);
    int rc = scenario_load_text(sc, name, h->scenario_text, datadir, &d);
    if (rc != 0)
        snprintf(err, errlen, "%s", d.count ? d.msgs[0] : "cannot load the recorded scenario");
    else if (sc->nkernels != h->nkernels_start) {
        snprintf(err, errlen,
                 "%s: the recorded scenario now loads as %u kernels, the file holds %u (a "
                 "kernel changed since)",
                 path, sc->nkernels, h->nkernels_start);
        rc = -1;
    } else {
        sc->seed = h->seed;
    }
    diag_done(&d);
    free(name);
    return rc;
}

/* The kernels added during the recorded run, after the scenario's own (and after its `--set`
 * changes, which were made for the mix the run started with). */
static int add_recorded_kernels(struct session *s, const struct runfile_header *h,
                                const char *datadir, char *err, size_t errlen)
{
    struct scenario *sc = &s->owned_sc;
    struct diag d;
    diag_init(&d);
    int rc = 0;
    for (unsigned k = sc->nkernels; rc == 0 && k < h->nkernels; k++) {
        if (scenario_add_kernel(sc, h->kernels[k].name, datadir, &d) < 0) {
            snprintf(err, errlen, "%s: kernel %u, added during the run: %s", s->rec_path, k,
                     d.count ? d.msgs[0] : "cannot load it");
            rc = -1;
        } else {
            sc->kernels[k].priority = h->kernels[k].priority;
            sc->kernels[k].qos_target = h->kernels[k].qos_target;
        }
    }
    diag_done(&d);
    return rc;
}

/* Re-apply the run's `--set` changes (parameter events "set KEY=VALUE" before its first epoch)
 * to the recorded scenario, so that a branch simulates what was recorded. */
static int apply_recorded_sets(struct session *s, const struct runfile_header *h, char *err,
                               size_t errlen)
{
    struct diag d;
    diag_init(&d);
    for (unsigned i = 0; i < s->nevents; i++) {
        const struct session_event *ev = &s->events[i];
        if (ev->epoch == 0 && strcmp(ev->kind, "parameter") == 0 &&
            strncmp(ev->text, "set ", 4) == 0)
            scenario_set(&s->owned_sc, ev->text + 4, &d);
    }
    int rc = 0;
    if (d.count) {
        snprintf(err, errlen, "%s: a recorded change no longer applies: %s", s->rec_path,
                 d.msgs[0]);
        rc = -1;
    } else if (s->owned_sc.gpu.sms != h->sms) {
        snprintf(err, errlen,
                 "%s: the recorded scenario now gives %u SMs, the file holds %u (a preset "
                 "changed since)",
                 s->rec_path, s->owned_sc.gpu.sms, h->sms);
        rc = -1;
    } else {
        s->owned_sc.seed = h->seed;
    }
    diag_done(&d);
    return rc;
}

/* The name after "-> " in a switch event's text ("static -> fair (...)"); false for an event
 * of the same kind that is no switch (an allocator's note that it cannot act). */
static bool switched_to(const char *text, char *name, size_t len)
{
    const char *arrow = strstr(text, "-> ");
    snprintf(name, len, "%s", arrow ? arrow + 3 : "");
    name[strcspn(name, " ")] = '\0';
    return arrow != NULL;
}

/* Each epoch run with a predictor in force is named by it, the last switch to one before it
 * in the log (show --json said "recorded" for all), whether or not it made predictions there:
 * the live run names it so (ASM makes none in the epoch after a mix change, and `run` printed
 * that epoch's prediction columns where `show` did not). An epoch with predictions before any
 * switch keeps "recorded". */
static void name_recorded_predictors(struct session *s)
{
    char name[sizeof s->epochs[0].predictor] = "", to[sizeof name];
    unsigned j = 0; /* the log is in epoch order: one pass over it */
    for (unsigned i = 0; i < s->nepochs; i++) {
        for (; j < s->nevents && s->events[j].epoch <= i; j++)
            if (strcmp(s->events[j].kind, "predictor") == 0 &&
                switched_to(s->events[j].text, to, sizeof to))
                snprintf(name, sizeof name, "%s", to);
        struct session_epoch *e = &s->epochs[i];
        if (name[0] && strcmp(name, "none") != 0)
            snprintf(e->predictor, sizeof e->predictor, "%s", name);
    }
}

/* Each epoch's QoS targets (session_kernel_epoch.qos_target), which a run file does not keep:
 * from the recorded scenario (its --set changes and added kernels applied), with the
 * allocator switches and the parameter changes of the log applied at their epochs. A change
 * that no longer applies is passed over here; a branch says so. */
static void replay_qos_targets(struct session *s)
{
    struct scenario sc;
    scenario_copy(&sc, &s->owned_sc);
    char allocator[64], name[64];
    snprintf(allocator, sizeof allocator, "%s", sc.allocator ? sc.allocator : "static");
    struct diag d;
    diag_init(&d);
    unsigned j = 0;
    for (unsigned i = 0; i < s->nepochs; i++) {
        for (; j < s->nevents && s->events[j].epoch <= i; j++) {
            const struct session_event *ev = &s->events[j];
            if (strcmp(ev->kind, "allocator") == 0 && switched_to(ev->text, name, sizeof name))
                snprintf(allocator, sizeof allocator, "%s", name);
            else if (ev->epoch > 0 && strcmp(ev->kind, "parameter") == 0 &&
                     strncmp(ev->text, "set ", 4) == 0) /* those before epoch 1 are in sc */
                scenario_set(&sc, ev->text + 4, &d);
        }
        struct session_epoch *e = &s->epochs[i];
        for (unsigned k = 0; k < e->nkernels; k++)
            e->k[k].qos_target = session_qos_target_in(&sc, allocator, k);
    }
    diag_done(&d);
    scenario_done(&sc);
}

/* What the file's catalog row takes from its header rather than from the replay: the recorded
 * scenario loads under a name of its own, and the run was made then, by that corun. */
static void keep_header(struct session *s, const struct runfile_header *h)
{
    if (h->scenario_path && h->scenario_path[0])
        s->rec_scenario_path = xstrdup(h->scenario_path);
    if (h->created && h->created[0])
        s->rec_created = xstrdup(h->created);
    if (h->corun_version && h->corun_version[0])
        s->rec_version = xstrdup(h->corun_version);
}

struct session *session_replay(const char *path, const char *datadir, char *err, size_t errlen)
{
    struct runfile *rf = runfile_open(path, err, errlen);
    if (!rf)
        return NULL;
    struct session *s = xcalloc(1, sizeof(*s));
    split_gov_recall(&s->split_gov);
    s->rec_path = xstrdup(path);
    keep_header(s, runfile_header(rf));
    if (load_recorded_scenario(path, runfile_header(rf), datadir, &s->owned_sc, err, errlen)) {
        s->sc = &s->owned_sc;
        goto failed;
    }
    s->sc = &s->owned_sc;
    s->owns_sc = true;
    s->nkernels_start = runfile_header(rf)->nkernels_start;
    struct runfile_epoch *re = xmalloc(sizeof(*re));
    uint64_t n = runfile_epoch_count(rf);
    for (uint64_t i = 0; i < n; i++) {
        if (runfile_read_epoch(rf, i, re, err, errlen) != 0) {
            free(re);
            goto failed;
        }
        session_from_runfile_epoch(re, session_new_epoch(s));
        for (unsigned k = 0; k < re->nkernels; k++)
            if (re->k[k].explain[0])
                s->explain[i][k] = xstrdup(re->k[k].explain);
        s->nepochs++;
    }
    free(re);
    s->rec_epochs = s->nepochs; /* the file it came from holds them all */
    /* The mix as the last epoch had it. */
    for (unsigned k = 0; n && k < s->epochs[n - 1].nkernels; k++)
        s->gone[k] = !s->epochs[n - 1].k[k].in_mix;
    for (uint64_t i = 0; i < runfile_event_count(rf); i++) {
        struct runfile_event rev;
        if (runfile_read_event(rf, i, &rev, err, errlen) != 0)
            goto failed;
        struct session_event *ev = session_new_event(s);
        ev->epoch = (unsigned)rev.epoch;
        ev->cycle = rev.cycle;
        snprintf(ev->kind, sizeof ev->kind, "%s", rev.kind);
        snprintf(ev->text, sizeof ev->text, "%s", rev.text);
    }
    name_recorded_predictors(s);
    if (apply_recorded_sets(s, runfile_header(rf), err, errlen) != 0 ||
        add_recorded_kernels(s, runfile_header(rf), datadir, err, errlen) != 0)
        goto failed;
    session_replay_allocator(s);
    replay_qos_targets(s);
    runfile_close(rf, err, errlen);
    return s;
failed:
    runfile_close(rf, s->error, sizeof s->error);
    s->owns_sc = true;
    session_delete(s);
    return NULL;
}

/* Progress over the re-simulation of a branch's epochs, in cycles: epochs of other lengths
 * (a run whose epoch length changed) move the bar by what they cost. */
struct branch_progress {
    session_progress_fn progress;
    void *ctx;
    uint64_t before, cycles, total; /* the epochs before this one; this one's; all of them */
};

static int branch_report(void *ctx, double done)
{
    const struct branch_progress *bp = ctx;
    if (bp->total == 0) /* no cycles to count by (a file's epochs of none) */
        return bp->progress(bp->ctx, done);
    return bp->progress(bp->ctx,
                        ((double)bp->before + done * (double)bp->cycles) / (double)bp->total);
}

/* A recorded mix change ("add NAME as kernel K", "remove kernel K (NAME)") asked of b again;
 * it applies at b's next epoch boundary, as it did in the recorded run. */
static int reapply_mix(struct session *b, const char *text, char *err, size_t errlen)
{
    char name[64];
    unsigned k;
    if (sscanf(text, "add %63s as kernel %u", name, &k) == 2) {
        int got = session_add_kernel(b, name, err, errlen);
        if (got >= 0 && (unsigned)got != k) {
            snprintf(err, errlen, "%s would be kernel %d, not %u", name, got, k);
            return -1;
        }
        return got < 0 ? -1 : 0;
    }
    if (sscanf(text, "remove kernel %u", &k) == 1)
        return session_remove_kernel(b, k, err, errlen);
    snprintf(err, errlen, "expected \"add NAME as kernel K\" or \"remove kernel K (NAME)\"");
    return -1;
}

/* Re-apply r's predictor, allocator and parameter switches made before epoch `epoch` (from
 * event *next on) to the branch b, so that it simulates what was recorded. */
/* What a message calls r: its run file, or a live run. */
static const char *run_name(const struct session *r)
{
    return r->rec_path ? r->rec_path : "the live run";
}

static int reapply_switches(struct session *b, const struct session *r, unsigned epoch,
                            unsigned *next, char *err, size_t errlen)
{
    for (; *next < r->nevents && r->events[*next].epoch <= epoch; (*next)++) {
        const struct session_event *ev = &r->events[*next];
        char name[64], why[512];
        int rc = 0;
        if (strcmp(ev->kind, "predictor") == 0) {
            if (switched_to(ev->text, name, sizeof name))
                rc = session_set_predictor(b, name, why, sizeof why);
        } else if (strcmp(ev->kind, "allocator") == 0) {
            if (switched_to(ev->text, name, sizeof name))
                rc = session_set_allocator(b, name, why, sizeof why);
        } else if (strcmp(ev->kind, "mix") == 0) {
            rc = reapply_mix(b, ev->text, why, sizeof why);
        } else if (strcmp(ev->kind, "parameter") == 0 && strncmp(ev->text, "set ", 4) == 0) {
            /* A replay's before the first epoch are in its scenario already
             * (apply_recorded_sets); a live run began from start_sc, without them. */
            if (ev->epoch > 0 || r->has_start)
                rc = session_apply_set(b, ev->text + 4, why, sizeof why);
            /* A branch at 0 (not replaying: its log starts afresh) logs them again, or its
             * own file's replay would start from the scenario's values. */
            if (rc == 0 && ev->epoch == 0 && !b->replaying &&
                session_note(b, "parameter", ev->text) != 0) {
                snprintf(why, sizeof why, "%s", b->error);
                rc = -1;
            }
        } else if (strcmp(ev->kind, "lesson") == 0 && session_note(b, "lesson", ev->text) != 0) {
            /* A step opened before the first epoch is the set-up too: a branch at 0 logs it
             * again before the step's switches (it was dropped unsaid); replaying, a no-op. */
            snprintf(why, sizeof why, "%s", b->error);
            rc = -1;
        }
        if (rc != 0) {
            snprintf(err, errlen,
                     "%s: the recorded change \"%s\" before epoch %u no longer "
                     "applies: %s",
                     run_name(r), ev->text, epoch + 1, why);
            return -1;
        }
    }
    return 0;
}

/* Where the re-simulated epoch a differs from the recorded b, in words; NULL when equal. */
static const char *first_difference(const struct session_epoch *a, const struct session_epoch *b,
                                    unsigned *kernel)
{
    for (unsigned k = 0; k < a->nkernels; k++) {
        *kernel = k;
        if (a->k[k].c.instructions != b->k[k].c.instructions)
            return "instructions";
        if (a->k[k].c.l2_misses != b->k[k].c.l2_misses)
            return "L2 misses";
        if (a->k[k].c.dram_bytes != b->k[k].c.dram_bytes)
            return "DRAM bytes";
        if (a->k[k].c.row_hits != b->k[k].c.row_hits)
            return "row hits";
        if (a->k[k].in_mix != b->k[k].in_mix)
            return "the mix";
        if (a->k[k].in_mix && a->k[k].np_true != b->k[k].np_true)
            return "true NP";
    }
    return NULL;
}

/* A branch of a live run re-simulates its epochs exactly, so the run's private-mode
 * references cover them: it starts with copies of their samples (each caught up with or
 * simulated again from its start if the branch later goes further), rather than simulating
 * them again. A replay has none in memory. */
static void inherit_references(struct session *b, const struct session *r)
{
    if (!r->solo)
        return;
    for (unsigned k = 0; k < b->sc->nkernels; k++) {
        const struct solo_key *key = solo_trace_key(b->ref[k]);
        struct solo_trace *t = solo_cache_find(r->solo, key);
        const uint64_t *insts;
        size_t n = t ? solo_trace_samples(t, &insts) : 0;
        char err[256];
        struct solo_trace *c =
            n > 1 ? solo_cache_put(b->solo, &b->sc->gpu, &b->sc->kernels[k].profile, key->sms,
                                   key->seed, insts, n, err, sizeof err)
                  : NULL;
        if (c)
            b->ref[k] = c;
    }
}

/* Whether ev says where the run's first epochs came from (session_branch_cached's note). */
static bool is_provenance(const struct session_event *ev)
{
    return strcmp(ev->kind, "note") == 0 && strncmp(ev->text, "branched from ", 14) == 0;
}

/* The log of r from its event first (the first at the branch point, epochs) that the branch b
 * keeps: the class's scores made at the branch point grade epochs the branch holds, and nothing
 * would make them again (they went unsaid). Every "branched from" note of r also tells where
 * epochs the branch holds came from (r's first epochs up to the note's are its parent's, and
 * the branch holds r's first): one made at or after the branch point joins the branch's log
 * there, before its own note, so the branch alone names its whole chain. A branch at 0 holds
 * none of them. */
static void keep_at_branch_point(struct session *b, const struct session *r, unsigned epochs,
                                 unsigned first)
{
    for (unsigned i = first; i < r->nevents; i++) {
        const struct session_event *ev = &r->events[i];
        if (ev->epoch == epochs && strcmp(ev->kind, "score") == 0) {
            *session_new_event(b) = *ev;
        } else if (epochs > 0 && is_provenance(ev)) {
            struct session_event *kept = session_new_event(b);
            *kept = *ev;
            kept->epoch = epochs;
            kept->cycle = r->epochs[epochs - 1].start_cycle + r->epochs[epochs - 1].cycles;
        }
    }
}

/* Whether r's log chooses a predictor or an allocator (kind) before its first epoch. */
static bool chose_at_start(const struct session *r, const char *kind)
{
    char name[64];
    for (unsigned i = 0; i < r->nevents && r->events[i].epoch == 0; i++)
        if (strcmp(r->events[i].kind, kind) == 0 &&
            switched_to(r->events[i].text, name, sizeof name))
            return true;
    return false;
}

struct session *session_branch(const struct session *r, unsigned epochs,
                               session_progress_fn progress, void *ctx, char *err, size_t errlen)
{
    return session_branch_cached(r, epochs, NULL, progress, ctx, err, errlen);
}

struct session *session_branch_cached(const struct session *r, unsigned epochs, struct catalog *cat,
                                      session_progress_fn progress, void *ctx, char *err,
                                      size_t errlen)
{
    if (epochs > r->nepochs || (!session_is_replay(r) && !r->has_start)) {
        /* An empty run held "epochs 0 to 0": it holds none, and branches only at its start. */
        if (r->nepochs == 0)
            snprintf(err, errlen,
                     "%s: cannot branch after epoch %u: the run holds no epochs (expected 0, "
                     "its start)",
                     run_name(r), epochs);
        else
            snprintf(err, errlen,
                     "%s: cannot branch after epoch %u: the run holds %u epoch%s (expected 0, "
                     "its start, to %u)",
                     run_name(r), epochs, r->nepochs, r->nepochs == 1 ? "" : "s", r->nepochs);
        return NULL;
    }
    /* The branch starts from the recorded scenario's mix (a live run's: as it began); kernels
     * added later join again at their epochs (reapply_switches). */
    struct scenario start;
    scenario_copy(&start, r->has_start ? &r->start_sc : r->sc);
    scenario_keep_kernels(&start, r->nkernels_start);
    /* The scenario's predictor and allocator are chosen again from r's log, where their choice
     * before the first epoch is: a session made with them and then told them again chose each
     * twice. ASM's second choice passed its first priority turn on to the next kernel (a
     * branch of a run naming ASM did not simulate as the run had), and the log said
     * "fair -> fair (restarted)" where the run's said "static -> fair". */
    if (chose_at_start(r, "predictor")) {
        free(start.predictor);
        start.predictor = NULL;
    }
    if (chose_at_start(r, "allocator")) {
        free(start.allocator);
        start.allocator = NULL;
    }
    struct session *b = session_new(&start, err, errlen);
    scenario_done(&start);
    if (!b)
        return NULL;
    b->threads = r->threads; /* a replay keeps what it was given for its branches */
    inherit_references(b, r);
    char cache_err[256]; /* a trace cache that fails only costs time */
    if (cat)
        (void)session_traces_from_catalog(b, cat, cache_err, sizeof cache_err);
    /* The replay's log up to the branch point is the branch's history. */
    b->nevents = 0;
    for (unsigned i = 0; i < r->nevents && r->events[i].epoch < epochs; i++)
        *session_new_event(b) = r->events[i];
    b->replaying = true;
    unsigned next_event = 0;
    uint64_t total = 0, before = 0;
    for (unsigned i = 0; i < epochs; i++)
        total += r->epochs[i].cycles;
    for (unsigned i = 0; i < epochs; i++) {
        if (reapply_switches(b, r, i, &next_event, err, errlen) != 0) {
            session_delete(b);
            return NULL;
        }
        struct branch_progress bp = {progress, ctx, before, r->epochs[i].cycles, total};
        before += r->epochs[i].cycles;
        int rc = session_step_epoch(b, progress ? branch_report : NULL, &bp);
        unsigned k = 0;
        const char *what = rc == 0 ? first_difference(&b->epochs[i], &r->epochs[i], &k) : NULL;
        if (rc != 0 || what) {
            if (rc == 1)
                snprintf(err, errlen, "%s: branching abandoned", run_name(r));
            else if (rc != 0)
                snprintf(err, errlen, "%s", b->error);
            else
                snprintf(err, errlen,
                         "%s: epoch %u simulates differently now (%s of %s); the run was "
                         "recorded by another corun or with other presets or kernels, so a "
                         "branch would not continue it",
                         run_name(r), i + 1, what, r->sc->kernels[k].name);
            session_delete(b);
            return NULL;
        }
    }
    b->replaying = false;
    keep_at_branch_point(b, r, epochs, next_event);
    char note[sizeof(((struct session_event *)0)->text)];
    if (session_is_replay(r)) {
        /* A path too long for the note keeps its end, the file's name, and the epoch: cut at
         * the note's size, "after epoch N" was lost. */
        char after[32];
        snprintf(after, sizeof after, " after epoch %u", epochs);
        size_t room = sizeof note - 1 - strlen("branched from ") - strlen(after);
        const char *path = r->rec_path, *cut = "";
        if (strlen(path) > room) {
            path += strlen(path) - (room - strlen("…"));
            while ((*path & 0xC0) == 0x80) /* not inside a character */
                path++;
            cut = "…";
        }
        snprintf(note, sizeof note, "branched from %s%s%s", cut, path, after);
    } else
        snprintf(note, sizeof note, "rewound to the end of epoch %u of the live run", epochs);
    session_note(b, "note", note);
    /* Before the first epoch the changes are the run's set-up (`run --predictor`,
     * `--allocator`, the workbench's choices before it stepped): a branch at 0 keeps them,
     * as a later one does (a branch at 0 ran without the run's predictor). The changes made
     * at a later branch point are left for the branch to make again or not (the point of
     * branching there), and the log says which. */
    if (epochs == 0) {
        if (reapply_switches(b, r, 0, &next_event, err, errlen) != 0) {
            session_delete(b);
            return NULL;
        }
        return b;
    }
    for (unsigned i = next_event; i < r->nevents && r->events[i].epoch == epochs; i++) {
        const struct session_event *ev = &r->events[i];
        if (strcmp(ev->kind, "predictor") == 0 || strcmp(ev->kind, "allocator") == 0 ||
            strcmp(ev->kind, "mix") == 0 || strcmp(ev->kind, "lesson") == 0 ||
            (strcmp(ev->kind, "parameter") == 0 && strncmp(ev->text, "set ", 4) == 0)) {
            snprintf(note, sizeof note, "not re-applied at the branch point: %s %.180s", ev->kind,
                     ev->text);
            session_note(b, "note", note);
        }
    }
    return b;
}
