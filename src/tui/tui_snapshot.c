/* tui_snapshot — the session behind the snapshot: attaching one (live, a replay, a branch) and
 * what its worker answers: the outcome of a request (a recording, a branch, a predictor,
 * allocator, parameter or mix change), and the session's own events (switches, parameter and
 * mix changes, the allocator's repartitions with their reasons), which join the event log as a
 * recorded run's do. It also knows which predictor and allocator an epoch of a replay ran
 * under, and which kernels were in the mix of the epoch shown. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corun/accel_runfile.h"
#include "corun/catalog.h"
#include "corun/util.h"
#include "tui_internal.h"

/* ---- attaching a session ---- */

/* The private-mode references through the catalog's trace cache (--catalog's, or the default), as
 * `corun run` uses it: a live session takes the longer traces from it before its worker starts, and
 * stores its own back when it is detached, so a mix opened again (a lesson, a demo, the default
 * scenario) does not simulate its references again. A loaded trace gives the samples the session
 * would have simulated: nothing shown changes. A catalog that cannot be used only costs time.
 * Returns how many kernels' traces were taken, or -1 with the reason in err. */
static int traces_from_catalog(struct session *s, const char *catalog, char *err, size_t errlen)
{
    if (session_is_replay(s))
        return 0;
    struct catalog *cat = catalog_open(catalog, err, errlen);
    int taken = cat ? session_traces_from_catalog(s, cat, err, errlen) : -1;
    catalog_close(cat);
    return taken;
}

static void traces_to_catalog(const struct session *s, const char *catalog, char *err,
                              size_t errlen)
{
    err[0] = '\0';
    if (!s || session_is_replay(s) || session_epochs_done(s) == 0)
        return;
    struct catalog *cat = catalog_open(catalog, err, errlen);
    if (cat && session_traces_to_catalog(s, cat, err, errlen) == 0)
        err[0] = '\0';
    catalog_close(cat);
}

static void clear_snapshot(struct tui *t)
{
    for (unsigned i = 0; i < t->nepochs; i++) {
        free(t->epochs[i].owner);
        free(t->epochs[i].explain);
    }
    t->nepochs = 0;
}

struct predict_text *tui_explain_copy(const struct session *s, const struct session_epoch *e)
{
    struct predict_text *x = NULL;
    for (unsigned k = 0; k < e->nkernels; k++) {
        const char *text = session_epoch_explain(s, e->index, k);
        if (!text)
            continue;
        if (!x)
            x = xcalloc(e->nkernels, sizeof(*x));
        for (const char *p = text; *p && x[k].n < PREDICT_EXPLAIN_LINES;) {
            size_t len = strcspn(p, "\n");
            predict_text_add(&x[k], "%.*s", (int)len, p);
            p += len + (p[len] == '\n');
        }
    }
    return x;
}

/* A session's epoch into the snapshot, with its partition at its end. */
static void copy_epoch(struct tui *t, const struct session *s, const struct session_epoch *e)
{
    struct tui_result r = {.e = *e, .owner = xmalloc(t->sms * sizeof(int))};
    for (unsigned i = 0; i < t->sms; i++)
        r.owner[i] = i < e->nsms ? e->owner[i] : GPU_SM_IDLE;
    if (t->nepochs == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 16;
        t->epochs = xrealloc(t->epochs, t->cap * sizeof(*t->epochs));
    }
    t->epochs[t->nepochs++] = (struct tui_epoch){r.e, r.owner, 0, tui_explain_copy(s, e)};
}

void tui_attach(struct tui *t, struct session *s)
{
    char cache_err[512];
    int cached = traces_from_catalog(s, t->catalog, cache_err, sizeof cache_err);
    clear_snapshot(t);
    t->session = s;
    t->sc = session_scenario(s);
    t->live = !session_is_replay(s);
    snprintf(t->predictor, sizeof t->predictor, "%s", session_predictor_name(s));
    tui_switches_load(t, s);
    t->sms = t->sc->gpu.sms;
    t->owner = xrealloc(t->owner, t->sms * sizeof(*t->owner));
    session_partition(s, t->owner);
    unsigned n = session_epochs_done(s);
    for (unsigned i = 0; i < n; i++)
        copy_epoch(t, s, session_epoch_at(s, i));
    t->shown = n ? n - 1 : 0;
    /* A replay's epochs are in its file; a branch's first ones are in the file it came from. */
    t->saved_epochs = n;
    const char *path = session_run_path(s);
    t->recording = t->live && path;
    snprintf(t->run_path, sizeof t->run_path, "%s", path ? path : "");
    /* The worker is not started yet: the session is this thread's to read. */
    tui_mix_copy(s, &t->mix);
    t->attached_kernels = t->mix.n;
    tui_select_in_mix(t);
    t->running = t->busy = t->branching = false;
    t->queued = 0;
    t->progress = 0;
    /* The run's own event log comes first, stamped with the epoch it happened at. */
    t->log.first = t->log.count = 0;
    t->log_scroll = 0;
    for (unsigned i = 0; i < session_event_count(s); i++)
        tui_log_event(t, session_event_at(s, i));
    if (cached < 0)
        tui_log(t, "no trace cache: %s", cache_err);
    else if (cached > 0)
        tui_log(t, "%d reference%s from the trace cache", cached, cached == 1 ? "" : "s");
    t->worker = tui_worker_start(s, t->catalog);
    tui_changed(t, TUI_CH_ALL);
}

void tui_catalog_failed(char *buf, size_t n, const char *path, const char *catalog, const char *err)
{
    /* The command before the reason, which may be long: a note cut short keeps it. */
    snprintf(buf, n, "but the catalog failed (add it later with `corun runs add %s%s%s`): %s", path,
             catalog ? " --catalog " : "", catalog ? catalog : "", err);
}

/* A recording made in the workbench ends as `run --out` does: the file is completed and
 * the run gets its catalog row (--catalog's, or the default). What happened goes to saved_note;
 * when the catalog failed (locked, say), the command that adds the row later, as run --out
 * names it. */
static void finish_recording(struct tui *t)
{
    struct session *s = t->session;
    t->saved_note[0] = '\0';
    if (!s || session_is_replay(s) || !session_run_path(s))
        return;
    char err[512];
    int64_t id;
    if (session_finish(s, err, sizeof err) != 0)
        snprintf(t->saved_note, sizeof t->saved_note, "the run is in %s, but: %s",
                 session_run_path(s), err);
    else if (session_catalog(s, t->catalog, &id, err, sizeof err) != 0) {
        int n = snprintf(t->saved_note, sizeof t->saved_note, "the run is in %s, ",
                         session_run_path(s));
        if (n > 0 && (size_t)n < sizeof t->saved_note)
            tui_catalog_failed(t->saved_note + n, sizeof t->saved_note - (size_t)n,
                               session_run_path(s), t->catalog, err);
    } else {
        bool failed;
        unsigned n = session_epochs_recorded(s, &failed);
        if (failed)
            snprintf(t->saved_note, sizeof t->saved_note,
                     "%s keeps %u of the %u epoch%s run: recording stopped (catalog run %lld)",
                     session_run_path(s), n, session_epochs_done(s),
                     session_epochs_done(s) == 1 ? "" : "s", (long long)id);
        else
            snprintf(t->saved_note, sizeof t->saved_note,
                     "recorded %u epoch%s in %s (catalog run %lld)", n, n == 1 ? "" : "s",
                     session_run_path(s), (long long)id);
    }
}

void tui_detach(struct tui *t)
{
    tui_worker_stop(t->worker);
    t->worker = NULL;
    finish_recording(t);
    char cache_err[512];
    traces_to_catalog(t->session, t->catalog, cache_err, sizeof cache_err);
    if (cache_err[0] && !t->saved_note[0])
        snprintf(t->saved_note, sizeof t->saved_note, "the references were not cached: %.400s",
                 cache_err);
    session_delete(t->session);
    t->session = NULL;
}

int tui_open_run(struct tui *t, const char *path)
{
    char err[512];
    /* The run file's own message says that `replay` reads it, which is this workbench: say
     * which command opens it instead. */
    if (accel_runfile_probe(path) == 1) {
        tui_message(t, "Cannot open",
                    "%s: an accelerator run file; o here opens spatial runs only, and `corun "
                    "replay %s` opens it in the accelerator view",
                    path, path);
        return TUI_R_HANDLED;
    }
    /* Read on this thread: a run file loads without simulating, and the current session is
     * not touched unless this one opens. */
    struct session *r = session_replay(path, t->datadir, err, sizeof err);
    if (!r) {
        tui_message(t, "Cannot open", "%s", err);
        return TUI_R_HANDLED;
    }
    session_set_threads(r, t->session ? session_threads(t->session) : 1); /* for its branches */
    tui_open_overlay(t, NULL);
    tui_detach(t);
    tui_attach(t, r);
    tui_lesson_leave(t);  /* its steps would act on the run opened */
    if (t->saved_note[0]) /* logged at the replay's epoch: said to be the run left */
        tui_log(t, "the live run left: %s", t->saved_note);
    tui_log(t, "REPLAY of %s: %u epoch%s", path, t->nepochs, t->nepochs == 1 ? "" : "s");
    return TUI_R_HANDLED | TUI_R_REPAINT;
}

void tui_snapshot_done(struct tui *t)
{
    clear_snapshot(t);
    free(t->epochs);
    free(t->owner);
    free(t->switches);
    free(t->picker);
}

/* ---- the mix ---- */

unsigned tui_mix_shown(const struct tui *t, bool in[GPU_MAX_KERNELS])
{
    const struct tui_epoch *e = tui_shown(t);
    unsigned n = 0;
    for (unsigned k = 0; k < GPU_MAX_KERNELS; k++) {
        bool is = e ? k < e->e.nkernels && e->e.k[k].in_mix : k < t->mix.n && t->mix.in_mix[k];
        if (in)
            in[k] = is;
        n += is;
    }
    return n;
}

const char *tui_kernel_name(const struct tui *t, unsigned k)
{
    return k < t->mix.n ? t->mix.name[k] : "?";
}

bool tui_select_in_mix(struct tui *t)
{
    bool in[GPU_MAX_KERNELS];
    if (!tui_mix_shown(t, in) || (t->selected < GPU_MAX_KERNELS && in[t->selected]))
        return false;
    unsigned k = t->selected < GPU_MAX_KERNELS ? t->selected : GPU_MAX_KERNELS - 1;
    unsigned next = k;
    while (next < GPU_MAX_KERNELS && !in[next])
        next++;
    if (next == GPU_MAX_KERNELS) {
        next = k;
        while (!in[next])
            next--; /* some kernel is in the mix: one below k, as none is at or above it */
    }
    t->selected = next;
    return true;
}

/* ---- what the worker answers ---- */

/* Parameter key's value as the worker last published it, into value. */
static const char *param_value(const struct tui *t, const char *key, char *value, size_t len)
{
    struct tui_param p[TUI_MAX_PARAMS];
    size_t n = tui_worker_params(t->worker, p, TUI_MAX_PARAMS);
    snprintf(value, len, "?");
    for (size_t i = 0; i < n && i < TUI_MAX_PARAMS; i++)
        if (strcmp(p[i].key, key) == 0)
            snprintf(value, len, "%s", p[i].value);
    return value;
}

bool tui_take_outcome(struct tui *t, const struct tui_outcome *o)
{
    bool branch = false;
    switch (o->kind) {
    case TUI_O_RECORD:
        /* The session's note ("recording to PATH") reaches the log with the events. */
        if (o->ok) {
            snprintf(t->run_path, sizeof t->run_path, "%s", o->msg);
            t->recording = true;
            tui_notice(t, "Saved", "recording to %s; later epochs are recorded as they finish.",
                       o->msg);
        } else {
            tui_log(t, "not saved: %s", o->msg);
            tui_message(t, "Cannot save", "%s", o->msg);
        }
        break;
    case TUI_O_BRANCH:
        if (o->ok) {
            branch = true;
        } else {
            t->rewinding = false;
            tui_log(t, "branch refused");
            tui_message(t, "Cannot branch", "%s", o->msg);
        }
        t->branching = false;
        break;
    case TUI_O_PREDICTOR:
        if (o->ok) {
            snprintf(t->predictor, sizeof t->predictor, "%.15s", o->msg);
        } else {
            tui_log(t, "predictor unchanged (%s)", t->predictor);
            tui_message(t, "Cannot switch predictor", "%s", o->msg);
        }
        break;
    case TUI_O_ALLOCATOR:
        if (o->ok) {
            snprintf(t->allocator, sizeof t->allocator, "%.31s", o->msg);
        } else {
            tui_log(t, "allocator unchanged (%s)", t->allocator);
            tui_message(t, "Cannot switch allocator", "%s", o->msg);
        }
        break;
    case TUI_O_PARAM:
        /* The editor, when open, shows the new value; a refusal keeps the old one. */
        if (o->ok) {
            t->param_text[0] = '\0';
            t->overlay_dirty = true;
        } else {
            char old[64];
            param_value(t, t->param_key, old, sizeof old);
            tui_log(t, "%s unchanged (%s)", t->param_key, old);
            /* In the editor, its field again with the text typed (the dialog threw it away). */
            if (!tui_params_refused(t, o->msg))
                tui_message(t, "Cannot set parameter", "%s (%s stays %s)", o->msg, t->param_key,
                            old);
        }
        break;
    case TUI_O_MIX:
        /* The session's "mix" events follow at the boundary; the editor shows it pending. */
        if (o->ok) {
            tui_log(t, "%s", o->msg);
            t->overlay_dirty = true;
        } else {
            /* "mix unchanged" read wrong beside a change still pending: this one was refused */
            tui_log(t, "mix change refused: %s", o->msg);
            tui_message(t, "Cannot change the mix", "%s", o->msg);
        }
        break;
    case TUI_O_NOTE:
        if (!o->ok)
            tui_message(t, "Cannot record the event", "%s", o->msg);
        break;
    case TUI_O_STEP_ERROR:
        t->recording = false;
        tui_log(t, "recording stopped");
        tui_message(t, "Recording stopped",
                    "%s. The run file keeps the epochs recorded before; s saves to a new one.",
                    o->msg);
        break;
    }
    tui_changed(t, TUI_CH_STATE);
    return branch;
}

void tui_take_events(struct tui *t)
{
    struct session_event *ev;
    size_t n = tui_worker_take_events(t->worker, &ev);
    for (size_t i = 0; i < n; i++) {
        tui_log_event(t, &ev[i]);
        /* A model used outside its training configuration: the whole text, which names both
         * configurations, in a message (the log's column cuts it); the log keeps it too. In a
         * lesson (whose demos run on cut-down GPUs) the log alone: a window would stop the
         * class at every step that switches a predictor. */
        if (strcmp(ev[i].kind, "warning") == 0 && !t->overlay && !t->lesson)
            tui_message(t, "Warning", "%s", ev[i].text);
    }
    free(ev);
}

/* A switch event's text is "OLD -> NEW", perhaps followed by a note ("(model ...)"). */
static bool parse_switch(const char *text, char *from, char *to, size_t len)
{
    const char *arrow = strstr(text, " -> ");
    if (!arrow)
        return false;
    snprintf(from, len, "%.*s", (int)(arrow - text), text);
    const char *name = arrow + 4;
    snprintf(to, len, "%.*s", (int)strcspn(name, " "), name);
    return *to != '\0';
}

static void add_switch(struct tui *t, unsigned epoch, const char *name)
{
    t->switches = xrealloc(t->switches, (t->nswitches + 1) * sizeof(*t->switches));
    struct tui_switch *sw = &t->switches[t->nswitches++];
    sw->epoch = epoch;
    snprintf(sw->name, sizeof sw->name, "%s", name);
}

/* The replay's allocator switches, after the one in force before the first of them (its "OLD";
 * now when there is none). */
static void load_allocator_switches(struct tui *t, const struct session *s, const char *now)
{
    add_switch(t, 0, now);
    for (unsigned i = 0; i < session_event_count(s); i++) {
        const struct session_event *ev = session_event_at(s, i);
        char from[32], to[32];
        if (strcmp(ev->kind, "allocator") != 0 || !parse_switch(ev->text, from, to, sizeof to))
            continue;
        if (t->nswitches == 1)
            snprintf(t->switches[0].name, sizeof t->switches[0].name, "%s", from);
        add_switch(t, ev->epoch, to);
    }
}

void tui_switches_load(struct tui *t, const struct session *s)
{
    snprintf(t->allocator, sizeof t->allocator, "%s", session_allocator_name(s));
    t->nswitches = 0;
    if (!session_is_replay(s))
        return;
    load_allocator_switches(t, s, t->allocator);
}

const char *tui_allocator_at(const struct tui *t, unsigned i)
{
    if (t->live)
        return t->allocator;
    /* The last switch at or before epoch index i (one made after n epochs were done was in
     * force from index n on). */
    const char *name = "?";
    for (unsigned k = 0; k < t->nswitches && t->switches[k].epoch <= i; k++)
        name = t->switches[k].name;
    return name;
}

const char *tui_predictor_at(const struct tui *t, unsigned i)
{
    if (t->live)
        return t->predictor;
    /* A run file says whether an epoch was predicted, and its events by which predictor (the
     * replay names it: session_replay.c). */
    const struct tui_epoch *e = i < t->nepochs ? &t->epochs[i] : NULL;
    return e && e->e.predictor[0] ? e->e.predictor : "none";
}
