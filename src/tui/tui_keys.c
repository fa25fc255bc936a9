/* tui_keys — the key table (htop's tradition): one row per key with its help text and its
 * handler, which changes UI state or asks the worker and returns a reaction; it never draws.
 * The help screen and the key bar are generated from this table, so a key that is not here
 * does not exist; a key that does not apply in the current mode (live or replay) is absent
 * from both. Menus and editors (p, a, e, k) are one row each. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tui_internal.h"

/* Run paces: the least time between the starts of two epochs of a run. */
static const struct {
    const char *label;
    double interval_s;
} paces[] = {
    {"max", 0}, {"10/s", 0.1},    {"5/s", 0.2},     {"2/s", 0.5},
    {"1/s", 1}, {"1 per 2 s", 2}, {"1 per 5 s", 5},
};

const char *tui_speed_label(unsigned speed)
{
    return paces[speed].label;
}

double tui_speed_interval(unsigned speed)
{
    return paces[speed].interval_s;
}

static int key_help(struct tui *t, int ch)
{
    (void)ch;
    t->help_page = 0;
    tui_open_overlay(t, &tui_overlay_help);
    return TUI_R_HANDLED;
}

/* While the class guesses an epoch whose truth is hidden, another epoch would be scored in its
 * place (G, Esc, Space, g scored epoch 4 for the class told epoch 3): said, and refused. */
static bool guessing(struct tui *t)
{
    if (!t->hiding || t->nepochs < t->guess_due)
        return false;
    tui_notice(t, "Guess",
               "The class is guessing epoch %u: g opens the form, and the run goes on "
               "once it is revealed.",
               t->guess_due);
    return true;
}

static int key_step(struct tui *t, int ch)
{
    (void)ch;
    if (guessing(t))
        return TUI_R_HANDLED;
    tui_worker_step(t->worker);
    /* Shown at once; the worker's own count replaces it at the next poll. */
    t->queued += t->busy ? 1 : 0;
    tui_changed(t, TUI_CH_STATE);
    return TUI_R_HANDLED;
}

static int key_run(struct tui *t, int ch)
{
    (void)ch;
    if (t->running) {
        /* The worker's count: epochs it finished that this screen has not taken yet count
         * too (it said "pausing after epoch 186" and stopped after 187). */
        unsigned last = tui_worker_pause(t->worker);
        t->running = false;
        t->queued = 0;
        if (t->busy)
            tui_log(t, "pausing after epoch %u", last);
        else
            tui_log(t, "paused");
    } else if (guessing(t)) {
        return TUI_R_HANDLED;
    } else {
        /* A run ends with the scenario's epochs; past them, it goes on until paused. */
        unsigned until = t->nepochs < t->sc->epochs ? t->sc->epochs : UINT_MAX;
        tui_worker_run(t->worker, until, tui_speed_interval(t->speed));
        t->running = true;
        if (until == UINT_MAX)
            tui_log(t, "running until paused");
        else
            tui_log(t, "running to epoch %u", until);
    }
    tui_changed(t, TUI_CH_STATE);
    return TUI_R_HANDLED;
}

static int key_speed(struct tui *t, int ch)
{
    unsigned last = (unsigned)(sizeof paces / sizeof paces[0]) - 1;
    if (ch == '-' && t->speed < last)
        t->speed++;
    else if (ch != '-' && t->speed > 0)
        t->speed--;
    else
        return TUI_R_HANDLED; /* already at the end of the scale */
    tui_worker_set_interval(t->worker, tui_speed_interval(t->speed));
    tui_log_drop_last(t, "speed ");
    tui_log(t, "speed %s", tui_speed_label(t->speed));
    tui_changed(t, TUI_CH_STATE);
    return TUI_R_HANDLED;
}

static int key_focus(struct tui *t, int ch)
{
    int dir = ch == KEY_BTAB ? -1 : 1;
    int v = (int)t->focus;
    do
        v = (v + dir + TUI_V_COUNT) % TUI_V_COUNT;
    while (!tui_views[v]->focusable || !tui_view_shown(t, (enum tui_view_id)v));
    t->focus = (enum tui_view_id)v;
    tui_changed(t, TUI_CH_FOCUS);
    return TUI_R_HANDLED;
}

/* Up and Down move over the kernels in the mix shown, skipping those not in it. */
static int key_select(struct tui *t, int ch)
{
    bool in[GPU_MAX_KERNELS];
    tui_mix_shown(t, in);
    int dir = ch == KEY_UP ? -1 : 1;
    for (int k = (int)t->selected + dir; k >= 0 && k < GPU_MAX_KERNELS; k += dir)
        if (in[k]) {
            t->selected = (unsigned)k;
            break;
        }
    tui_changed(t, TUI_CH_SELECT);
    return TUI_R_HANDLED;
}

/* Enter on the event log opens its line (the view takes it first); anywhere else, the explain
 * panel whole. */
static int key_enter(struct tui *t, int ch)
{
    return tui_view_explain.key(t, ch);
}

static int key_repaint(struct tui *t, int ch)
{
    (void)t;
    (void)ch;
    return TUI_R_HANDLED | TUI_R_REPAINT;
}

/* Whether leaving the run would lose epochs: then q and o ask first (htop's way). */
static bool unsaved(const struct tui *t)
{
    return t->live && !t->recording && t->nepochs > t->saved_epochs;
}

static int key_quit(struct tui *t, int ch)
{
    (void)ch;
    if (unsaved(t)) {
        t->discard = NULL;
        tui_open_overlay(t, &tui_overlay_quit);
        return TUI_R_HANDLED;
    }
    return TUI_R_HANDLED | TUI_R_QUIT;
}

/* While a rewind or a branch re-simulates, the run a choice would go to is about to be
 * replaced: says so, true (a choice made then was logged as taken, and lost). */
static bool refused_while_branching(struct tui *t, const char *what)
{
    if (!t->branching)
        return false;
    tui_notice(t, what,
               "%s to the end of epoch %u: choose once it is done (the run now is about "
               "to be replaced).",
               t->rewinding ? "Rewinding" : "Branching", t->branch_at);
    return true;
}

static int key_predictor(struct tui *t, int ch)
{
    (void)ch;
    if (!refused_while_branching(t, "Predictor"))
        tui_predictor_menu(t);
    return TUI_R_HANDLED;
}

static int key_allocator(struct tui *t, int ch)
{
    (void)ch;
    if (!refused_while_branching(t, "Allocator"))
        tui_allocator_menu(t);
    return TUI_R_HANDLED;
}

static int key_params(struct tui *t, int ch)
{
    (void)ch;
    if (!refused_while_branching(t, "Parameters"))
        tui_params_editor(t);
    return TUI_R_HANDLED;
}

static int key_mix(struct tui *t, int ch)
{
    (void)ch;
    if (!refused_while_branching(t, "Mix"))
        tui_mix_editor(t);
    return TUI_R_HANDLED;
}

/* ---- replay: moving through the epochs ---- */

static int show_epoch(struct tui *t, unsigned i)
{
    if (t->nepochs && i < t->nepochs && i != t->shown) {
        t->shown = i;
        tui_changed(t, TUI_CH_EPOCH);
    }
    return TUI_R_HANDLED;
}

static int key_move(struct tui *t, int ch)
{
    if (ch == KEY_LEFT)
        return show_epoch(t, t->shown > 0 ? t->shown - 1 : 0);
    if (ch == KEY_RIGHT)
        return show_epoch(t, t->shown + 1);
    if (ch == KEY_HOME)
        return show_epoch(t, 0);
    return show_epoch(t, t->nepochs ? t->nepochs - 1 : 0);
}

static int accept_goto(struct tui *t, const char *text)
{
    char *end;
    long v = strtol(text, &end, 10);
    if (end == text || *end || v < 1 || (unsigned long)v > t->nepochs) {
        snprintf(t->prompt.error, sizeof t->prompt.error,
                 "no epoch '%.32s': enter a number from 1 to %u", text, t->nepochs);
        t->overlay_dirty = true;
        return TUI_R_HANDLED;
    }
    tui_open_overlay(t, NULL);
    return show_epoch(t, (unsigned)v - 1);
}

static int key_goto(struct tui *t, int ch)
{
    (void)ch;
    if (!t->nepochs) {
        tui_message(t, "Go to", "%s holds no epochs.", t->run_path);
        return TUI_R_HANDLED;
    }
    char label[96];
    snprintf(label, sizeof label, "Go to epoch (1 to %u):", t->nepochs);
    tui_prompt_open(t, "Go to epoch", label, "", accept_goto);
    return TUI_R_HANDLED;
}

static int key_branch(struct tui *t, int ch)
{
    (void)ch;
    if (t->branching)
        return TUI_R_HANDLED;
    t->branching = true;
    t->branch_at = t->nepochs ? t->shown + 1 : 0;
    tui_worker_branch(t->worker, t->branch_at);
    tui_log(t, "branching after epoch %u: re-simulating", t->branch_at);
    tui_changed(t, TUI_CH_STATE);
    return TUI_R_HANDLED;
}

/* ---- live rewind ---- */

/* Left in a live run: back to the end of the epoch before the newest, from where another
 * policy can be tried. The worker re-simulates the run up to there (the simulator is
 * deterministic, so the state is exactly the one the run had) and checks it against the
 * epochs in memory; nothing needs saving first. Later epochs are dropped. */
static int key_rewind(struct tui *t, int ch)
{
    (void)ch;
    if (t->branching) { /* a second Left was dropped without a word */
        tui_notice(t, "Rewind",
                   "Rewinding to the end of epoch %u: one rewind at a time; press "
                   "Left again when it is done.",
                   t->branch_at);
        return TUI_R_HANDLED;
    }
    if (t->running || t->busy) { /* a notice: the r that closes it also pauses */
        tui_notice(t, "Rewind", "Pause first (r): the run is going on.");
        return TUI_R_HANDLED;
    }
    if (t->nepochs == 0) {
        tui_message(t, "Rewind", "No epoch to go back from yet.");
        return TUI_R_HANDLED;
    }
    t->branching = t->rewinding = true;
    t->branch_at = t->nepochs - 1;
    tui_worker_branch(t->worker, t->branch_at);
    tui_log(t, "rewinding to the end of epoch %u: re-simulating", t->branch_at);
    tui_changed(t, TUI_CH_STATE);
    return TUI_R_HANDLED;
}

/* Right in a live run: no epoch lies ahead to show (it did nothing, unsaid; a rewind drops the
 * later epochs). */
static int key_ahead(struct tui *t, int ch)
{
    (void)ch;
    tui_notice(t, "Live run",
               "Right moves through a replay's epochs; a live run's next epoch is simulated: "
               "Space steps it (a rewind dropped the epochs after it).");
    return TUI_R_HANDLED;
}

/* ---- run files ---- */

static int accept_save(struct tui *t, const char *text)
{
    /* Blanks around it are no part of the name (a file "trail.h5 " was made). */
    while (*text == ' ' || *text == '\t')
        text++;
    size_t len = strlen(text);
    while (len && (text[len - 1] == ' ' || text[len - 1] == '\t'))
        len--;
    char trimmed[TUI_PROMPT_MAX];
    snprintf(trimmed, sizeof trimmed, "%.*s", (int)len, text);
    text = trimmed;
    if (!*text) {
        snprintf(t->prompt.error, sizeof t->prompt.error, "enter a path for the run file");
        t->overlay_dirty = true;
        return TUI_R_HANDLED;
    }
    /* ~/ is the home directory, as a shell would read it (it was refused: no directory "~"). */
    const char *home = getenv("HOME");
    char *path = strncmp(text, "~/", 2) == 0 && home && *home ? xasprintf("%s%s", home, text + 1)
                                                              : xstrdup(text);
    tui_open_overlay(t, NULL);
    /* The worker starts it at an epoch boundary; the outcome opens a dialog. A name without a
     * directory says which one it goes to. */
    tui_worker_record(t->worker, path);
    char cwd[512];
    if (!strchr(path, '/') && getcwd(cwd, sizeof cwd))
        tui_log(t, "asked to save to %s (in %s) at the next epoch boundary", path, cwd);
    else
        tui_log(t, "asked to save to %s at the next epoch boundary", path);
    free(path);
    return TUI_R_HANDLED;
}

static int key_save(struct tui *t, int ch)
{
    (void)ch;
    if (refused_while_branching(t, "Save"))
        return TUI_R_HANDLED;
    if (t->recording) {
        tui_message(t, "Save", "already recording to %s: every epoch is saved as it finishes.",
                    t->run_path);
        return TUI_R_HANDLED;
    }
    char name[64];
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    strftime(name, sizeof name, "corun-%Y%m%d-%H%M%S.h5", &tm);
    tui_prompt_open(t, "Save", "Record this run (and its later epochs) to a new run file:", name,
                    accept_save);
    return TUI_R_HANDLED;
}

static int accept_open(struct tui *t, const char *text)
{
    if (!*text) {
        snprintf(t->prompt.error, sizeof t->prompt.error, "enter the path of a run file");
        t->overlay_dirty = true;
        return TUI_R_HANDLED;
    }
    return tui_open_run(t, text);
}

static int prompt_open(struct tui *t)
{
    tui_prompt_open(t, "Open", "Replay the run file (.h5):", "", accept_open);
    return TUI_R_HANDLED;
}

static int key_open(struct tui *t, int ch)
{
    (void)ch;
    /* Opening a run replaces this one: unsaved epochs would be lost, as with q. */
    if (unsaved(t)) {
        t->discard = prompt_open;
        tui_open_overlay(t, &tui_overlay_quit);
        return TUI_R_HANDLED;
    }
    return prompt_open(t);
}

#define CTRL(c) ((c)&0x1f)

#define LIVE   TUI_M_LIVE
#define REPLAY TUI_M_REPLAY
#define ANY    TUI_M_ANY
#define LESSON (TUI_M_LIVE | TUI_M_LESSON)

const struct tui_key tui_keys[] = {
    {KEY_F(1), ANY, "F1 ?", NULL,
     "show this help; Space turns its pages, if any; any other key closes it", "Help", key_help},
    {'?', ANY, NULL, NULL, NULL, NULL, key_help},
    {'n', LESSON, "n N", NULL, "lesson: open the next step (it does what it says) / back one",
     "Next", tui_lesson_key},
    {'N', LESSON, NULL, NULL, NULL, NULL, tui_lesson_key},
    {'L', LESSON, "L", NULL, "lesson: show / hide the lesson panel", "Lesson", tui_lesson_key},
    {'G', LIVE, "G g", NULL,
     "predict, then reveal: step one epoch with its truth hidden until the class has guessed "
     "(g opens the guess form again)",
     "Guess", tui_lesson_key},
    {'g', LIVE, NULL, NULL, NULL, NULL, tui_lesson_key},
    {' ', LIVE, "Space", NULL, "step one epoch; while one computes, queue another", "Step",
     key_step},
    {'r', LIVE, "r", NULL, "run / pause (a pause waits for the epoch in flight)", "Run", key_run},
    {'+', LIVE, "+ -", NULL, "run faster / slower: max, 10/s, 5/s ... 1 per 5 s", "Speed",
     key_speed},
    {'=', LIVE, NULL, NULL, NULL, NULL, key_speed},
    {'-', LIVE, NULL, NULL, NULL, NULL, key_speed},
    {'p', LIVE, "p", NULL, "predictor menu: none or a registered model, from the next epoch",
     "Predict", key_predictor},
    {'a', LIVE, "a", NULL, "allocator menu: how SMs are shared, from the next epoch", "Alloc",
     key_allocator},
    {'e', LIVE, "e", NULL, "edit parameters (fairness threshold, QoS targets ...)", "Params",
     key_params},
    {'k', LIVE, "k", NULL, "edit the mix (add/remove a kernel, priority)", "Mix", key_mix},
    {KEY_LEFT, LIVE, "Left", "←",
     "rewind one epoch (re-simulated exactly), then try another policy from there", "Rewind",
     key_rewind},
    {KEY_RIGHT, LIVE, NULL, NULL, NULL, NULL, key_ahead},
    {KEY_LEFT, REPLAY, "Left Right", "← →", "show the previous / next epoch", "Epoch", key_move},
    {KEY_RIGHT, REPLAY, NULL, NULL, NULL, NULL, key_move},
    {KEY_HOME, REPLAY, "Home End", NULL, "show the first / last epoch", NULL, key_move},
    {KEY_END, REPLAY, NULL, NULL, NULL, NULL, key_move},
    {'g', REPLAY, "g", NULL, "go to an epoch by number", "Go to", key_goto},
    {'b', REPLAY, "b", NULL, "branch: a live run continuing after the epoch shown", "Branch",
     key_branch},
    {'s', LIVE, "s", NULL, "save: record the run to a new run file, then every epoch", "Save",
     key_save},
    {'o', ANY, "o", NULL, "open a run file and replay it (a bad one keeps this run)", "Open",
     key_open},
    {'\t', ANY, "Tab", NULL, "focus the next panel", "Focus", key_focus},
    {KEY_BTAB, ANY, "Shift-Tab", NULL, "focus the previous panel", NULL, key_focus},
    {KEY_UP, ANY, "Up Down", "↑ ↓", "select a kernel (scroll the event log when it has focus)",
     NULL, key_select},
    {KEY_DOWN, ANY, NULL, NULL, NULL, NULL, key_select},
    {'\r', ANY, "Enter", NULL,
     "open whole: the event log's bottom line (log focused), else the explain panel", NULL,
     key_enter},
    {'\n', ANY, NULL, NULL, NULL, NULL, key_enter},
    {KEY_ENTER, ANY, NULL, NULL, NULL, NULL, key_enter},
    {CTRL('l'), ANY, "Ctrl-L", NULL, "redraw the screen", NULL, key_repaint},
    {'q', ANY, "q", NULL, "quit at once, even mid-epoch; asks if epochs are unsaved", "Quit",
     key_quit},
};

const size_t tui_nkeys = sizeof tui_keys / sizeof tui_keys[0];

bool tui_modes_active(const struct tui *t, unsigned modes)
{
    if ((modes & TUI_M_LESSON) && !t->lesson)
        return false;
    return (modes & (t->live ? TUI_M_LIVE : TUI_M_REPLAY)) != 0;
}

bool tui_key_active(const struct tui *t, const struct tui_key *k)
{
    return tui_modes_active(t, k->modes);
}

const char *tui_key_label(const struct tui *t, const struct tui_key *k)
{
    return t->style.utf8 && k->label_utf8 ? k->label_utf8 : k->label;
}

int tui_key_dispatch(struct tui *t, int ch)
{
    if (t->overlay)
        return t->overlay->key(t, ch);
    const struct tui_view *v = tui_views[t->focus];
    if (v->key) {
        int r = v->key(t, ch);
        if (r)
            return r;
    }
    for (size_t i = 0; i < tui_nkeys; i++)
        if (tui_keys[i].code == ch && tui_key_active(t, &tui_keys[i]))
            return tui_keys[i].handle(t, ch);
    /* A live run's key in a replay did nothing, unsaid: a class used to Space got no hint. */
    for (size_t i = 0; i < tui_nkeys && !t->live; i++)
        if (tui_keys[i].code == ch && tui_keys[i].modes == TUI_M_LIVE) {
            size_t j = i;
            while (j > 0 && !tui_keys[j].label) /* an alias: the row it follows names it */
                j--;
            /* The key pressed, not its row's ("G g works in a live run" for G, though g goes
             * to an epoch here). */
            char key[2] = {(char)ch, '\0'};
            tui_log(t, "%s works in a live run: b branches one after the epoch shown",
                    ch > ' ' && ch < 0x7f ? key : tui_key_label(t, &tui_keys[j]));
            tui_changed(t, TUI_CH_LOG);
            return TUI_R_HANDLED;
        }
    return 0;
}
