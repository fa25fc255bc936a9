/* tui_keys — the key table (htop's tradition): one row per key with its help text and its
 * handler, which changes UI state or asks the worker and returns a reaction; it never draws.
 * The help screen and the key bar are generated from this table, so a key that is not here
 * does not exist. The predictor (p) and allocator (a) menus, the parameter editor (e), the mix
 * editor (k), save (s), open (o), branch (b) and the replay keys are one row each once the
 * session offers what they do. */
#include <limits.h>

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
    tui_open_overlay(t, &tui_overlay_help);
    return TUI_R_HANDLED;
}

static int key_step(struct tui *t, int ch)
{
    (void)ch;
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
        tui_worker_pause(t->worker);
        t->running = false;
        t->queued = 0;
        if (t->busy)
            tui_log(t, "pausing after epoch %u", t->nepochs + 1);
        else
            tui_log(t, "paused");
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
    while (!tui_views[v]->focusable);
    t->focus = (enum tui_view_id)v;
    tui_changed(t, TUI_CH_FOCUS);
    return TUI_R_HANDLED;
}

static int key_select(struct tui *t, int ch)
{
    if (ch == KEY_UP && t->selected > 0)
        t->selected--;
    else if (ch == KEY_DOWN && t->selected + 1 < t->sc->nkernels)
        t->selected++;
    tui_changed(t, TUI_CH_SELECT);
    return TUI_R_HANDLED;
}

static int key_repaint(struct tui *t, int ch)
{
    (void)t;
    (void)ch;
    return TUI_R_HANDLED | TUI_R_REPAINT;
}

static int key_quit(struct tui *t, int ch)
{
    (void)t;
    (void)ch;
    return TUI_R_HANDLED | TUI_R_QUIT;
}

#define CTRL(c) ((c)&0x1f)

const struct tui_key tui_keys[] = {
    {KEY_F(1), "F1 ?", NULL, "show this help; any key closes it", "Help", key_help},
    {'?', NULL, NULL, NULL, NULL, key_help},
    {' ', "Space", NULL, "step one epoch; while one computes, queue another", "Step", key_step},
    {'r', "r", NULL, "run / pause (a pause waits for the epoch in flight)", "Run", key_run},
    {'+', "+ -", NULL, "run faster / slower: max, 10/s, 5/s ... 1 per 5 s", "Speed", key_speed},
    {'=', NULL, NULL, NULL, NULL, key_speed},
    {'-', NULL, NULL, NULL, NULL, key_speed},
    {'\t', "Tab", NULL, "focus the next panel", "Focus", key_focus},
    {KEY_BTAB, "Shift-Tab", NULL, "focus the previous panel", NULL, key_focus},
    {KEY_UP, "Up Down", "↑ ↓", "select a kernel (scroll the event log when it has focus)", "Select",
     key_select},
    {KEY_DOWN, NULL, NULL, NULL, NULL, key_select},
    {CTRL('l'), "Ctrl-L", NULL, "redraw the screen", NULL, key_repaint},
    {'q', "q", NULL, "quit at once, even while an epoch computes", "Quit", key_quit},
};

const size_t tui_nkeys = sizeof tui_keys / sizeof tui_keys[0];

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
        if (tui_keys[i].code == ch)
            return tui_keys[i].handle(t, ch);
    return 0;
}
