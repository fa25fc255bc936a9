/* view_bars — the header (what is being simulated and where the run stands) and the key bar
 * (the keys that exist, from the key table). */
#include <string.h>

#include "config.h"
#include "tui_internal.h"

static void draw_title_row(const struct tui *t, WINDOW *w, int cols)
{
    const struct tui_style *st = &t->style;
    const struct scenario *sc = t->sc;
    wattron(w, st->header);
    mvwhline(w, 0, 0, ' ', cols);
    const char *mode = !t->live ? "REPLAY" : t->recording ? "LIVE, REC" : "LIVE";
    int right = cols - tui_columns(mode) - 2;
    /* The mode always shows; the scenario's name gives way on a narrow screen, its cut shown. */
    int x = 1 + tui_print(w, 0, 1, "corun %s %s GPU: %s, %u SMs %s Scenario: ", PACKAGE_VERSION,
                          st->sep, sc->gpu_name, sc->gpu.sms, st->sep);
    tui_print_fit(st, w, 0, x, right - 1 - x, sc->name);
    mvwhline(w, 0, right - 1, ' ', cols - right + 1);
    wattron(w, A_BOLD);
    tui_print(w, 0, right, "%s", mode);
    wattroff(w, A_BOLD);
    wattroff(w, st->header);
}

static void draw_run_row(const struct tui *t, WINDOW *w)
{
    const struct tui_epoch *e = tui_shown(t);
    char cyc[32];
    tui_thousands(cyc, sizeof cyc, e ? (unsigned long long)(e->e.start_cycle + e->e.cycles) : 0);
    int x = 1;
    wattron(w, A_BOLD);
    /* Live: epochs done of the scenario's; replay: the one shown of the file's. */
    if (t->live && t->nepochs > t->sc->epochs) /* r or Space went on past the planned run */
        x += tui_print(w, 1, x, "Epoch %u (%u planned)", t->nepochs, t->sc->epochs);
    else if (t->live)
        x += tui_print(w, 1, x, "Epoch %u/%u", t->nepochs, t->sc->epochs);
    else
        x += tui_print(w, 1, x, "Epoch %u/%u", e ? e->e.index + 1 : 0, t->nepochs);
    wattroff(w, A_BOLD);
    /* Live: the active predictor and allocator; replay: those of the epoch shown. */
    unsigned i = e ? e->e.index : 0;
    tui_print(w, 1, x, "  Cycle %s  Predictor: %s  Allocator: %s", cyc, tui_predictor_at(t, i),
              tui_allocator_at(t, i));
}

/* A replay: the run file, or the branch being computed from it. */
static void draw_replay_row(const struct tui *t, WINDOW *w, int cols)
{
    const struct tui_style *st = &t->style;
    int x = 1;
    if (t->branching) {
        wattron(w, A_BOLD);
        x += tui_print(w, 2, x, "Branching");
        wattroff(w, A_BOLD);
        x += tui_print(w, 2, x, " after epoch %u: re-simulating ", t->branch_at);
        int width = cols - x - 6;
        if (width > 30)
            width = 30;
        tui_bar(st, w, 2, x, width, t->progress);
        x += width > 0 ? width : 0;
        tui_print(w, 2, x, " %3.0f%%", t->progress * 100);
        return;
    }
    char hint[64];
    snprintf(hint, sizeof hint, "  (%s moves, g goes to, b branches)",
             st->utf8 ? "← →" : "Left/Right");
    x += tui_print(w, 2, x, "Run file: ");
    /* A long path keeps its file name, after an ellipsis, and the keys' hint beside it while
     * the path keeps 20 columns; a narrower window shows the path alone. */
    int room = cols - 1 - x, hint_cols = tui_columns(hint);
    if (tui_columns(t->run_path) + hint_cols > room && room - hint_cols < 20)
        hint_cols = 0;
    x += tui_print_tail(st, w, 2, x, room - hint_cols, t->run_path);
    if (hint_cols) {
        wattron(w, st->dim);
        tui_print(w, 2, x, "%s", hint);
        wattroff(w, st->dim);
    }
}

static void draw_activity_row(const struct tui *t, WINDOW *w, int cols)
{
    const struct tui_style *st = &t->style;
    if (!t->live) {
        draw_replay_row(t, w, cols);
        return;
    }
    int x = 1;
    /* Mix changes wait for the next epoch boundary, which the epoch in flight ends. */
    char mix[160] = "";
    if (t->mix.pending[0])
        snprintf(mix, sizeof mix, "  mix %s at next epoch", t->mix.pending);
    wattron(w, A_BOLD);
    x += tui_print(w, 2, x, "%s", t->running ? "Running" : "Paused");
    wattroff(w, A_BOLD);
    x += tui_print(w, 2, x, "  Speed: %s  ", tui_speed_label(t->speed));
    if (t->busy && t->rewinding) /* re-simulating up to there, not a next epoch */
        x += tui_print(w, 2, x, "rewinding to epoch %u ", t->branch_at);
    else if (t->busy)
        x += tui_print(w, 2, x, "computing epoch %u ", t->nepochs + 1);
    if (t->busy) {
        int width = cols - x - 16 - tui_columns(mix);
        if (width > 30)
            width = 30;
        tui_bar(st, w, 2, x, width, t->progress);
        x += width > 0 ? width : 0;
        x += tui_print(w, 2, x, " %3.0f%%", t->progress * 100);
        if (t->queued)
            x += tui_print(w, 2, x, "  +%u queued", t->queued);
    } else if (t->running) {
        x += tui_print(w, 2, x, "waiting for the pace");
    } else {
        wattron(w, st->dim);
        x += tui_print(w, 2, x, "%s",
                       mix[0] ? "idle: Space steps" : "idle: Space steps one epoch, r runs");
        wattroff(w, st->dim);
    }
    if (mix[0]) {
        wattron(w, A_BOLD);
        x += tui_print(w, 2, x, "%s", mix);
        wattroff(w, A_BOLD);
    }
    if (t->recording && !t->busy)
        tui_print(w, 2, x, "  %s recording to %s", st->sep, t->run_path);
}

static void draw_header(const struct tui *t, WINDOW *w)
{
    int cols = getmaxx(w);
    draw_title_row(t, w, cols);
    draw_run_row(t, w);
    draw_activity_row(t, w, cols);
}

const struct tui_view tui_view_header = {
    .deps = TUI_CH_EPOCH | TUI_CH_PROGRESS | TUI_CH_STATE,
    .draw = draw_header,
};

/* When the bar is too narrow for every name, these keys leave it first, in this order (the
 * help lists every key). L, active only in a lesson, goes last: at 80 columns it is how a
 * class gets a hidden lesson panel back. */
static const int drop_order[] = {'\t', '+', 'G', KEY_LEFT, 'o', 'e', 'k', 'L'};
#define NDROP (sizeof drop_order / sizeof drop_order[0])

/* Whether key row k is in the bar with the first `dropped` keys of drop_order left out. */
static bool on_bar(const struct tui *t, const struct tui_key *k, size_t dropped)
{
    if (!k->bar || !tui_key_active(t, k))
        return false;
    for (size_t i = 0; i < dropped; i++)
        if (k->code == drop_order[i])
            return false;
    return true;
}

/* The columns of the bar, gap columns between names. */
static int bar_columns(const struct tui *t, size_t dropped, int gap)
{
    int need = -gap;
    for (size_t i = 0; i < tui_nkeys; i++)
        if (on_bar(t, &tui_keys[i], dropped))
            need += tui_columns(tui_key_label(t, &tui_keys[i])) + 1 + tui_columns(tui_keys[i].bar) +
                    gap;
    return need;
}

static void draw_keybar(const struct tui *t, WINDOW *w)
{
    const struct tui_style *st = &t->style;
    int cols = getmaxx(w), x = 0;
    /* Two spaces between keys; one when that is what it takes to show them all; then keys
     * leave. */
    size_t dropped = 0;
    const char *gap = bar_columns(t, 0, 2) <= cols ? "  " : " ";
    while (dropped < NDROP && bar_columns(t, dropped, 1) > cols)
        dropped++;
    for (size_t i = 0; i < tui_nkeys && x < cols; i++) {
        const struct tui_key *k = &tui_keys[i];
        if (!on_bar(t, k, dropped))
            continue;
        wattron(w, A_BOLD);
        x += tui_print(w, 0, x, "%s", tui_key_label(t, k));
        wattroff(w, A_BOLD);
        wattron(w, st->key);
        x += tui_print(w, 0, x, " %s", k->bar);
        wattroff(w, st->key);
        x += tui_print(w, 0, x, "%s", gap);
    }
}

const struct tui_view tui_view_keybar = {
    .deps = 0,
    .draw = draw_keybar,
};
