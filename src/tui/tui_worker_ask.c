/* tui_worker_ask — what the input thread asks of the worker (steps, runs, changes, a
 * recording, a branch) and how it takes the answers (epochs, events, outcomes): each takes the
 * mutex for a moment and signals the thread. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corun/util.h"
#include "tui_worker_state.h"

void tui_worker_step(struct tui_worker *w)
{
    pthread_mutex_lock(&w->mu);
    w->queued++;
    pthread_cond_signal(&w->wake);
    pthread_mutex_unlock(&w->mu);
}

void tui_worker_run(struct tui_worker *w, unsigned until_epochs, double interval_s)
{
    pthread_mutex_lock(&w->mu);
    w->running = true;
    w->run_until = until_epochs;
    w->interval_s = interval_s;
    pthread_cond_signal(&w->wake);
    pthread_mutex_unlock(&w->mu);
}

unsigned tui_worker_pause(struct tui_worker *w)
{
    pthread_mutex_lock(&w->mu);
    w->running = false;
    w->queued = 0;
    unsigned last = w->epochs_done + (w->busy ? 1 : 0);
    pthread_mutex_unlock(&w->mu);
    return last;
}

void tui_worker_set_interval(struct tui_worker *w, double interval_s)
{
    pthread_mutex_lock(&w->mu);
    w->interval_s = interval_s;
    pthread_cond_signal(&w->wake);
    pthread_mutex_unlock(&w->mu);
}

size_t tui_worker_take(struct tui_worker *w, struct tui_result **out, struct tui_worker_status *st)
{
    pthread_mutex_lock(&w->mu);
    size_t n = w->nresults;
    *out = w->results;
    w->results = NULL;
    w->nresults = w->cap = 0;
    /* A run that reached its limit while idle is over now, not at the next request. */
    if (w->running && !w->busy && w->queued == 0 && w->epochs_done >= w->run_until)
        w->running = false;
    st->running = w->running;
    st->busy = w->busy;
    st->queued = w->queued;
    st->epochs_done = w->epochs_done;
    pthread_mutex_unlock(&w->mu);
    return n;
}

double tui_worker_progress(struct tui_worker *w)
{
    return atomic_load(&w->progress_milli) / 1000.0;
}

void tui_worker_record(struct tui_worker *w, const char *path)
{
    pthread_mutex_lock(&w->mu);
    free(w->record_path);
    w->record_path = xstrdup(path);
    pthread_cond_signal(&w->wake);
    pthread_mutex_unlock(&w->mu);
}

/* Queues change c, whose strings it takes; when the queue is full (many keys during one long
 * epoch) it is refused. */
static void ask_change(struct tui_worker *w, struct change c)
{
    pthread_mutex_lock(&w->mu);
    if (w->nchanges == MAX_CHANGES) {
        tui_worker_post(w, c.kind, false,
                        "too many changes wait for the epoch in flight: try again after it");
        free(c.name);
        free(c.value);
    } else {
        w->changes[w->nchanges++] = c;
        pthread_cond_signal(&w->wake);
    }
    pthread_mutex_unlock(&w->mu);
}

static void ask(struct tui_worker *w, enum tui_outcome_kind kind, const char *name,
                const char *value)
{
    ask_change(w, (struct change){kind, xstrdup(name), value ? xstrdup(value) : NULL, 0});
}

void tui_worker_set_predictor(struct tui_worker *w, const char *name)
{
    ask(w, TUI_O_PREDICTOR, name, NULL);
}

void tui_worker_set_allocator(struct tui_worker *w, const char *name)
{
    ask(w, TUI_O_ALLOCATOR, name, NULL);
}

void tui_worker_set_param(struct tui_worker *w, const char *key, const char *value)
{
    ask(w, TUI_O_PARAM, key, value);
}

void tui_worker_add_kernel(struct tui_worker *w, const char *name)
{
    ask(w, TUI_O_MIX, name, NULL);
}

void tui_worker_remove_kernel(struct tui_worker *w, unsigned k)
{
    ask_change(w, (struct change){.kind = TUI_O_MIX, .kernel = k});
}

void tui_worker_undo_mix(struct tui_worker *w)
{
    ask_change(w, (struct change){.kind = TUI_O_MIX, .kernel = CHANGE_UNDO_MIX});
}

void tui_worker_note(struct tui_worker *w, const char *kind, const char *text)
{
    ask(w, TUI_O_NOTE, kind, text);
}

void tui_worker_mix(struct tui_worker *w, struct tui_mix *out)
{
    pthread_mutex_lock(&w->mu);
    *out = w->mix;
    pthread_mutex_unlock(&w->mu);
}

size_t tui_worker_params(struct tui_worker *w, struct tui_param *out, size_t n)
{
    pthread_mutex_lock(&w->mu);
    size_t count = w->nparams;
    memcpy(out, w->params, (n < count ? n : count) * sizeof(*out));
    pthread_mutex_unlock(&w->mu);
    return count;
}

size_t tui_worker_take_events(struct tui_worker *w, struct session_event **out)
{
    pthread_mutex_lock(&w->mu);
    size_t n = w->nevents;
    *out = w->events;
    w->events = NULL;
    w->nevents = w->events_cap = 0;
    pthread_mutex_unlock(&w->mu);
    return n;
}

void tui_worker_branch(struct tui_worker *w, unsigned epochs)
{
    pthread_mutex_lock(&w->mu);
    w->branch = true;
    w->branch_epochs = epochs;
    pthread_cond_signal(&w->wake);
    pthread_mutex_unlock(&w->mu);
}

int tui_worker_take_outcome(struct tui_worker *w, struct tui_outcome *out)
{
    pthread_mutex_lock(&w->mu);
    int n = w->noutcomes > 0;
    if (n) {
        *out = w->outcomes[0];
        memmove(w->outcomes, w->outcomes + 1, --w->noutcomes * sizeof(*w->outcomes));
    }
    pthread_mutex_unlock(&w->mu);
    return n;
}

struct session *tui_worker_take_branch(struct tui_worker *w)
{
    pthread_mutex_lock(&w->mu);
    struct session *b = w->branched;
    w->branched = NULL;
    pthread_mutex_unlock(&w->mu);
    return b;
}
