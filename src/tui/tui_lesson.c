/* tui_lesson — the classroom: a lesson's steps (n opens the next and does what it says, N goes
 * back to read the previous one, L shows or hides the panel) and predict-then-reveal. A predict
 * step hides the truth of the epochs it runs (true NP, fairness, STP, QoS); once they are done
 * the guess form asks for each kernel's NP, then fairness and STP, and the reveal shows the
 * truth beside the guesses with the error. A guess within GOOD_ERROR of the truth scores; the
 * step's score and the running total become a "score" event, kept in the run file when the run
 * is recorded. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui_internal.h"

#define GOOD_ERROR 0.10 /* relative error of a guess that scores */

static const struct lesson_step *step_at(const struct tui *t, unsigned i)
{
    return t->lesson && i < t->lesson->nsteps ? &t->lesson->steps[i] : NULL;
}

static const enum tui_view_id view_of[] = {
    [LESSON_VIEW_NONE] = TUI_V_COUNT,    [LESSON_VIEW_KERNELS] = TUI_V_KERNELS,
    [LESSON_VIEW_CHART] = TUI_V_CHART,   [LESSON_VIEW_SMMAP] = TUI_V_SMMAP,
    [LESSON_VIEW_SYSTEM] = TUI_V_SYSTEM, [LESSON_VIEW_DRAM] = TUI_V_DRAM,
    [LESSON_VIEW_LOG] = TUI_V_LOG,       [LESSON_VIEW_EXPLAIN] = TUI_V_EXPLAIN,
};

/* The kernel of the current mix called name, or -1. */
static int kernel_named(const struct tui *t, const char *name)
{
    for (unsigned k = 0; k < t->mix.n; k++)
        if (t->mix.in_mix[k] && strcmp(t->mix.name[k], name) == 0)
            return (int)k;
    return -1;
}

/* Runs what step i does when it opens, in order: the switches and changes apply at the next
 * epoch boundary, then its epochs run. */
static void open_step(struct tui *t, unsigned i)
{
    const struct lesson_step *st = step_at(t, i);
    char note[256];
    snprintf(note, sizeof note, "%s, step %u of %zu: %s", t->lesson->name, i + 1, t->lesson->nsteps,
             st->title);
    tui_worker_note(t->worker, "lesson", note);
    if (*st->predictor)
        tui_worker_set_predictor(t->worker, st->predictor);
    if (*st->allocator)
        tui_worker_set_allocator(t->worker, st->allocator);
    for (unsigned s = 0; s < st->nset; s++) {
        char key[64];
        const char *eq = strchr(st->set[s], '=');
        snprintf(key, sizeof key, "%.*s", (int)(eq - st->set[s]), st->set[s]);
        snprintf(t->param_key, sizeof t->param_key, "%s", key);
        tui_worker_set_param(t->worker, key, eq + 1);
    }
    /* Adding first: removing the last kernel of the mix is refused. */
    if (*st->add)
        tui_worker_add_kernel(t->worker, st->add);
    if (*st->remove) {
        int k = kernel_named(t, st->remove);
        if (k < 0)
            tui_message(t, "Lesson", "step %u removes %s, which is not in the mix.", i + 1,
                        st->remove);
        else
            tui_worker_remove_kernel(t->worker, (unsigned)k);
    }
    enum tui_view_id v = view_of[st->view];
    if (v != TUI_V_COUNT) {
        if (v != TUI_V_KERNELS && v != TUI_V_CHART)
            t->side = v;
        t->focus = v;
        tui_changed(t, TUI_CH_SCREEN | TUI_CH_FOCUS);
    }
    if (st->predict) {
        t->hiding = true;
        t->hide_from = t->nepochs;
        t->guess_due = t->nepochs + (st->run ? st->run : 1);
        t->guess_offered = false;
        t->guess_step = i;
    }
    if (st->run) {
        tui_worker_run(t->worker, t->nepochs + st->run, tui_speed_interval(t->speed));
        t->running = true;
    }
    t->steps_opened = i + 1;
    tui_changed(t, TUI_CH_ALL);
}

void tui_lesson_start(struct tui *t)
{
    if (!t->lesson)
        return;
    t->lesson_shown = true;
    t->step = 0;
    t->side = TUI_V_LOG;
    tui_log(t, "lesson %s: n opens the next step, N goes back", t->lesson->name);
    open_step(t, 0);
}

bool tui_hidden(const struct tui *t, unsigned i)
{
    return t->hiding && i >= t->hide_from;
}

/* ---- the guess form and the reveal ---- */

static int accept_guess(struct tui *t, const char *text);

/* The largest guess field f takes, as its label says: an NP may pass 1 (a kernel given more
 * SMs than its reference ran on), fairness (min NP / max NP) may not, STP sums the NPs. */
#define GUESS_NP_MAX 4.0

static double field_max(const struct tui *t, unsigned f)
{
    unsigned nk = t->nguess - 2;
    return f < nk ? GUESS_NP_MAX : f == nk ? 1.0 : GUESS_NP_MAX * nk;
}

static void field_label(const struct tui *t, unsigned f, char *buf, size_t n)
{
    unsigned nk = t->nguess - 2;
    double hi = field_max(t, f);
    if (f < nk)
        snprintf(buf, n, "NP of %c %s (0 to %g, as in the NP true column):",
                 tui_kernel_letter(t->guess_kernel[f]), tui_kernel_name(t, t->guess_kernel[f]), hi);
    else if (f == nk)
        snprintf(buf, n, "Fairness (min NP / max NP, 0 to %g):", hi);
    else
        snprintf(buf, n, "STP (the sum of the NPs, 0 to %g):", hi);
}

static void ask_field(struct tui *t)
{
    char label[96], title[48];
    field_label(t, t->guess_field, label, sizeof label);
    snprintf(title, sizeof title, "Your guess, %u of %u", t->guess_field + 1, t->nguess);
    tui_prompt_open(t, title, label, "", accept_guess);
}

static void open_form(struct tui *t)
{
    bool in[GPU_MAX_KERNELS];
    tui_mix_shown(t, in);
    t->nguess = 0;
    for (unsigned k = 0; k < GPU_MAX_KERNELS; k++)
        if (in[k])
            t->guess_kernel[t->nguess++] = k;
    t->nguess += 2; /* fairness, STP */
    t->guess_field = 0;
    ask_field(t);
}

/* One line of the reveal: the guess, the truth and the error; counts a hit. */
static size_t reveal_line(char *buf, size_t n, const char *what, double guess, double truth,
                          unsigned *hits)
{
    double err = truth > 0 ? fabs(guess - truth) / truth : NAN;
    bool hit = err <= GOOD_ERROR;
    *hits += hit;
    return (size_t)snprintf(buf, n, "%-18s guess %6.3f  true %6.3f  error %5.1f%%%s\n", what, guess,
                            truth, err * 100, hit ? "  +1" : "");
}

static void reveal(struct tui *t)
{
    const struct tui_epoch *te = tui_shown(t);
    t->hiding = false;
    tui_changed(t, TUI_CH_ALL);
    char text[1024];
    size_t len = 0;
    unsigned hits = 0, nk = t->nguess - 2;
    for (unsigned f = 0; f < nk && len < sizeof text; f++) {
        unsigned k = t->guess_kernel[f];
        char what[48];
        snprintf(what, sizeof what, "NP %c %s", tui_kernel_letter(k), tui_kernel_name(t, k));
        len += reveal_line(text + len, sizeof text - len, what, t->guess[f], te->e.k[k].np_true,
                           &hits);
    }
    if (len < sizeof text)
        len += reveal_line(text + len, sizeof text - len, "Fairness", t->guess[nk],
                           te->e.m.fairness, &hits);
    if (len < sizeof text)
        len +=
            reveal_line(text + len, sizeof text - len, "STP", t->guess[nk + 1], te->e.m.stp, &hits);
    t->score_hits += hits;
    t->score_guesses += t->nguess;
    char score[256], where[32] = "";
    if (t->lesson) /* the step that asked, whichever N and n show now */
        snprintf(where, sizeof where, "step %u, ", t->guess_step + 1);
    snprintf(score, sizeof score, "%sepoch %u: %u of %u guesses within %.0f%%; %s so far %u of %u",
             where, te->e.index + 1, hits, t->nguess, GOOD_ERROR * 100,
             t->lesson ? "lesson" : "run", t->score_hits, t->score_guesses);
    if (len < sizeof text)
        snprintf(text + len, sizeof text - len, "\nScore: %s", score);
    tui_worker_note(t->worker, "score", score);
    tui_message(t, "Reveal", "%s", text);
}

static int accept_guess(struct tui *t, const char *text)
{
    char *end;
    double v = strtod(text, &end);
    double hi = field_max(t, t->guess_field);
    if (end == text || *end || !(v >= 0) || v > hi) {
        snprintf(t->prompt.error, sizeof t->prompt.error, "'%.32s': enter a number from 0 to %g",
                 text, hi);
        t->overlay_dirty = true;
        return TUI_R_HANDLED;
    }
    t->guess[t->guess_field++] = v;
    if (t->guess_field < t->nguess)
        ask_field(t);
    else
        reveal(t);
    return TUI_R_HANDLED;
}

void tui_lesson_poll(struct tui *t)
{
    if (t->hiding && !t->guess_offered && !t->overlay && !t->running && !t->busy &&
        t->nepochs >= t->guess_due && t->nepochs > 0) {
        t->guess_offered = true;
        open_form(t);
    }
}

/* ---- keys and text ---- */

/* What the class waits for before the guess form opens, for n and g: the step's epochs to
 * run, or (a predict step that runs none) an epoch to step. */
static void say_guess_wait(struct tui *t, const char *title, const char *first)
{
    if (t->running || t->busy)
        tui_message(t, title, "%sThe form opens when the step's epochs are done.", first);
    else if (t->nepochs >= t->guess_due)
        tui_message(t, title, "%sg opens the form.", first);
    else
        tui_message(t, title,
                    "%sThe class guesses epoch %u: Space steps it (r runs), then the form opens.",
                    first, t->guess_due);
}

void tui_lesson_leave(struct tui *t)
{
    if (t->lesson)
        tui_log(t, "lesson %s closed: another run was opened", t->lesson->name);
    t->lesson = NULL;
    t->lesson_shown = false;
    t->hiding = false;
    t->guess_offered = false;
}

/* G, in any live run: the next epoch's truth stays hidden until the class has guessed. */
static int guess_next(struct tui *t)
{
    if (t->hiding) {
        tui_message(t, "Guess", "The class is guessing already: g opens the form.");
        return TUI_R_HANDLED;
    }
    if (t->running || t->busy) {
        tui_message(t, "Guess", "Pause first (r): predict, then reveal works one epoch at a time.");
        return TUI_R_HANDLED;
    }
    t->hiding = true;
    t->guess_offered = false;
    t->hide_from = t->nepochs;
    t->guess_due = t->nepochs + 1;
    tui_worker_step(t->worker);
    tui_log(t, "predict, then reveal: epoch %u is hidden until the class has guessed",
            t->nepochs + 1);
    tui_changed(t, TUI_CH_ALL);
    return TUI_R_HANDLED;
}

int tui_lesson_key(struct tui *t, int ch)
{
    if (ch == 'G')
        return guess_next(t);
    if (ch == 'g' && !t->lesson && t->hiding && t->nepochs >= t->guess_due && !t->busy) {
        open_form(t);
        return TUI_R_HANDLED;
    }
    if (!t->lesson)
        return 0;
    switch (ch) {
    case 'n':
        if (t->hiding) {
            say_guess_wait(t, "Lesson", "Guess first. ");
        } else if (t->step + 1 >= t->steps_opened && t->step + 1 < t->lesson->nsteps &&
                   (t->running || t->busy || t->queued)) {
            /* The next step's actions would cut this one's epochs short (n n n ended at
             * epoch 5 of 11, the notices then naming moves the log contradicts). */
            tui_notice(t, "Lesson",
                       "The step's epochs are still running: n opens the next step once they "
                       "are done.");
            return TUI_R_HANDLED;
        } else if (t->step + 1 < t->lesson->nsteps) {
            t->step++;
            if (t->step >= t->steps_opened)
                open_step(t, t->step);
        } else {
            tui_message(t, "Lesson",
                        "That was the last step of %s. q quits; the run goes on "
                        "with Space and r.",
                        t->lesson->name);
        }
        break;
    case 'N':
        if (t->step > 0)
            t->step--;
        break;
    case 'L': t->lesson_shown = !t->lesson_shown; return TUI_R_HANDLED | TUI_R_REPAINT;
    case 'g':
        if (t->hiding && t->nepochs >= t->guess_due && !t->running && !t->busy)
            open_form(t);
        else if (t->hiding)
            say_guess_wait(t, "Guess", "");
        break;
    default: return 0;
    }
    tui_changed(t, TUI_CH_ALL);
    return TUI_R_HANDLED;
}

char *tui_lesson_text(const struct tui *t)
{
    const struct lesson_step *st = step_at(t, t->step);
    if (!st)
        return xstrdup("");
    char *buf = xasprintf("Step %u of %zu: %s", t->step + 1, t->lesson->nsteps, st->title);
    bool hidden = t->hiding && t->step + 1 == t->steps_opened;
    const struct {
        const char *label, *text;
    } parts[] = {
        {"", st->text},
        {"Do: ", st->task},
        {"Question: ", st->question},
        {"Notice: ", st->notice},
        {"Predict: ",
         hidden ? "the truth is hidden; when the epochs are done, type your guesses." : ""}};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        if (!*parts[i].text)
            continue;
        char *more = xasprintf("%s\n%s%s", buf, parts[i].label, parts[i].text);
        free(buf);
        buf = more;
    }
    return buf;
}
